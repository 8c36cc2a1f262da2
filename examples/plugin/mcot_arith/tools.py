"""The plugin's domain tool: a plain typed function, declared with `@mcot.tool` in its own group."""

import mcot


@mcot.tool("arith", example={"a": 2, "b": 3})
def add(a: int, b: int) -> int:
    """Return the sum a + b of two integers."""
    return a + b
