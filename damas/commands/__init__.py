"""The subcommands of ``damas``, one module each.

Every module has ``register(sub)``, which adds its parser to the main parser's subcommands
and sets ``func`` to the function that runs it. ``damas.cli`` registers them in ``ORDER``
(the order ``damas -h`` lists them). A new subcommand is a new module here and one name in
``ORDER``.
"""

ORDER = (
    "demo",
    "perft",
    "moves",
    "hub",
    "analyze",
    "hall",
    "hall_setup",
    "replay",
    "selftest",
    "play",
    "deploy",
    "games",
    "export",
    "recover",
    "emulator",
    "pico_repl",
    "pdn",
)
