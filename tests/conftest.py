"""Every test sees the built-in benchmarks declared, as every `mcot` command does."""

from mcot.benchmarks import declare_builtin

declare_builtin()
