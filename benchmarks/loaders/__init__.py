"""Native benchmark loaders: RBench-V, GePBench, GOBench and OmniPhys files (and any format a plugin declares)
read as mcot items.

Each format is one module holding `load(src, tally, **options)` and `detect(path)`, declared by name in
`mcot.core.registry.LOADERS` (a benchmark's declaration names its loader module). `load(format, src, **options)`
returns a LoadResult (items with their image bytes, and skips with reasons); `iter_load` streams the same;
`detect_format(path)` names the format of a file or folder; `convert(format, src, out, **options)` writes an
items directory with `skipped.jsonl` and returns a ConvertSummary; `convertible_formats()` lists the formats.
"""

from mcot.benchmarks.loaders._convert import SKIPPED_FILE, convert
from mcot.benchmarks.loaders._detect import detect_format
from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS
from mcot.benchmarks.loaders._load import convertible_formats, iter_load, load, options_of
from mcot.benchmarks.loaders._types import ConvertSummary, LoadedItem, LoaderError, LoadResult, Skip
from mcot.benchmarks.loaders.omniphys_mapping import FieldMapping, parse_mapping

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "SKIPPED_FILE",
    "ConvertSummary",
    "FieldMapping",
    "LoadResult",
    "LoadedItem",
    "LoaderError",
    "Skip",
    "convert",
    "convertible_formats",
    "detect_format",
    "iter_load",
    "load",
    "options_of",
    "parse_mapping",
]
