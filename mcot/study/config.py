"""STUDY.toml: the models, arms and data of a study, read with tomllib and checked before anything runs.

Top level: `data` (items folders or native files, relative to the file), `arms` (toolset names, checked against
mcot.core.registry.TOOLSETS), optional `limit` (the first N items of each data entry) or `sample` (N items of each
data entry stratified by benchmark and category, drawn with `seed`), `judge`, `judge_base_url`,
`protocol`, and any other `mcot run` setting (a RunConfig field) applied to every model. Each `[[model]]` has
`spec`, optional `name` (its run folder under DIR/runs), `key_env` (the environment variable holding its key),
and RunConfig fields of its own (`base_url`, `concurrency`, `max_cost`, ...) that override the top level.
`[[mcp]]` tables (`name`, `command`) start MCP servers for every model's run (`mcot run --mcp`), and `tools`
lists the custom arm's tools (`"NAME:*"`: every tool of the server NAME), which the study then adds to its arms.
A `[probes]` table (`arms`, optional `kinds`, `seed`, `limit`, `max_cost`) makes the study probe those arms of
every model's run once it is scored (`mcot probe`, mcot.study.probing).
Every value is checked by RunConfig itself, so a study accepts exactly what `mcot run` does.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.core.errors import UsageError
from mcot.core.inputs import YAML_MAX_BYTES, InputFileError, read_regular
from mcot.core.registry import TOOLSETS
from mcot.mcp.servers import parse_specs
from mcot.probes.kinds import KINDS
from mcot.runconfig import RunConfig

STUDY_OWNED = ("data", "model", "out", "mode", "tools", "limit", "sample", "format", "sample_index")
"""RunConfig fields a study sets itself (not settable in STUDY.toml as run settings)."""
STUDY_KEYS = (
    "data", "arms", "limit", "sample", "judge", "judge_base_url", "protocol", "model", "mcp", "tools", "probes"
)  # fmt: skip
PROBE_KEYS = ("arms", "kinds", "seed", "limit", "max_cost")
MODEL_KEYS = ("spec", "name", "key_env")


@dataclass(frozen=True)
class ModelEntry:
    """One `[[model]]` of a study: its spec, run folder name, key variable and its own run settings."""

    spec: str
    name: str
    key_env: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StudyProbes:
    """The `[probes]` table of a study: which arms of every model's run are probed, in which kinds, and the
    shuffle seed, the first `limit` pairs of each arm and the `max_cost` (USD) of each model's probes."""

    arms: tuple[str, ...]
    kinds: tuple[str, ...] = KINDS
    seed: int = 0
    limit: int | None = None
    max_cost: float | None = None


@dataclass(frozen=True)
class StudyConfig:
    """A study: its data, arms, models, the settings every model's run shares, and how it is scored."""

    source: Path
    data: tuple[Path, ...]
    arms: tuple[str, ...]
    models: tuple[ModelEntry, ...]
    limit: int | None = None
    sample: int | None = None
    """N items of each data entry, stratified by benchmark and category and drawn with the study's `seed`."""
    settings: dict[str, Any] = field(default_factory=dict)
    judge: str | None = None
    judge_base_url: str | None = None
    protocol: str = "official"
    mcp: tuple[str, ...] = ()
    """`[[mcp]]` tables as `--mcp NAME=COMMAND` values: the MCP servers every model's run offers (docs/mcp.md)."""
    tools: str | None = None
    """`tools`: the custom arm's tools (`--tools`, e.g. "img:*" for every tool of the [[mcp]] server `img`)."""
    probes: StudyProbes | None = None
    """`[probes]`: the faithfulness probes of every model's run (None: none are asked)."""

    def run_config(self, model: ModelEntry, items: Path, out: Path) -> RunConfig:
        """Return the RunConfig of one model's run on the study's items (UsageError naming the model if refused)."""
        options = {**self.settings, **model.settings}
        try:
            config = RunConfig(data=items, model=model.spec, out=out, mode=",".join(self.arms), tools=self.tools,
                               mcp=list(self.mcp) or None, **options)  # fmt: skip
        except UsageError as exc:
            raise UsageError(f"{self.source}: model {model.name!r}: {exc}") from exc
        except TypeError as exc:
            raise UsageError(f"{self.source}: model {model.name!r}: {exc}") from exc
        config.arms  # noqa: B018 - an unknown arm is refused before anything runs
        return config


