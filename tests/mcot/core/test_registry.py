"""The one registry mechanism: register by name, did-you-mean, list with descriptions, lazy values and sources."""

from __future__ import annotations

import sys
import types

import pytest

from mcot.core.registry import ALL, BACKENDS, LOADERS, TOOLS, Ref, Registry, RegistryError


def test_a_registry_registers_looks_up_and_lists_with_descriptions():
    shapes: Registry[int] = Registry("shape")
    shapes.register("square", 4, description="four equal sides")
    shapes.register("Triangle", 3, description="three   sides")  # names are case-folded, descriptions one line
    assert shapes.get("SQUARE") == 4 and shapes.find("triangle") == 3 and shapes.find("circle") is None
    assert shapes.names() == ("square", "triangle")
    assert shapes.describe() == [("square", "four equal sides"), ("triangle", "three sides")]
    assert shapes.choices() == "square or triangle"
    assert "square" in shapes and "circle" not in shapes
    with pytest.raises(RegistryError, match=r"no shape named 'sqare'; did you mean 'square'\? Known: square or "):
        shapes.get("sqare")
    with pytest.raises(RegistryError, match="already registered"):
        shapes.register("square", 5)
    shapes.register("square", 5, replace=True)
    assert shapes.get("square") == 5
    shapes.unregister("square")
    shapes.unregister("square")  # absent: no error
    assert shapes.names() == ("triangle",)


def test_a_spec_registry_parses_provider_and_argument_and_suggests_the_form():
    generators: Registry[str] = Registry("image generator", specs=True)
    generators.register("dalle", "factory", usage="dalle:MODEL")
    entry, argument = generators.parse("dalle:3")
    assert (entry.name, generators.resolve(entry), argument) == ("dalle", "factory", "3")
    with pytest.raises(RegistryError, match=r"unknown image generator 'openai'.*dalle:MODEL"):
        generators.parse("openai:gpt-image-1")
    with pytest.raises(RegistryError, match="did you mean 'dalle:3'"):
        generators.parse("dalle/3")
    with pytest.raises(RegistryError, match="without a colon"):
        generators.register("a:b", "x")


def test_a_room_error_type_is_raised_by_name(monkeypatch: pytest.MonkeyPatch):
    module = types.ModuleType("toy_errors")

    class ToyError(ValueError):
        pass

    module.ToyError = ToyError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_errors", module)
    toys: Registry[int] = Registry("toy", error="toy_errors:ToyError")
    with pytest.raises(ToyError, match="no toy named 'x'"):
        toys.get("x")


def test_a_ref_is_imported_on_first_lookup_and_a_source_on_a_miss(monkeypatch: pytest.MonkeyPatch):
    module = types.ModuleType("toy_values")
    module.answer = 42  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_values", module)
    values: Registry[int] = Registry("value")
    values.register("answer", Ref("toy_values:answer"))
    assert values.entry("answer").value == Ref("toy_values:answer")
    assert values.get("answer") == 42

    source = types.ModuleType("toy_source")
    monkeypatch.setitem(sys.modules, "toy_source", source)
    values.add_source("toy_source")  # already imported: registers nothing more
    assert values.find("late") is None


def test_every_registry_is_listed_and_the_builtins_are_declared():
    assert {"model provider", "image generator", "tool", "toolset", "benchmark", "data format", "export format",
            "export view", "offline strategy", "answer form", "scoring protocol", "item generator"} <= set(ALL)  # fmt: skip
    assert BACKENDS.names()[:2] == ("offline", "scripted")
    assert LOADERS.names()[:5] == ("items", "gepbench", "gobench", "rbench-v", "omniphys")
    assert "draw_line" in TOOLS.names() and "solve_maze" in TOOLS.names()
    assert all(entry.origin == "mcot" for entry in BACKENDS.entries()[:6])


def test_nothing_outside_a_declaration_switches_on_a_provider_or_benchmark_name():
    from pathlib import Path

    import mcot

    root = Path(mcot.__file__).resolve().parents[1]
    checked = [root / "agents" / "limits.py", root / "agents" / "toolbox.py", root / "mcot" / "cli.py",
               root / "mcot" / "runner.py", root / "mcot" / "export" / "pipeline.py"]  # fmt: skip
    names = ("anthropic", "openai", "openai-compatible", "offline", "rbench-v", "gepbench", "gobench", "omniphys")
    for path in checked:
        source = path.read_text(encoding="utf-8")
        for name in names:
            for switch in (f'== "{name}"', f'!= "{name}"', f'in ("{name}"', f'{{"{name}":'):
                assert switch not in source, f"{path.name} switches on {name}: {switch}"
