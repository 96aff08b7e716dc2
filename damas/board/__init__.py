"""The live board loop: what the board saw and what the players entered, journalled, judged,
lit on the LEDs and pushed to the pages (``loop.PlayApp``). It uses the records, the computer
and the hall link; it never imports the web page (the page registers its pushers with the loop)."""
