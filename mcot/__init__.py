"""mcot: the CLI and run orchestration. The only package that imports all the others."""

__version__ = "0.1.0"
