"""The source documents' own code, ported literally with its bugs (names `source_*`), to show their errors."""
