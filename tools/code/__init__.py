"""The code arm's `python` tool: a stateful Jupyter kernel per (item, arm) inside an OS sandbox (docs/code.md)."""
