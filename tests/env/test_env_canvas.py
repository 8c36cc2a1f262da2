"""`mcot.env.CanvasEnv` driven exactly as TRL's GRPOTrainer drives an environment_factory class (TRL 1.16): tools
found with `inspect.getmembers(type(env), inspect.isfunction)`, schemas from `transformers.utils.get_json_schema`,
`reset(**row)` with a `trl` row as `datasets` loads it, calls as `method(**arguments)`, `get_reward()`; and the
episode replayed from its op log, byte for byte, and written as a run that mcot opens."""

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from mcot.canvas import Canvas
from mcot.eval.verify import verify_trace
from PIL import Image
from trainer_runs import shared_runs

from mcot import tools
from mcot.env import CanvasEnv, write_episodes
from mcot.env.trl import environment_class
from mcot.export import export_run
from mcot.rundir import open_run


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """The `trl` rows of the GePBench and maze items directories, as `datasets` loads an hf export of them."""
    datasets = pytest.importorskip("datasets")
    runs = shared_runs(tmp_path_factory)
    out = tmp_path_factory.mktemp("trl-rows")
    loaded = {}
    for name in ("gep", "maze"):
        export_run(runs[name], "hf", out / name, view="trl", toolset="canvas")
        loaded[name] = list(datasets.load_from_disk(str(out / name))["train"])
    return loaded


def trl_tools(env: Any) -> dict[str, Any]:
    """Return the environment's tools as TRL collects them (grpo_trainer.py: public functions of the class)."""
    return {
        name: getattr(env, name)
        for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def call(env: Any, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Call a tool as TRL's tool loop does: `tool(**function["arguments"])`."""
    result: list[dict[str, Any]] = trl_tools(env)[name](**arguments)
    return result


def maze_route(row: dict[str, Any]) -> list[list[float]]:
    """Return the maze's shortest route in canvas pixels (solve_maze on the item's own grid)."""
    item = json.loads(row["item"])
    meta = item["meta"]
    arguments = {"grid": meta["grid"], "cell": meta["cell"], "origin": meta["origin"], "targets": [meta["target"]]}
    route = tools.call("solve_maze", arguments, Canvas(size=(635, 495)))
    return [list(map(float, point)) for point in route.data["pixels"]]


def test_the_tools_are_the_toolsets_with_schemas_get_json_schema_reads() -> None:
    transformers_utils = pytest.importorskip("transformers.utils")
    env = CanvasEnv()
    methods = trl_tools(env)
    assert sorted(methods) == sorted(tools.canvas_tools())
    schemas = {name: transformers_utils.get_json_schema(method)["function"] for name, method in methods.items()}
    line = schemas["draw_line"]["parameters"]
    assert line["required"] == ["start", "end"]
    assert line["properties"]["start"] == {
        "type": "array",
        "items": {"type": "number"},
        "description": "[x, y] where the segment starts",
    }
    assert schemas["show_grid"]["parameters"]["properties"]["on"]["type"] == "boolean"
    assert schemas["draw_line"]["description"].startswith("Draw a segment from start to end")
    domain = environment_class("tools")
    assert {"solve_maze", "cast_ray", "draw_line"} <= set(trl_tools(domain()))
    for method in trl_tools(domain()).values():
        transformers_utils.get_json_schema(method)


def test_a_maze_episode_as_trl_drives_it(rows: dict[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    row = rows["maze"][0]
    env = CanvasEnv()  # TRL: a no-argument factory, one instance per rollout
    assert env.reset(**row) is None  # the row's prompt already opens the episode
    assert env.get_reward() == 0.0  # nothing drawn yet
    route = maze_route(row)
    observed = call(env, "trace_path", {"points": route, "color": "blue"})
    assert [block["type"] for block in observed] == ["image", "text"]
    image = observed[0]["image"]
    assert isinstance(image, Image.Image) and image.size == (635, 495)
    assert "trace_path: created e1" in observed[1]["text"] and "Changed elements: e1" in observed[1]["text"]
    assert env.get_reward() == 1.0  # the trace verifier finds the drawn route valid
    assert call(env, "undo", {})[0]["type"] == "image"
    assert env.get_reward() == 0.0
    call(env, "draw_line", {"start": route[0], "end": route[-1]})  # a shortcut through the walls
    assert env.get_reward() == 0.0 and env.episode.verdict().verdict == "invalid"

    replayed = Canvas.replay(Image.open(io_bytes(row["images"][0])).convert("RGB"), env.episode.ops())
    last = env.episode.view()
    assert replayed.rendering().tobytes() == last.tobytes()

    run = write_episodes([env.episode], tmp_path / "episode", completions=["\\boxed{11}"])
    opened = open_run(run)
    steps = opened.trace(row["id"], "canvas")
    observations = [s for s in steps if s["kind"] == "observation"]
    assert Image.open(run / observations[1]["image"]).convert("RGB").tobytes() == image.tobytes()
    assert verify_trace(opened.items[row["id"]], steps).verdict == "invalid"
    from mcot.viewer import write_viewer

    write_viewer(run, run / "index.html")
    assert (run / "index.html").is_file()


def io_bytes(image: Any) -> Any:
    """Return an image of a datasets row (decoded PIL image) as a file object holding its encoded bytes."""
    import io

    buffer = io.BytesIO()
    image.save(buffer, format=image.format or "PNG")
    buffer.seek(0)
    return buffer


def test_a_gepbench_episode_answers_malformed_calls_with_text_and_keeps_the_canvas(
    rows: dict[str, list[dict[str, Any]]],
) -> None:
    row = rows["gep"][0]
    env = CanvasEnv()
    env.reset(**row)
    first = call(env, "mark_point", {"at": [320, 320], "label": "centre"})
    before = (len(env.episode.ops()), env.episode.view().tobytes())
    for name, arguments in (
        ("draw_line", {"start": [10], "end": "x"}),
        ("draw_line", {"start": [1, 2], "end": [3, 4], "colour": "red"}),
        ("remove_element", {"id": "e9"}),
        ("zoom", {"region": [0, 0, 10, 10], "factor": -1}),
    ):
        answer = call(env, name, arguments)
        assert [block["type"] for block in answer] == ["text"] and answer[0]["text"].startswith("Error: ")
        assert (len(env.episode.ops()), env.episode.view().tobytes()) == before
    assert (
        "`colour` is not an argument"
        in call(env, "draw_line", {"start": [1, 2], "end": [3, 4], "colour": "r"})[0]["text"]
    )
    assert first[0]["image"].size == (640, 640)
    zoomed = call(env, "zoom", {"region": [0, 0, 320, 320]})
    assert [block["type"] for block in zoomed] == ["image", "text"] and zoomed[0]["image"].size == (640, 640)
    assert env.get_reward() == 0.0  # GePBench has no trace verifier


def test_reset_without_a_prompt_returns_the_opening_as_content_blocks(rows: dict[str, list[dict[str, Any]]]) -> None:
    row = {key: value for key, value in rows["maze"][1].items() if key != "prompt"}
    opening = CanvasEnv().reset(**row)
    assert [block["type"] for block in opening] == ["text", "image", "text"]
    width, height = json.loads(row["item"])["canvas"]
    assert opening[0]["text"] == f"The canvas ({width} × {height} canvas pixels)." and "maze" in opening[2]["text"]
    assert opening[1]["image"].size == (width, height)


def test_reset_needs_the_item_column() -> None:
    from mcot.env import EpisodeError

    with pytest.raises(EpisodeError, match="needs the row's `item` column"):
        CanvasEnv().reset(prompt=[{"role": "user", "content": "hi"}])
