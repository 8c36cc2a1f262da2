"""Native benchmark loaders: RBench-V, GePBench, GOBench and OmniPhys files read as mcot items.

`load(format, src, **options)` returns a LoadResult (items with their image bytes, and skips with reasons);
`iter_load` streams the same; `detect_format(path)` names the format of a file or folder; `convert(format,
src, out, **options)` writes an items directory with `skipped.jsonl` and returns a ConvertSummary.
"""

from mcot.benchmarks.loaders._convert import SKIPPED_FILE, convert
from mcot.benchmarks.loaders._detect import detect_format
from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS
from mcot.benchmarks.loaders._load import FORMATS, iter_load, load, options_of
from mcot.benchmarks.loaders._types import ConvertSummary, LoadedItem, LoaderError, LoadResult, Skip
from mcot.benchmarks.loaders.omniphys_mapping import FieldMapping, parse_mapping

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "FORMATS",
    "SKIPPED_FILE",
    "ConvertSummary",
    "FieldMapping",
    "LoadResult",
    "LoadedItem",
    "LoaderError",
    "Skip",
    "convert",
    "detect_format",
    "iter_load",
    "load",
    "options_of",
    "parse_mapping",
]
