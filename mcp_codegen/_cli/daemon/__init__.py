"""The build daemon: a process that outlives ``mcp-codegen generate`` and ``check`` for one
project, so that a build pays only for what changed (docs/daemon.md).

- ``wire``: what the command and the daemon share (where it listens, framing, identity);
- ``client``: how ``generate`` and ``check`` hand their command line to a running daemon;
- ``service``: the daemon's loop;
- ``control``: ``mcp-codegen daemon start | stop | status | run``.

Runs in: parent.
"""
