"""mcot and the Model Context Protocol (the `mcp` extra): its toolset as an MCP server, MCP servers' tools in its arms.

- `mcot.mcp.server`: `mcot mcp serve --toolset NAME [--http HOST:PORT]`, one canvas per MCP session.
- `mcot.mcp.servers`: `mcot run --mcp NAME=COMMAND` starts MCP servers, lists their tools and declares each as an
  mcot tool whose calls go to the server (images included), for the arms that name them.

Nothing here is imported by `mcot --help` or a run without `--mcp`; the `mcp` SDK loads only in these modules.
"""