def run_setting_names() -> tuple[str, ...]:
    """Return the RunConfig fields a STUDY.toml may set (top level or per model)."""
    return tuple(f.name for f in dataclasses.fields(RunConfig) if f.name not in STUDY_OWNED)


def slug(spec: str) -> str:
    """Return a folder name for a model spec (`openai-compatible:Qwen/Qwen2.5-VL` → `openai-compatible-Qwen-Qwen2.5-VL`)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-.") or "model"


def read_study(path: Path) -> StudyConfig:
    """Return the study of a STUDY.toml file; raise UsageError (one line naming the file and key) when it is wrong."""
    path = Path(path)
    try:
        raw = tomllib.loads(read_regular(path, what="study file", max_bytes=YAML_MAX_BYTES).decode("utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(f"{path} does not exist") from exc
    except InputFileError as exc:  # a FIFO, a device, a folder, or over the size limit: refused without blocking
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from exc
    allowed = run_setting_names()
    settings = {key: value for key, value in raw.items() if key not in STUDY_KEYS}
    _refuse_unknown(path, "the top level", settings, allowed, STUDY_KEYS)
    data = raw.get("data")
    if isinstance(data, str):
        data = [data]
    if not isinstance(data, list) or not data or not all(isinstance(d, str) for d in data):
        raise UsageError(f'{path}: `data` must list items folders or native files, e.g. data = ["data/games"]')
    arms = raw.get("arms", ["text", "canvas"])
    if not isinstance(arms, list) or not arms or not all(isinstance(a, str) for a in arms):
        raise UsageError(f'{path}: `arms` must list toolset names, e.g. arms = ["text", "canvas"]')
    tools = _tools(path, raw.get("tools"))
    _check_arms(path, [arm for arm in arms if not (arm == "custom" and tools)])
    limit = raw.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise UsageError(f"{path}: `limit` must be a positive whole number (the first N items of each data entry)")
    sample = raw.get("sample")
    if sample is not None and (not isinstance(sample, int) or isinstance(sample, bool) or sample < 1):
        raise UsageError(f"{path}: `sample` must be a positive whole number (N items of each data entry, stratified)")
    if sample is not None and limit is not None:
        raise UsageError(f"{path}: `sample` and `limit` choose the items in two ways: give one of them")
    models = _models(path, raw.get("model"), allowed)
    all_arms = tuple(dict.fromkeys([*arms, *(["custom"] if tools else [])]))
    probes = _probes(path, raw.get("probes"), all_arms)
    root = path.parent
    return StudyConfig(
        source=path,
        data=tuple((root / d).resolve() if not Path(d).is_absolute() else Path(d) for d in data),
        arms=all_arms,
        models=models,
        limit=limit,
        sample=sample,
        settings=settings,
        judge=_optional_str(path, raw, "judge"),
        judge_base_url=_optional_str(path, raw, "judge_base_url"),
        protocol=_optional_str(path, raw, "protocol") or "official",
        mcp=_mcp(path, raw.get("mcp")),
        tools=tools,
        probes=probes,
    )


def _probes(path: Path, table: Any, arms: tuple[str, ...]) -> StudyProbes | None:
    """Return the `[probes]` table (arms among the study's, kinds of mcot.probes.kinds), or None when absent."""
    if table is None:
        return None
    example = '[probes] arms = ["canvas"] kinds = ["blank", "shuffle", "perturb"]'
    if not isinstance(table, dict):
        raise UsageError(f"{path}: `probes` is a table, e.g. {example}")
    extra = sorted(set(table) - set(PROBE_KEYS))
    if extra:
        raise UsageError(f"{path}: [probes] has unknown key(s) {', '.join(extra)}; it takes {', '.join(PROBE_KEYS)}")
    chosen = table.get("arms")
    if isinstance(chosen, str):
        chosen = [chosen]
    if not isinstance(chosen, list) or not chosen or not all(isinstance(a, str) for a in chosen):
        raise UsageError(f"{path}: [probes] `arms` must list arms of the study, e.g. {example}")
    missing = [arm for arm in chosen if arm not in arms]
    if missing:
        raise UsageError(f"{path}: [probes] arm(s) {', '.join(missing)} not among the study's arms {', '.join(arms)}")
    if "text" in chosen:
        raise UsageError(f"{path}: [probes] arm text offers no tools: nothing is drawn there to probe")
    kinds = table.get("kinds", list(KINDS))
    if isinstance(kinds, str):
        kinds = kinds.split(",")
    if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
        raise UsageError(f"{path}: [probes] `kinds` must list probe kinds ({', '.join(KINDS)})")
    unknown = [kind for kind in kinds if kind.strip() not in KINDS]
    if unknown:
        raise UsageError(f"{path}: [probes] unknown kind(s) {', '.join(unknown)}; the kinds are {', '.join(KINDS)}")
    seed, limit, max_cost = table.get("seed", 0), table.get("limit"), table.get("max_cost")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise UsageError(f"{path}: [probes] `seed` must be a whole number")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise UsageError(f"{path}: [probes] `limit` must be a positive whole number (the first N pairs of each arm)")
    if max_cost is not None and (
        not isinstance(max_cost, int | float) or isinstance(max_cost, bool) or not max_cost > 0
    ):
        raise UsageError(f"{path}: [probes] `max_cost` must be a positive number of USD (each model's probes)")
    return StudyProbes(
        arms=tuple(dict.fromkeys(chosen)),
        kinds=tuple(dict.fromkeys(kind.strip() for kind in kinds)),
        seed=seed,
        limit=limit,
        max_cost=None if max_cost is None else float(max_cost),
    )


def _tools(path: Path, value: Any) -> str | None:
    """Return `tools` (a list of names or one comma-separated string) as `--tools` takes it, or None."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not value or not all(isinstance(name, str) and name.strip() for name in value):
        raise UsageError(f'{path}: `tools` must list tool names for the custom arm, e.g. tools = ["img:*", "zoom"]')
    return ",".join(name.strip() for name in value)


def _mcp(path: Path, tables: Any) -> tuple[str, ...]:
    """Return the `[[mcp]]` tables ({name, command}) as `--mcp NAME=COMMAND` values."""
    if tables is None:
        return ()
    if not isinstance(tables, list) or not all(isinstance(table, dict) for table in tables):
        raise UsageError(f'{path}: `[[mcp]]` tables take name = "NAME" and command = "COMMAND"')
    values = []
    for number, table in enumerate(tables, 1):
        name, command = table.get("name"), table.get("command")
        extra = sorted(set(table) - {"name", "command"})
        if not isinstance(name, str) or not isinstance(command, str) or extra:
            raise UsageError(f'{path}: [[mcp]] {number} takes name = "NAME" and command = "COMMAND" (nothing else)')
        values.append(f"{name}={command}")

    parse_specs(values)  # a bad name or command is refused before anything runs
    return tuple(values)


def _check_arms(path: Path, arms: list[str]) -> None:
    known = TOOLSETS.names()
    unknown = [arm for arm in arms if arm not in known]
    if unknown:
        raise UsageError(f"{path}: unknown arm(s) {', '.join(unknown)}; the toolsets are {', '.join(known)}")


def _models(path: Path, entries: Any, allowed: tuple[str, ...]) -> tuple[ModelEntry, ...]:
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{path}: a study needs at least one [[model]] with a `spec`")
    models: list[ModelEntry] = []
    for number, entry in enumerate(entries, 1):
        where = f"[[model]] {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str) or not entry["spec"].strip():
            raise UsageError(f'{path}: {where} needs `spec = "BACKEND:MODEL"`')
        settings = {key: value for key, value in entry.items() if key not in MODEL_KEYS}
        _refuse_unknown(path, where, settings, allowed, MODEL_KEYS)
        name = entry.get("name") or slug(entry["spec"])
        if not isinstance(name, str) or slug(name) != name:
            raise UsageError(f"{path}: {where}: `name` must be a folder name (letters, digits, . _ -), got {name!r}")
        key_env = entry.get("key_env")
        if key_env is not None and (
            not isinstance(key_env, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key_env)
        ):
            raise UsageError(f"{path}: {where}: `key_env` names an environment variable, got {key_env!r}")
        models.append(ModelEntry(entry["spec"].strip(), name, key_env, settings))
    names = [model.name for model in models]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"{path}: two models share the run folder {', '.join(twice)}: give each a `name`")
    return tuple(models)


def _refuse_unknown(
    path: Path, where: str, settings: dict[str, Any], allowed: tuple[str, ...], own: tuple[str, ...]
) -> None:
    unknown = sorted(key for key in settings if key not in allowed)
    if unknown:
        raise UsageError(
            f"{path}: {where} has unknown key(s) {', '.join(unknown)}; it takes {', '.join(own)} and the run "
            f"settings {', '.join(allowed)}"
        )


def _optional_str(path: Path, raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise UsageError(f"{path}: `{key}` must be a string")
    return value
