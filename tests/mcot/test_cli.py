import subprocess
import sys

DESIGN_COMMANDS = ["demo", "gen", "convert", "run", "score", "compare", "export", "view", "imagine", "tools"]


def test_help_lists_every_design_command() -> None:
    out = subprocess.run([sys.executable, "-m", "mcot", "--help"], capture_output=True, text=True, check=True)
    for command in DESIGN_COMMANDS:
        assert f" {command} " in out.stdout, command


def test_imagine_with_an_unknown_generator_names_the_right_spec_and_writes_nothing(tmp_path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcot",
            "imagine",
            "--data",
            str(tmp_path),
            "--generator",
            "openai_image:gpt-image-1",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "openai-image:gpt-image-1" in out.stderr
    assert not (tmp_path / "run").exists()
