"""The task-format registry: a benchmark's task template and final-answer form, declared by name."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from mcot.agents import prompts as agents_prompts
from mcot.agents.errors import PromptError
from mcot.agents.prompts import (
    PromptTemplate,
    TaskFormat,
    answer_line,
    bare,
    boxed,
    format_final_answer,
    load_prompt,
    prompt_hashes,
    register_task_format,
    render_task,
    task_format,
    unregister_task_format,
)

TOY_TEXT = "Toy puzzle: $question$choices_block\n\nEnd with <<answer>> on the last line.\n"


@pytest.fixture
def toy() -> Iterator[TaskFormat]:
    """Declare a toy benchmark's task format for one test."""
    fmt = TaskFormat(PromptTemplate.from_text("task.toy.txt", TOY_TEXT), lambda v: f"<<{v}>>")
    register_task_format("toy", fmt)
    yield fmt
    unregister_task_format("toy")


def test_writers():
    assert (boxed("4"), bare("B"), answer_line("5 N")) == ("\\boxed{4}", "B", "Answer: 5 N")


def test_from_text_hashes_like_a_file():
    text = load_prompt("task.default.txt").text
    assert PromptTemplate.from_text("task.default.txt", text) == load_prompt("task.default.txt")


def test_an_undeclared_benchmark_gets_the_default():
    assert task_format("never-declared") == TaskFormat(load_prompt("task.default.txt"), boxed)
    assert format_final_answer("never-declared", "7") == "\\boxed{7}"
    assert render_task("never-declared", "x?", None, "number").endswith("alone in \\boxed{} on the last line.")


def test_a_registered_format_renders_and_answers(toy):
    assert task_format("toy") is toy
    assert render_task("toy", "  Which? ", ("red", "blue"), "choice") == (
        "Toy puzzle: Which?\n\nA. red\nB. blue\n\nEnd with <<answer>> on the last line."
    )
    assert format_final_answer("toy", "B") == "<<B>>"
    unregister_task_format("toy")
    assert format_final_answer("toy", "B") == "\\boxed{B}"
    unregister_task_format("toy")  # absent: no error


def test_prompt_hashes_cover_registered_templates_that_are_not_files(toy):
    hashes = prompt_hashes()
    assert hashes["task.toy.txt"] == toy.template.sha256
    assert hashes["system.canvas.txt"] == load_prompt("system.canvas.txt").sha256
    assert list(hashes) == sorted(hashes)
    unregister_task_format("toy")
    assert "task.toy.txt" not in prompt_hashes()


def test_a_template_name_names_one_text(toy):
    other = TaskFormat(PromptTemplate.from_text("task.toy.txt", "other $question"), bare)
    with pytest.raises(PromptError, match=r"task\.toy\.txt"):
        register_task_format("toy2", other)
    clash = TaskFormat(PromptTemplate.from_text("task.default.txt", "not the file"), bare)
    with pytest.raises(PromptError, match=r"task\.default\.txt"):
        register_task_format("toy2", clash)
    register_task_format("toy", other)  # a benchmark may replace its own format
    assert prompt_hashes()["task.toy.txt"] == other.template.sha256


def test_builtin_declarations_reach_the_registry():
    # tests/conftest.py declares the built-in benchmarks (mcot.declarations.declare_builtin), as every command does
    assert task_format("gepbench").template.name == "task.gepbench.txt"
    assert format_final_answer("gepbench", "C") == "C"
    assert format_final_answer("omniphys", "5 N") == "Answer: 5 N"
    assert "rating from 1 to 5" in render_task("gobench", "Rate it.", None, "rating")


def test_the_registry_switches_on_no_benchmark_name():
    source = inspect.getsource(agents_prompts)
    for name in ("rbench-v", "gepbench", "gobench", "omniphys", '"games"'):
        assert name not in source.replace("task.gepbench.txt", ""), name
