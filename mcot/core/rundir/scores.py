"""The scores file, RUN/scores.jsonl: one `Score` a line for every (item id, arm) of a scored run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from mcot.core.rundir.errors import RunDirError
from mcot.core.rundir.jsonl import iter_jsonl, json_line, write_jsonl
from mcot.core.rundir.layout import SCORES
from mcot.core.rundir.versions import SCHEMA_KEY, SCORE_VERSION, OpenRecord, validation_message, versioned

Method = Literal["rule", "judge", "judge_error", "none", "error", "human"]


class Score(OpenRecord):
    """One line of RUN/scores.jsonl: the score of one (item id, arm) and how it was decided.

    `mode` is the arm's name. Method "error": the run did not finish the pair (status error or budget, or no
    result at all); such a score is wrong (`correct` False, `score` 0.0) with `status` and `reason` in details.
    `cluster` (written only when it differs from the id) groups the items whose errors are correlated, such as
    the questions of one GePBench figure. A key this mcot does not know is kept (`extra="allow"`); an unversioned line reads as schema version 1.
    """

    schema_version: int = SCORE_VERSION
    id: str
    mode: str
    benchmark: str
    category: str
    score: float | None = None
    correct: bool | None = None
    method: Method = "none"
    extracted: str | None = None
    judge: dict[str, Any] | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    cluster: str | None = None
    """The item's cluster under its benchmark's key (mcot.core.clusters); None: the item is its own cluster."""

    @property
    def unit(self) -> str:
        """Return the cluster the score's errors are correlated within: `cluster`, else the item id."""
        return self.cluster if self.cluster is not None else self.id

    @property
    def key(self) -> tuple[str, str]:
        """Return the pair the score is about: (item id, arm)."""
        return self.id, self.mode

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object of the line: its schema version first, then every field (`cluster` only when the
        item is not its own cluster, so that the lines of item-keyed benchmarks stay as they were)."""
        skip = {SCHEMA_KEY} if self.cluster is not None else {SCHEMA_KEY, "cluster"}
        return {SCHEMA_KEY: self.schema_version, **self.model_dump(exclude=skip)}

    def to_json_line(self) -> str:
        """Return the score as one JSON line (no newline) that every line splitter keeps whole."""
        return json_line(self.to_json())

    @classmethod
    def from_line(cls, row: Mapping[str, Any], where: str = SCORES) -> Score:
        """Return the score a parsed line holds (no `schema_version`: version 1); raise RunDirError naming `where`
        when the line is not a score line (a field missing or of the wrong type, a newer schema)."""
        try:
            return cls.model_validate(versioned(row, SCORE_VERSION, where))
        except ValidationError as exc:
            raise RunDirError(f"{where}: a line does not have the score fields ({validation_message(exc)})") from None


def iter_scores(path: Path) -> Iterator[Score]:
    """Yield the scores of a scores file in the order written, read as it goes (none when it is absent)."""
    for row in iter_jsonl(path):
        yield Score.from_line(row, str(path))


def read_scores(root: Path, name: str = SCORES) -> list[Score]:
    """Return the scores of a scored run (last line wins per (id, mode)); raise RunDirError when unscored."""
    path = Path(root) / name
    if not path.is_file():
        raise RunDirError(f"{root} has no {name}: run `mcot score {root}` first")
    latest: dict[tuple[str, str], Score] = {}
    for score in iter_scores(path):
        latest[score.key] = score
    return list(latest.values())


def write_scores(root: Path, scores: Iterable[Score], name: str = SCORES) -> Path:
    """Write RUN/scores.jsonl (or RUN/`name`) atomically and return its path."""
    return write_jsonl(Path(root) / name, scores, line=Score.to_json_line)
