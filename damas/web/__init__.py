"""The local web page: the HTTP API and its guards (``routes``), the WebSocket pushes
(``viewers``) and the page itself (``static/``). It talks to the board loop only through the
``PlayApp`` it is given; it never imports the records, the computer or the hall link."""
