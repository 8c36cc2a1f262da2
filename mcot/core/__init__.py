"""mcot's ground floor: what every room may use and what imports no room.

The registry and the declaration API (`registry`, `declare`, `plugins`), the errors, options and geometry every
room shares, the record types (`item`, the run directory's `rundir`), and the guarded file inputs (`inputs`).
Nothing here imports `mcot.agents`, `mcot.canvas`, `mcot.tools`, `mcot.benchmarks`, `mcot.eval` or the roof
(runner, commands, CLI): tests/mcot/core/test_floors.py holds the contract.
"""
