"""``micropython`` for CPython (MicroPython has its own): Ctrl-C's state."""

kbd = 3


def kbd_intr(c):
    global kbd
    kbd = c
