"""The run directory (DESIGN.md, "Run directory"; docs/design.md): its one home, on the ground floor.

Every reader and writer of a run directory goes through this package: the file names (`layout`), atomic
writes (`atomic`), JSON lines that read back whatever was written (`jsonl`), the typed manifest (`manifest`,
`resume`), the frozen items (`items`), the results ledger (`ledger`, `outcomes`), traces (`traces`), blobs
(`blobs`), the schedule (`schedule`), scores (`scores`), the run as a whole (`run`) and its one-writer lock
(`lock`); the typed, versioned lines of results, scores and traces (`results`, `scores`, `traces`, `versions`).
It imports only the standard library, pydantic and `mcot.benchmarks.item`, so every room may use it.
Names are imported on first use: `import mcot.rundir` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.lazy import lazy_exports

_EXPORTS = {
    "RunDirError": "mcot.rundir.errors",
    "RunInUseError": "mcot.rundir.errors",
    "copy_stream_atomic": "mcot.rundir.atomic",
    "temporary_dir": "mcot.rundir.atomic",
    "temporary_file": "mcot.rundir.atomic",
    "write_bytes_atomic": "mcot.rundir.atomic",
    "write_chunks_atomic": "mcot.rundir.atomic",
    "write_text_atomic": "mcot.rundir.atomic",
    "compact_json": "mcot.rundir.jsonl",
    "escape_unsafe": "mcot.rundir.jsonl",
    "iter_jsonl": "mcot.rundir.jsonl",
    "json_line": "mcot.rundir.jsonl",
    "json_text": "mcot.rundir.jsonl",
    "read_jsonl": "mcot.rundir.jsonl",
    "write_jsonl": "mcot.rundir.jsonl",
    "BLOBS": "mcot.rundir.layout",
    "ITEMS_COPY": "mcot.rundir.layout",
    "LOCK": "mcot.rundir.layout",
    "MANIFEST": "mcot.rundir.layout",
    "RESULTS": "mcot.rundir.layout",
    "SCHEDULE": "mcot.rundir.layout",
    "SCORES": "mcot.rundir.layout",
    "ROBUST_SCORES": "mcot.rundir.layout",
    "safe_stem": "mcot.rundir.layout",
    "TRACES": "mcot.rundir.layout",
    "now_iso": "mcot.rundir.clock",
    "BlobError": "mcot.rundir.blobs",
    "BlobStore": "mcot.rundir.blobs",
    "Blobs": "mcot.rundir.blobs",
    "MemoryBlobs": "mcot.rundir.blobs",
    "blob_path": "mcot.rundir.blobs",
    "DrawnBy": "mcot.rundir.traces",
    "Step": "mcot.rundir.traces",
    "StepKind": "mcot.rundir.traces",
    "Trace": "mcot.rundir.traces",
    "TraceStore": "mcot.rundir.traces",
    "trace_name": "mcot.rundir.traces",
    "trace_relpath": "mcot.rundir.traces",
    "DEFAULT_SEED": "mcot.rundir.schedule",
    "read_schedule": "mcot.rundir.schedule",
    "shuffled_pairs": "mcot.rundir.schedule",
    "write_schedule": "mcot.rundir.schedule",
    "Method": "mcot.rundir.scores",
    "Score": "mcot.rundir.scores",
    "iter_scores": "mcot.rundir.scores",
    "Result": "mcot.rundir.results",
    "ResultUsage": "mcot.rundir.results",
    "SCHEMA_KEY": "mcot.rundir.versions",
    "RESULT_VERSION": "mcot.rundir.versions",
    "SCORE_VERSION": "mcot.rundir.versions",
    "TRACE_VERSION": "mcot.rundir.versions",
    "read_scores": "mcot.rundir.scores",
    "write_scores": "mcot.rundir.scores",
    "ArmEntry": "mcot.rundir.manifest",
    "DatasetEntry": "mcot.rundir.manifest",
    "GeneratorEntry": "mcot.rundir.manifest",
    "JudgeEntry": "mcot.rundir.manifest",
    "Manifest": "mcot.rundir.manifest",
    "ModelEntry": "mcot.rundir.manifest",
    "ScheduleEntry": "mcot.rundir.manifest",
    "ScoringEntry": "mcot.rundir.manifest",
    "SessionEntry": "mcot.rundir.manifest",
    "build_manifest": "mcot.rundir.manifest",
    "new_session": "mcot.rundir.manifest",
    "order_arms": "mcot.rundir.manifest",
    "read_manifest": "mcot.rundir.manifest",
    "write_manifest": "mcot.rundir.manifest",
    "resume_conflicts": "mcot.rundir.resume",
    "FrozenItems": "mcot.rundir.items",
    "check_frozen_items": "mcot.rundir.items",
    "file_sha256": "mcot.rundir.items",
    "frozen_line": "mcot.rundir.items",
    "source_change": "mcot.rundir.items",
    "ResultsLedger": "mcot.rundir.ledger",
    "latest_by_key": "mcot.rundir.ledger",
    "PairOutcomes": "mcot.rundir.outcomes",
    "Unfinished": "mcot.rundir.outcomes",
    "Run": "mcot.rundir.run",
    "RunDir": "mcot.rundir.run",
    "open_run": "mcot.rundir.run",
    "RunLock": "mcot.rundir.lock",
    "run_lock": "mcot.rundir.lock",
}

if TYPE_CHECKING:
    from mcot.rundir.atomic import (
        copy_stream_atomic,
        temporary_dir,
        temporary_file,
        write_bytes_atomic,
        write_chunks_atomic,
        write_text_atomic,
    )
    from mcot.rundir.blobs import BlobError, Blobs, BlobStore, MemoryBlobs, blob_path
    from mcot.rundir.clock import now_iso
    from mcot.rundir.errors import RunDirError, RunInUseError
    from mcot.rundir.items import FrozenItems, check_frozen_items, file_sha256, frozen_line, source_change
    from mcot.rundir.jsonl import compact_json, escape_unsafe, iter_jsonl, json_line, json_text, read_jsonl, write_jsonl
    from mcot.rundir.layout import (
        BLOBS,
        ITEMS_COPY,
        LOCK,
        MANIFEST,
        RESULTS,
        ROBUST_SCORES,
        SCHEDULE,
        SCORES,
        TRACES,
        safe_stem,
    )
    from mcot.rundir.ledger import ResultsLedger, latest_by_key
    from mcot.rundir.lock import RunLock, run_lock
    from mcot.rundir.manifest import (
        ArmEntry,
        DatasetEntry,
        GeneratorEntry,
        JudgeEntry,
        Manifest,
        ModelEntry,
        ScheduleEntry,
        ScoringEntry,
        SessionEntry,
        build_manifest,
        new_session,
        order_arms,
        read_manifest,
        write_manifest,
    )
    from mcot.rundir.outcomes import PairOutcomes, Unfinished
    from mcot.rundir.results import Result, ResultUsage
    from mcot.rundir.resume import resume_conflicts
    from mcot.rundir.run import Run, RunDir, open_run
    from mcot.rundir.schedule import DEFAULT_SEED, read_schedule, shuffled_pairs, write_schedule
    from mcot.rundir.scores import Method, Score, iter_scores, read_scores, write_scores
    from mcot.rundir.traces import DrawnBy, Step, StepKind, Trace, TraceStore, trace_name, trace_relpath
    from mcot.rundir.versions import RESULT_VERSION, SCHEMA_KEY, SCORE_VERSION, TRACE_VERSION


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "BLOBS",
    "DEFAULT_SEED",
    "ITEMS_COPY",
    "LOCK",
    "MANIFEST",
    "RESULTS",
    "RESULT_VERSION",
    "ROBUST_SCORES",
    "SCHEDULE",
    "SCHEMA_KEY",
    "SCORES",
    "SCORE_VERSION",
    "TRACES",
    "TRACE_VERSION",
    "ArmEntry",
    "BlobError",
    "BlobStore",
    "Blobs",
    "DatasetEntry",
    "DrawnBy",
    "FrozenItems",
    "GeneratorEntry",
    "JudgeEntry",
    "Manifest",
    "MemoryBlobs",
    "Method",
    "ModelEntry",
    "PairOutcomes",
    "Result",
    "ResultUsage",
    "ResultsLedger",
    "Run",
    "RunDir",
    "RunDirError",
    "RunInUseError",
    "RunLock",
    "ScheduleEntry",
    "Score",
    "ScoringEntry",
    "SessionEntry",
    "Step",
    "StepKind",
    "Trace",
    "TraceStore",
    "Unfinished",
    "blob_path",
    "build_manifest",
    "check_frozen_items",
    "compact_json",
    "copy_stream_atomic",
    "escape_unsafe",
    "file_sha256",
    "frozen_line",
    "iter_jsonl",
    "iter_scores",
    "json_line",
    "json_text",
    "latest_by_key",
    "new_session",
    "now_iso",
    "open_run",
    "order_arms",
    "read_jsonl",
    "read_manifest",
    "read_schedule",
    "read_scores",
    "resume_conflicts",
    "run_lock",
    "safe_stem",
    "shuffled_pairs",
    "source_change",
    "temporary_dir",
    "temporary_file",
    "trace_name",
    "trace_relpath",
    "write_bytes_atomic",
    "write_chunks_atomic",
    "write_jsonl",
    "write_manifest",
    "write_schedule",
    "write_scores",
    "write_text_atomic",
]
