"""The one exception type the canvas raises."""

from __future__ import annotations


class CanvasError(ValueError):
    """A canvas operation was refused; the message says what was wrong and what is allowed.

    The canvas is left exactly as it was before the refused operation.
    """
