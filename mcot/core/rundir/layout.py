"""The names of a run directory's files and folders (DESIGN.md, "Run directory"), written here once, and the rule
for names made from ids and other free text (`safe_stem`)."""

from __future__ import annotations

import hashlib
import re

MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
SCORES = "scores.jsonl"
PROBES = "probes.jsonl"
"""`mcot probe`'s lines: one per (item id, arm, probe kind) (mcot.core.rundir.probes)."""
ROBUST_SCORES = "scores.robust.jsonl"
"""With scoring protocol "both": the robust scores, beside the official ones in scores.jsonl."""
SAMPLES = "samples"
"""With `mcot run --samples K`: RUN/samples/<k> is the run directory of sample k (2 ≤ k ≤ K; sample 1 is RUN)."""
ITEMS_COPY = "items.jsonl"
SCHEDULE = "schedule.jsonl"
TRACES = "traces"
BLOBS = "blobs"
LOCK = ".mcot.lock"
CODE_REPLAY = "code_replay.jsonl"
"""One line per (item id, arm) whose trace ran code: its cells re-run in a fresh session, image hashes compared."""
"""The lock file of the one process that writes the run (see mcot.core.rundir.lock)."""
_PLAIN = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_stem(text: str, max_chars: int = 100) -> str:
    """Return a file-name stem for `text`: the text itself when it is short and plain (letters, digits, `_.-`),
    else its plain characters (at most 80) and a hash of the exact text, so two texts never share a stem."""
    plain = _PLAIN.sub("_", text).strip("_.") or "_"
    if plain == text and len(text) <= max_chars:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{plain[:80]}-{digest}"
