"""What every attacker in the attack suites begins with: the in-process guard switched off.

The guard (`gamekit.sandbox.inside`) is a courtesy that turns accidents into friendly forfeit reasons;
it is no boundary. A determined student who has read the code switches it off first, so every attack
of tests/test_tournament_attacks.py, test_tournament_boundary.py and test_zygote_attacks.py starts
with `DISARM`: what stops it after that is the kernel's (the filter, the namespaces, the bounds).
It imports what the attacks use (`gc`, `mmap`, `os`, `signal`, `sys`, `time`) and names the guard's
module `_inside`.
"""

DISARM = """
import gc, mmap, os, signal, sys, time
import gamekit.sandbox.inside as _inside
_inside.FORBIDDEN_EVENTS.clear(); _inside.CHANGE_EVENTS.clear(); _inside.READ_EVENTS.clear()
_inside.DENIED_IMPORTS.clear()
for _g in gc.get_objects():
    if type(_g).__name__ == "Guard":
        _g.readable.append("/"); _g.folder.append("/"); _g.devices.update({"/dev/tcp"})
"""
