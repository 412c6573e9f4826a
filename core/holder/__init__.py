"""One process holds an index folder and answers every other over a local socket.

Qdrant Edge lets one process open a shard; the holder (the app, `index`,
`serve`, `mcp`, or any command that found nobody) opens it and serves the
others over a Unix socket in the index folder with a small JSON protocol
(protocol.py). Clients (client.py) import nothing heavy; access.py decides
between asking the holder and becoming it.
"""
