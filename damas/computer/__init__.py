"""The computer at the board: the engine interface (``opponent``: a Hub client for any engine,
ours in its own process), the computer's side in the board loop (``player``: its moves and
hints) and the analysis of a game (``analysis``). It imports nothing else of the app."""
