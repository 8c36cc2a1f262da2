"""The exceptions a tool raises; `call` turns them into error results the model can act on."""

from __future__ import annotations


class ToolError(ValueError):
    """A tool call could not be carried out; the message says what was wrong and how to fix the call."""


class ToolTimeout(ToolError):
    """A tool ran past its time or iteration budget; the message says which limit to lower."""
