"""Limits that bound every canvas: sizes, element counts, numeric ranges."""

from __future__ import annotations

MAX_SIDE = 8192
"""Largest width or height of a canvas, in pixels."""

MAX_PIXELS = 40_000_000
"""Largest number of pixels of a base image (larger files are refused as possible decompression bombs)."""

MAX_ELEMENTS = 5000
"""Most elements a canvas may hold at once."""

MAX_COORD = 1_000_000.0
"""Coordinates may leave the image (they are clipped when drawn) but must stay within +-MAX_COORD."""

MAX_WIDTH = 100.0
"""Largest stroke width in pixels; widths must be > 0."""

MAX_MARKER_RADIUS = 100.0
"""Largest marker radius of mark_point in pixels."""

MAX_RADIUS = MAX_COORD
"""Largest circle radius in pixels."""

MAX_TEXT_SIZE = 400.0
"""Largest font size in pixels."""

MAX_TEXT_CHARS = 1000
"""Longest text (or label) in characters."""

MAX_PATH_POINTS = 10_000
"""Most points in one path or polygon."""

MAX_SCALE = 100.0
"""Largest scale factor; the smallest is 1/MAX_SCALE."""

MAX_ZOOM = 16.0
"""Largest zoom factor."""

MAX_ZOOM_SIDE = 8192
"""Largest side of a zoomed image."""

MIN_GRID_STEP = 10
"""Smallest grid spacing in pixels."""
