"""Task formats: a benchmark's task template and final-answer form, from its declaration."""

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
    load_template,
    prompt_hashes,
    render_task,
    task_format,
)

from mcot import declare_answer_form, declare_benchmark
from mcot.registry import ANSWER_FORMS, BENCHMARKS

TOY_TEXT = "Toy puzzle: $question$choices_block\n\nEnd with <<answer>> on the last line.\n"


@pytest.fixture
def toy() -> Iterator[PromptTemplate]:
    """Declare a toy benchmark with its own template and answer form for one test."""
    template = PromptTemplate.from_text("task.toy.txt", TOY_TEXT)
    declare_answer_form("angled", lambda v: f"<<{v}>>", description="<<answer>>")
    declare_benchmark("toy", description="a toy", prompt=template, answer="angled")
    yield template
    BENCHMARKS.unregister("toy")
    ANSWER_FORMS.unregister("angled")


def test_writers():
    assert (boxed("4"), bare("B"), answer_line("5 N")) == ("\\boxed{4}", "B", "Answer: 5 N")


def test_from_text_hashes_like_a_file():
    text = load_prompt("task.default.txt").text
    assert PromptTemplate.from_text("task.default.txt", text) == load_prompt("task.default.txt")


def test_an_undeclared_benchmark_gets_the_default():
    assert task_format("never-declared") == TaskFormat(load_prompt("task.default.txt"), boxed)
    assert format_final_answer("never-declared", "7") == "\\boxed{7}"
    assert render_task("never-declared", "x?", None, "number").endswith("alone in \\boxed{} on the last line.")


def test_a_declared_format_renders_and_answers(toy):
    assert task_format("toy").template is toy
    # the question is sent as the item holds it (the public evaluations do not trim it)
    assert render_task("toy", "  Which? ", ("red", "blue"), "choice") == (
        "Toy puzzle:   Which? \n\nA. red\nB. blue\n\nEnd with <<answer>> on the last line."
    )
    assert format_final_answer("toy", "B") == "<<B>>"
    BENCHMARKS.unregister("toy")
    assert format_final_answer("toy", "B") == "\\boxed{B}"


def test_prompt_hashes_cover_declared_templates_that_are_not_files(toy):
    hashes = prompt_hashes()
    assert hashes["task.toy.txt"] == toy.sha256
    assert hashes["system.canvas.txt"] == load_prompt("system.canvas.txt").sha256
    assert list(hashes) == sorted(hashes)
    assert "task.toy.txt" not in prompt_hashes(["gepbench"])  # a run records the templates of its benchmarks
    BENCHMARKS.unregister("toy")
    assert "task.toy.txt" not in prompt_hashes()


def test_a_template_name_names_one_text(toy):
    clash = PromptTemplate.from_text("task.default.txt", "not the file")
    declare_benchmark("toy2", description="a clash", prompt=clash)
    try:
        with pytest.raises(PromptError, match=r"task\.default\.txt"):
            prompt_hashes(["toy2"])
    finally:
        BENCHMARKS.unregister("toy2")


def test_a_template_of_another_package_is_read_from_it():
    template = load_template("mcot.eval:templates/generic_match.txt")
    assert template.name == "mcot.eval:templates/generic_match.txt" and "{{extracted}}" in template.text
    with pytest.raises(PromptError, match=r"no prompt template 'absent\.txt' in the package 'mcot\.eval'"):
        load_template("mcot.eval:absent.txt")


def test_builtin_declarations_reach_the_prompts():
    assert task_format("gepbench").template.name == "task.gepbench.txt"
    assert format_final_answer("gepbench", "C") == "C"
    assert format_final_answer("omniphys", "5 N") == "Answer: 5 N"
    # VLMEvalKit's GOBenchDataset.build_prompt: SYS + '\n' + question
    gobench = render_task("gobench", "Rate it.", None, "rating")
    assert gobench.startswith("Please analyze the image based on the provided prompt") and gobench.endswith(
        "\n\nRate it."
    )


def test_the_prompts_switch_on_no_benchmark_name():
    source = inspect.getsource(agents_prompts)
    for name in ("rbench-v", "gepbench", "gobench", "omniphys", '"games"'):
        assert name not in source.replace("task.gepbench.txt", ""), name
