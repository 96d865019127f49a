"""The German catalogue as the i18n tests read it: whether it translates a string, and its German."""

from __future__ import annotations

from gamekit import i18n


def translated(msgid: str, context: str | None = None, plural: str | None = None) -> bool:
    """Whether the German catalogue translates `msgid` (in `context`; a plural by either form) into
    something other than the English (fuzzy entries do not count: they are never shown)."""
    german = i18n._translations("de")
    if plural is not None:
        return german.ngettext(msgid, plural, 1) != msgid or german.ngettext(msgid, plural, 2) != plural
    if context is not None:
        return german.pgettext(context, msgid) != msgid
    return german.gettext(msgid) != msgid


def de(msgid: str, context: str | None = None, plural: str | None = None, n: int = 1) -> str:
    """The catalogue's German of `msgid` (its form for `n` when `plural` is given)."""
    german = i18n._translations("de")
    if plural is not None:
        return german.ngettext(msgid, plural, n)
    return german.pgettext(context, msgid) if context is not None else german.gettext(msgid)
