"""Views: plots, graph and tree drawings, boards and widgets (thin views over pure models).

Imported in a kernel, it makes every inline figure carry its alt text (`alt.install`).
"""

from .alt import install as _install_alt

_install_alt()
