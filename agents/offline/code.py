"""Offline strategies for the code arms: the policy solves game items by writing Python cells for `python`.

Each strategy sends one cell (a template of `cells/NAME.txt`, its constants filled from the question and the choices:
what a model reads), then answers from what the cell printed. The cells compute from the item's image alone,
with numpy, inside the sandboxed session: the maze by reading the grid and a breadth-first search, the dart by
finding the dot, the arrow and the balloons and flying the dart under gravity.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from importlib import resources

from mcot.agents.offline.games import PALETTE, GiveUp, answer, asks, choice_letter, guarded, latest
from mcot.agents.offline.strategies import Move, OfflineView, Strategy

PYTHON = "python"


@cache
def cell_template(name: str) -> string.Template:
    """Return the cell template `cells/NAME.txt` of this package (Python with `$name` placeholders)."""
    return string.Template(resources.files(__package__).joinpath("cells", f"{name}.txt").read_text(encoding="utf-8"))


def printed(view: OfflineView) -> dict[str, object] | None:
    """Return the JSON object the last `python` cell printed (its last line), None before any cell ran."""
    result = latest(view, PYTHON)
    if result is None:
        return None
    if result.is_error:
        raise GiveUp(result.text.splitlines()[0] if result.text else "the cell failed")
    stdout = str((result.data.get("cell") or {}).get("stdout") or "")
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise GiveUp("the cell printed no result")
    value = json.loads(lines[-1])
    if not isinstance(value, dict):
        raise GiveUp("the cell printed no result object")
    return value


def _play_maze(view: OfflineView) -> Move:
    """Return the next move on a block maze: a cell that reads the grid and finds every exit's distance, then
    the answer (the moves to the asked exit, or the one reachable exit)."""
    exits = {label: PALETTE[color] for label, color in re.findall(r"\b([A-Z]) \((\w+)\)", view.question.split("?")[0])}
    if not exits:
        raise GiveUp("the question names no exits")
    result = printed(view)
    if result is None:
        code = cell_template("maze").substitute(exits=repr({k: list(v) for k, v in exits.items()}))
        return Move(tool_calls=((PYTHON, {"code": code}),))
    moves = result.get("moves")
    if not isinstance(moves, dict):
        raise GiveUp("the cell did not measure the exits")
    target = re.search(r"to exit ([A-Z]) \(", view.question)
    if target is not None:
        steps = moves.get(target.group(1))
        if steps is None:
            raise GiveUp(f"exit {target.group(1)} cannot be reached")
        return answer(
            view, str(steps), f"Breadth-first search on the grid reaches exit {target.group(1)} in {steps} moves."
        )
    reachable = [label for label, steps in moves.items() if steps is not None]
    if len(reachable) != 1:
        raise GiveUp(f"{len(reachable)} exits are reachable")
    label = reachable[0]
    letter = choice_letter(view, lambda c: re.match(rf"exit {label}\b", c) is not None)
    return answer(view, letter, f"Breadth-first search on the grid reaches only exit {label}.")


def _play_dart(view: OfflineView) -> Move:
    """Return the next move on a dart item: a cell that finds the dart and the balloons and flies the dart, then
    the balloon it pops."""
    colors = [m.group(1) for c in view.choices or () if (m := re.match(r"the (\w+) balloon", c))]
    if not colors or len(colors) != len(view.choices or ()) or any(c not in PALETTE for c in colors):
        raise GiveUp("the choices do not name coloured balloons")
    result = printed(view)
    if result is None:
        per_px = re.search(r"each pixel of arrow length stands for ([\d.]+) px/s", view.question)
        gravity = re.search(r"g = ([\d.]+) px/s", view.question)
        if per_px is None or gravity is None:
            raise GiveUp("the question does not give the arrow's scale and gravity")
        balloons = repr({color: list(PALETTE[color]) for color in colors})
        code = cell_template("dart").substitute(per_px=per_px.group(1), gravity=gravity.group(1), balloons=balloons)
        return Move(tool_calls=((PYTHON, {"code": code}),))
    hit = result.get("hit")
    if not isinstance(hit, str):
        raise GiveUp("the flown dart pops no balloon")
    letter = choice_letter(view, lambda c: c == f"the {hit} balloon")
    return answer(
        view, letter, f"Flying the dart in Python, it first touches the {hit} balloon at t = {result.get('t')} s."
    )


STRATEGIES: dict[str, Strategy] = {
    "code-maze": Strategy(
        kind="a block maze, solved in Python",
        recognises=asks("maze seen from above"),
        play=guarded(_play_maze),
        needs=(PYTHON,),
    ),
    "code-dart": Strategy(
        kind="a dart thrown under gravity at balloons, flown in Python",
        recognises=asks("A dart, the black dot"),
        play=guarded(_play_dart),
        needs=(PYTHON,),
    ),
}
"""The code arms' strategies by name; each needs only the `python` tool."""
