"""The tournament hall: many boards over MQTT, one live hall page and broadcast feed, Swiss pairings,
standings and tie-breaks (DESIGN.md §7). It never imports a board's backends: boards reach it
only through the broker."""
