"""The board's side of the tournament hall (``publish``: the game in play and the hall's
assignments over MQTT). It reads the records; it never imports the board loop or the page."""
