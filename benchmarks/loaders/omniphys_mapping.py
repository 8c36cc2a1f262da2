"""The OmniPhys field mapping: which key of the release's JSONL holds each field mcot needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from mcot.benchmarks.loaders._types import LoaderError

from mcot.core.inputs import InputFileError, UnsafeYaml, excerpt, read_yaml_file

FIELDS = ("id", "question", "answer", "type", "choices", "images", "output_image", "solution", "stage", "domain")
TASK_TYPES = ("single_choice", "multi_select", "true_false", "fill_in", "open_ended", "diagram_editing")
TYPE_SYNONYMS = {
    "single_choice": ("single_choice", "single choice", "single-choice", "choice", "mcq", "单选", "单选题", "选择题"),
    "multi_select": (
        "multi_select",
        "multi-select",
        "multiple choice",
        "multiple_choice",
        "多选",
        "多选题",
        "不定项选择题",
    ),
    "true_false": ("true_false", "true/false", "true-false", "judge", "判断", "判断题"),
    "fill_in": ("fill_in", "fill-in", "fill in the blank", "blank", "填空", "填空题"),
    "open_ended": (
        "open_ended",
        "open-ended",
        "open",
        "calculation",
        "experiment",
        "解答题",
        "计算题",
        "实验题",
        "简答题",
        "问答题",
    ),
    "diagram_editing": ("diagram_editing", "diagram editing", "diagram-editing", "作图", "作图题", "图像编辑"),
}


@dataclass(frozen=True)
class FieldMapping:
    """mcot field → native key, and native task-type value → mcot task type (on top of the built-in synonyms)."""

    fields: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)

    def key(self, name: str) -> str:
        """Return the native key that holds the mcot field `name` (the name itself when not mapped)."""
        return self.fields.get(name, name)

    def task_type(self, value: str) -> str | None:
        """Return the mcot task type a native type value stands for, or None when unknown."""
        text = value.strip()
        if text in self.types:
            return self.types[text]
        lowered = text.lower()
        for task, names in TYPE_SYNONYMS.items():
            if lowered in names:
                return task
        return None


def parse_mapping(spec: str | Path | dict[str, Any] | FieldMapping | None) -> FieldMapping:
    """Return the mapping given as a `k=v,...` string, a JSON/YAML file path, a dict, or None (identity).

    Keys are mcot fields (`question=题目`); `type.<native value>=<task type>` maps a type value. A file holds
    either a flat {field: key} object or {"fields": {...}, "types": {...}}.
    """
    if spec is None:
        return FieldMapping()
    if isinstance(spec, FieldMapping):
        return spec
    if isinstance(spec, dict):
        return _from_dict(spec, "mapping")
    text = str(spec)
    path = Path(text)
    if "=" not in text or path.suffix.lower() in {".json", ".yaml", ".yml"}:
        if not path.exists():
            raise LoaderError(f"mapping file {excerpt(text)} not found (give a JSON/YAML file or k=v,... pairs)")
        try:
            raw = read_yaml_file(path, what="mapping file")
        except (InputFileError, UnsafeYaml) as exc:
            raise LoaderError(f"mapping file {excerpt(text)}: {excerpt(str(exc))}") from exc
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise LoaderError(f"mapping file {excerpt(text)} is not valid JSON/YAML ({_one_line(exc)})") from exc
        except OSError as exc:
            raise LoaderError(f"mapping file {excerpt(text)} cannot be read ({exc.strerror or exc})") from exc
        if not isinstance(raw, dict):
            raise LoaderError(f"mapping file {excerpt(text)} must hold an object of field: key pairs")
        return _from_dict(raw, excerpt(text))
    pairs: dict[str, Any] = {}
    types: dict[str, str] = {}
    for part in text.replace("，", ",").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise LoaderError(f"mapping entry {excerpt(part.strip())!r} is not k=v (e.g. question=题目,answer=答案)")
        name, key = (s.strip() for s in part.split("=", 1))
        if name.startswith("type."):
            types[name.removeprefix("type.")] = key
        else:
            pairs[name] = key
    return _from_dict({"fields": pairs, "types": types}, "mapping")


def _from_dict(raw: dict[str, Any], where: str) -> FieldMapping:
    if "fields" in raw or "types" in raw:
        fields, types = raw.get("fields") or {}, raw.get("types") or {}
    else:
        fields, types = raw, {}
    if not isinstance(fields, dict) or not isinstance(types, dict):
        raise LoaderError(f"{where}: fields and types must be objects")
    unknown = sorted(str(k) for k in set(fields) - set(FIELDS))
    if unknown:
        named = excerpt(", ".join(unknown))
        raise LoaderError(f"{where}: unknown field(s) {named}; mappable fields: {', '.join(FIELDS)}")
    bad = sorted(str(v) for v in types.values() if v not in TASK_TYPES)
    if bad:
        raise LoaderError(f"{where}: unknown task type(s) {excerpt(', '.join(bad))}; known: {', '.join(TASK_TYPES)}")
    if not all(isinstance(v, str) and v for v in fields.values()):
        raise LoaderError(f"{where}: every field must map to a non-empty key name")
    return FieldMapping({str(k): str(v) for k, v in fields.items()}, {str(k): str(v) for k, v in types.items()})


def _one_line(exc: Exception) -> str:
    return excerpt(" ".join(str(exc).split()))
