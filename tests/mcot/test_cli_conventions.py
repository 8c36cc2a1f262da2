"""CLI conventions across every command: -h/--help, --version, placeholders, described parameters, names."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import mcot
from mcot.cli import app

ROOT = Path(__file__).resolve().parents[2]
WIDE = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
TYPE_PLACEHOLDERS = re.compile(r"<(bool|str|int|float|path|file|dir)>|\b(BOOLEAN|INTEGER|FLOAT|TEXT)\b")
FORBIDDEN_SYNONYMS = {
    "--output": "--out",
    "--output-dir": "--out",
    "--out-dir": "--out",
    "--outdir": "--out",
    "--dataset": "--data",
    "--data-dir": "--data",
    "--input": "--data",
    "--model-spec": "--model",
    "--judge-model": "--judge",
    "--url": "--base-url",
    "--api-base": "--base-url",
    "--base_url": "--base-url",
    "--endpoint": "--base-url",
}


def _walk(command: typer.core.TyperCommand, path: tuple[str, ...] = ()):
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _walk(sub, (*path, name))


COMMANDS = list(_walk(typer.main.get_command(app)))
PATHS = [path for path, _ in COMMANDS]


def _invoke(args: list[str]):
    return CliRunner().invoke(app, args, env=WIDE, prog_name="mcot")


def test_the_tree_holds_every_command() -> None:
    names = {" ".join(p) for p in PATHS}
    expected = {"", "demo", "gen", "gen gepbench", "gen games", "gen report", "convert", "run", "score", "compare"}
    assert expected | {"export", "view", "imagine", "tools", "tools call"} <= names


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "mcot")
def test_every_command_answers_help_without_type_placeholders(path: tuple[str, ...], flag: str) -> None:
    result = _invoke([*path, flag])
    assert result.exit_code == 0, result.output
    assert "Usage: mcot" in result.output
    assert "<bool>" not in result.output
    found = TYPE_PLACEHOLDERS.search(result.output)
    assert found is None, f"`mcot {' '.join(path)} {flag}` shows the placeholder {found.group(0)!r}"
    usage = next(line for line in result.output.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage  # `mcot score [OPTIONS] RUN`, not `{RUN}`


def test_help_lists_both_help_spellings_and_flags_plainly() -> None:
    result = _invoke(["gen", "gepbench", "--help"])
    assert "-h" in result.output and "--help" in result.output
    assert re.search(r"--effects\s+hard figures", result.output), result.output
    assert "--no-effects" not in result.output  # an opt-in flag has no --no- form
    assert re.search(r"--n\s+FIGURES\s+number of figures, not questions", result.output), result.output


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_package_version(flag: str) -> None:
    result = _invoke([flag])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"mcot {mcot.__version__}"


def test_version_from_the_console_entry_point() -> None:
    out = subprocess.run([sys.executable, "-m", "mcot", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"mcot {mcot.__version__}"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "mcot")
def test_every_argument_and_option_is_described(path: tuple[str, ...]) -> None:
    command = dict(COMMANDS)[path]
    assert (command.help or "").strip(), f"`mcot {' '.join(path)}` has no description"
    for param in command.params:
        name = "/".join(param.opts) or param.name
        assert (getattr(param, "help", None) or "").strip(), f"`mcot {' '.join(path)}`: {name} has no help text"


def test_option_names_are_consistent_across_commands() -> None:
    for path, command in COMMANDS:
        for param in command.params:
            for opt in (*param.opts, *param.secondary_opts):
                assert opt not in FORBIDDEN_SYNONYMS, (
                    f"`mcot {' '.join(path)}` spells {opt}; the other commands say {FORBIDDEN_SYNONYMS[opt]}"
                )
    for path in [("run",), ("imagine",)]:
        opts = {o for p in dict(COMMANDS)[path].params for o in p.opts}
        assert {"--data", "--out", "--base-url"} <= opts, path
    assert {"--judge", "--base-url"} <= {o for p in dict(COMMANDS)[("score",)].params for o in p.opts}


def test_tools_json_is_documented_and_prints_json() -> None:
    helped = _invoke(["tools", "--help"])
    assert re.search(r"--json\s+print a JSON list", helped.output), helped.output
    listed = _invoke(["tools", "--json"])
    assert listed.exit_code == 0
    tools = json.loads(listed.output)
    assert {"name", "group", "description", "parameters", "example"} <= set(tools[0])


def test_score_judge_in_the_inspect_style_gets_a_did_you_mean(handmade_run: Path) -> None:
    before = sorted(p.name for p in handmade_run.iterdir())
    result = _invoke(["score", str(handmade_run), "--judge", "openai/gpt-4o"])
    assert result.exit_code == 2
    assert "did you mean 'openai:gpt-4o'?" in result.output
    assert sorted(p.name for p in handmade_run.iterdir()) == before


def test_run_model_in_the_inspect_style_gets_a_did_you_mean(tmp_path: Path) -> None:
    result = _invoke(
        ["run", "--data", str(tmp_path), "--model", "anthropic/claude-sonnet-4-5", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "did you mean 'anthropic:claude-sonnet-4-5'?" in result.output
    assert not (tmp_path / "r").exists()


def test_imagine_generator_in_the_inspect_style_gets_a_did_you_mean(tmp_path: Path) -> None:
    result = _invoke(
        ["imagine", "--data", str(tmp_path), "--generator", "openai-image/gpt-image-1", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "did you mean 'openai-image:gpt-image-1'?" in result.output
    assert not (tmp_path / "r").exists()


def test_gen_gepbench_format_native_is_the_old_native_flag(tmp_path: Path) -> None:
    old = _invoke(["gen", "gepbench", "--n", "2", "--seed", "3", "--native", "--out", str(tmp_path / "old")])
    new = _invoke(["gen", "gepbench", "--n", "2", "--seed", "3", "--format", "native", "--out", str(tmp_path / "new")])
    assert old.exit_code == 0 and new.exit_code == 0, old.output + new.output
    files = sorted(p.relative_to(tmp_path / "old") for p in (tmp_path / "old").rglob("*") if p.is_file())
    assert Path("rules-easy.json") in files and Path("vqa-hard/relation.jsonl") in files
    for rel in files:
        assert (tmp_path / "old" / rel).read_bytes() == (tmp_path / "new" / rel).read_bytes(), rel


def test_gen_gepbench_format_llava_writes_the_records_and_refuses_contradictions(tmp_path: Path) -> None:
    result = _invoke(["gen", "gepbench", "--n", "2", "--format", "llava", "--out", str(tmp_path / "l")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "l" / "llava-captions.json").is_file()
    assert (tmp_path / "l" / "llava-instructions.json").is_file()
    assert "LLaVA records: 2 captions" in result.output
    for args in (["--format", "llava", "--native"], ["--format", "coco"]):
        bad = _invoke(["gen", "gepbench", "--n", "2", *args, "--out", str(tmp_path / "bad")])
        assert bad.exit_code == 2, bad.output
        assert not (tmp_path / "bad").exists()


def _usage_lines(markdown: str, heading: str) -> list[str]:
    """Return the `mcot ...` lines of the first code block after `heading`, continuation lines joined."""
    block = markdown.split(heading, 1)[1].split("```", 2)[1]
    lines: list[str] = []
    for raw in block.splitlines():
        text = re.split(r"\s+#\s", raw, maxsplit=1)[0].rstrip()
        if text.startswith("mcot "):
            lines.append(text)
        elif text.strip().startswith("[") and lines:
            lines[-1] += " " + text.strip()
    return lines


def _resolve(words: list[str]) -> tuple[tuple[str, ...], typer.core.TyperCommand]:
    tree = dict(COMMANDS)
    path: tuple[str, ...] = ()
    for word in words:
        if (*path, word) in tree:
            path = (*path, word)
        else:
            break
    return path, tree[path]


@pytest.mark.parametrize(
    ("doc", "heading"), [("README.md", "## Usage"), ("docs/design.md", "## CLI")], ids=["readme", "design"]
)
def test_documented_command_lines_use_real_commands_and_options(doc: str, heading: str) -> None:
    lines = _usage_lines((ROOT / doc).read_text(encoding="utf-8"), heading)
    assert len(lines) >= 8
    for line in lines:
        for part in re.split(r"\s\|\s(?=mcot )", line):  # `mcot tools [--json] | mcot tools call NAME JSON`
            words = part.strip().split()
            path, command = _resolve(words[1:])
            known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
            for option in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", part):
                assert option in known, f"{doc}: `{part.strip()}` uses {option}, which `mcot {' '.join(path)}` lacks"
