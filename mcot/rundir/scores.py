"""The scores file, RUN/scores.jsonl: one `Score` a line for every (item id, arm) of a scored run."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcot.rundir.errors import RunDirError
from mcot.rundir.jsonl import iter_jsonl, json_line, write_jsonl
from mcot.rundir.layout import SCORES

Method = Literal["rule", "judge", "judge_error", "none", "error", "human"]


@dataclass
class Score:
    """One line of RUN/scores.jsonl: the score of one (item id, arm) and how it was decided.

    `mode` is the arm's name. Method "error": the run did not finish the pair (status error or budget, or no
    result at all); such a score is wrong (`correct` False, `score` 0.0) with `status` and `reason` in details.
    """

    id: str
    mode: str
    benchmark: str
    category: str
    score: float | None
    correct: bool | None
    method: Method
    extracted: str | None = None
    judge: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json_line(self) -> str:
        """Return the score as one JSON line (no newline) that every line splitter keeps whole."""
        return json_line(asdict(self))


def read_scores(root: Path, name: str = SCORES) -> list[Score]:
    """Return the scores of a scored run (last line wins per (id, mode)); raise RunDirError when unscored."""
    path = Path(root) / name
    if not path.is_file():
        raise RunDirError(f"{root} has no {name}: run `mcot score {root}` first")
    latest: dict[tuple[str, str], Score] = {}
    for row in iter_jsonl(path):
        try:
            score = Score(**row)
        except TypeError as exc:
            raise RunDirError(f"{path}: a line does not have the score fields ({exc})") from None
        latest[(score.id, score.mode)] = score
    return list(latest.values())


def write_scores(root: Path, scores: Iterable[Score], name: str = SCORES) -> Path:
    """Write RUN/scores.jsonl (or RUN/`name`) atomically and return its path."""
    return write_jsonl(Path(root) / name, scores, line=Score.to_json_line)
