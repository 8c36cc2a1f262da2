"""An example mcot plugin: the `arith` benchmark ("What is A + B?"), the `add` tool and the `calculator` backend.

Installed, it is found through the entry point `arith` of the group `mcot.plugins` (see pyproject.toml), which
names `mcot_arith.declare`; nothing in mcot's own packages changes. docs/extending.md walks through it.
"""
