"""Graph tools: shortest routes through text-grid mazes, queries on edge lists, triangles formed by segments."""

from __future__ import annotations

import itertools
import math
from collections import deque
from typing import Annotated, Literal

from mcot.tools import vec
from mcot.tools.args import MAX_ITEMS, Args, DrawArgs, Number, Point, Segment
from mcot.tools.budget import check_time
from mcot.tools.errors import ToolError
from mcot.tools.registry import Context, Output, tool
from pydantic import BeforeValidator, Field, field_validator, model_validator

MAX_GRID = 300
"""Most rows or columns of a maze grid."""


# ---------------------------------------------------------------- solve_maze


class MazeArgs(DrawArgs):
    grid: list[Annotated[str, Field(max_length=MAX_GRID)]] = Field(
        min_length=1,
        max_length=MAX_GRID,
        description="rows of the maze: '#' wall, '.' free, 'S' start, 'E' goal; other letters or digits are "
        "labelled exits",
    )
    targets: list[Annotated[str, Field(min_length=1, max_length=1)]] | None = Field(
        None, max_length=40, description="labels of the goal cells (default: 'E', else every labelled exit)"
    )
    cell: Number | None = Field(None, gt=0, description="cell size in pixels, to report and draw the path in pixels")
    origin: Point | None = Field(None, description="pixel position of the grid's top-left corner (with cell)")
    draw: bool = Field(False, description="draw the route on the canvas (needs cell and origin)")

    @model_validator(mode="after")
    def _check(self) -> MazeArgs:
        widths = {len(r) for r in self.grid}
        if len(widths) != 1 or 0 in widths:
            raise ValueError("every row of the grid must be a non-empty string of the same length")
        return self


def grid_graph(grid: list[str]) -> tuple[dict[tuple[int, int], list[tuple[int, int]]], tuple[int, int]]:
    """Return the 4-neighbour adjacency of the grid's free cells and the start cell (ToolError without one S)."""
    starts = [(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "S"]
    if len(starts) != 1:
        raise ToolError(
            "the grid has no start cell 'S'; mark the start with S"
            if not starts
            else f"the grid has {len(starts)} start cells 'S'; mark exactly one"
        )
    rows, cols = len(grid), len(grid[0])
    adj: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "#":
                continue
            adj[(r, c)] = [
                (r + dr, c + dc)
                for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))
                if 0 <= r + dr < rows and 0 <= c + dc < cols and grid[r + dr][c + dc] != "#"
            ]
    return adj, starts[0]


def shortest_route(grid: list[str], targets: list[str] | None = None) -> dict[str, object]:
    """Return the shortest 4-neighbour route from S to the nearest target cell and the distance to every label.

    Result: {"path": [[row, col], ...], "length": steps, "goal": label, "distances": {label: steps | None}}.
    """
    adj, start = grid_graph(grid)
    labels = {(r, c): ch for r, row in enumerate(grid) for c, ch in enumerate(row) if ch.isalnum() and ch != "S"}
    if targets is None:
        targets = ["E"] if "E" in labels.values() else sorted(set(labels.values()))
    goals = {cell for cell, ch in labels.items() if ch in targets}
    if not goals:
        raise ToolError(
            f"the grid has no goal cell labelled {', '.join(targets) or 'E'}; mark the goal with 'E' (or exits "
            "with letters) or pass targets that occur in the grid"
        )
    dist = {start: 0}
    prev: dict[tuple[int, int], tuple[int, int]] = {}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for nxt in adj[cur]:
            if nxt not in dist:
                dist[nxt] = dist[cur] + 1
                prev[nxt] = cur
                queue.append(nxt)
    distances: dict[str, int | None] = {}
    for cell, ch in sorted(labels.items()):
        d = dist.get(cell)
        if d is not None and (distances.get(ch) is None or d < distances[ch]):  # type: ignore[operator]
            distances[ch] = d
        else:
            distances.setdefault(ch, None)
    reachable = [g for g in goals if g in dist]
    if not reachable:
        raise ToolError(
            f"no path: the start S cannot reach any goal ({', '.join(targets)}); check the walls in the grid"
        )
    goal = min(reachable, key=lambda g: (dist[g], g))
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])
    path.reverse()
    return {"path": [list(p) for p in path], "length": len(path) - 1, "goal": labels[goal], "distances": distances}


@tool("graphs", example={"grid": ["S.#", ".#E", "..."]})
def solve_maze(args: MazeArgs, ctx: Context) -> Output:
    """Find the shortest route through a text-grid maze from 'S' to the nearest goal ('E', or the labels in
    targets), moving up/down/left/right between non-'#' cells.

    Returns data.path ([[row, col], ...]), data.length (steps), data.goal, data.distances (steps to every
    label, null when unreachable) and, given cell and origin, data.pixels (cell centres); draws the route when
    draw. No path is an error.
    """
    res = shortest_route(args.grid, args.targets)
    path = res["path"]
    assert isinstance(path, list)
    if args.cell is not None or args.origin is not None:
        if args.cell is None or args.origin is None:
            raise ToolError("give both cell (pixels) and origin ([x, y] of the grid's top-left corner), or neither")
        x0, y0 = args.origin
        res["pixels"] = [[x0 + (c + 0.5) * args.cell, y0 + (r + 0.5) * args.cell] for r, c in path]
    if args.draw:
        if "pixels" not in res:
            raise ToolError("drawing the route needs cell and origin (the grid's pixel geometry); or set draw=false")
        ctx.sketch.path(res["pixels"], arrow=True, color=args.color)  # type: ignore[arg-type]
    moves = _moves(path)
    return Output(f"path of {res['length']} steps to {res['goal']}: {moves}; distances {res['distances']}", res)


def _moves(path: list[list[int]]) -> str:
    names = {(-1, 0): "U", (1, 0): "D", (0, -1): "L", (0, 1): "R"}
    return "".join(names[(b[0] - a[0], b[1] - a[1])] for a, b in itertools.pairwise(path)) or "(already there)"


# ---------------------------------------------------------------- query_graph


def _name(value: object) -> object:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(int(value)) if float(value).is_integer() else str(value)
    return value


Node = Annotated[str, BeforeValidator(_name), Field(min_length=1, max_length=40, description="node name")]


class GraphArgs(Args):
    edges: list[Annotated[list[Node], Field(min_length=2, max_length=2)]] = Field(
        max_length=5000, description="edges as pairs of node names [[u, v], ...]"
    )
    query: Literal["connected", "components", "leaves", "cycles", "shortest_path", "degrees"] = Field(
        description="what to compute"
    )
    directed: bool = Field(False, description="treat edges as directed u→v")
    source: Node | None = Field(None, description="shortest_path: start node")
    target: Node | None = Field(None, description="shortest_path: end node")

    @model_validator(mode="after")
    def _check(self) -> GraphArgs:
        if self.query == "shortest_path" and (self.source is None or self.target is None):
            raise ValueError("shortest_path needs 'source' and 'target' node names")
        return self


def graph_answer(args: GraphArgs) -> dict[str, object]:
    """Return the answer to a graph query on an edge list (see GraphArgs for the queries)."""
    import networkx as nx  # slow to import: only when a graph query runs

    g = nx.DiGraph() if args.directed else nx.Graph()
    g.add_edges_from((u, v) for u, v in args.edges)
    if args.query == "connected":
        ok = g.number_of_nodes() > 0 and (nx.is_weakly_connected(g) if args.directed else nx.is_connected(g))
        return {"connected": ok, "nodes": g.number_of_nodes(), "edges": g.number_of_edges()}
    if args.query == "components":
        comps = nx.weakly_connected_components(g) if args.directed else nx.connected_components(g)
        listed = sorted((sorted(c) for c in comps), key=lambda c: (-len(c), c))
        return {"count": len(listed), "components": listed}
    if args.query == "leaves":
        leaves = sorted(n for n in g.nodes if g.degree(n) == 1)
        return {"count": len(leaves), "leaves": leaves}
    if args.query == "degrees":
        return {"degrees": {str(n): int(d) for n, d in sorted(g.degree())}}
    if args.query == "cycles":
        cycles = []
        for cyc in nx.simple_cycles(g):
            check_time("listing cycles")
            if args.directed or len(cyc) >= 3:
                cycles.append(cyc)
            if len(cycles) >= 100:
                break
        independent = (
            g.number_of_edges() - g.number_of_nodes() + nx.number_connected_components(g) if not args.directed else None
        )
        return {"has_cycle": bool(cycles), "cycles": cycles, "listed": len(cycles), "independent_cycles": independent}
    assert args.source is not None and args.target is not None
    for node in (args.source, args.target):
        if node not in g:
            raise ToolError(f"node {node!r} is not in the graph; nodes are {sorted(g.nodes)[:30]}")
    try:
        path = nx.shortest_path(g, args.source, args.target)
    except nx.NetworkXNoPath:
        raise ToolError(f"there is no path from {args.source!r} to {args.target!r} in this graph") from None
    return {"path": path, "length": len(path) - 1}


@tool(
    "graphs",
    example={
        "edges": [["A", "B"], ["B", "C"], ["C", "A"], ["C", "D"]],
        "query": "shortest_path",
        "source": "A",
        "target": "D",
    },
)
def query_graph(args: GraphArgs, ctx: Context) -> Output:
    """Answer a question about a graph given as an edge list: connected, components, leaves (degree 1), cycles,
    shortest_path (source to target, fewest edges) or degrees.

    Returns the answer in data (e.g. data.path and data.length for shortest_path).
    """
    res = graph_answer(args)
    return Output(f"{args.query}: {res}", res)


# ---------------------------------------------------------------- count_triangles


class TrianglesArgs(DrawArgs):
    segments: list[Segment] = Field(min_length=1, max_length=MAX_ITEMS, description="[[[x1, y1], [x2, y2]], ...]")
    tolerance: Number = Field(1.0, gt=0, le=20, description="pixels by which ends may miss and still meet")
    draw: bool = Field(False, description="outline the triangles found on the canvas (at most 50)")

    @field_validator("segments")
    @classmethod
    def _no_points(cls, segs: list[list[list[float]]]) -> list[list[list[float]]]:
        for i, (a, b) in enumerate(segs):
            if math.dist(a, b) < 1e-9:
                raise ValueError(f"segment {i} has two equal end points; give two different points")
        return segs


def _merge_collinear(segments: list[tuple[vec.Vec, vec.Vec]], tol: float) -> list[tuple[vec.Vec, vec.Vec]]:
    """Return the segments with collinear overlapping (or touching) pieces merged into one."""
    merged: list[tuple[vec.Vec, vec.Vec]] = []
    used = [False] * len(segments)
    for i, (a, b) in enumerate(segments):
        if used[i]:
            continue
        d = vec.unit(vec.sub(b, a))
        group = [(0.0, vec.dot(vec.sub(b, a), d))]
        used[i] = True
        changed = True
        while changed:
            changed = False
            for j, (c, e) in enumerate(segments):
                if used[j]:
                    continue
                if abs(vec.cross(d, vec.sub(c, a))) > tol or abs(vec.cross(d, vec.sub(e, a))) > tol:
                    continue
                tc, te = sorted((vec.dot(vec.sub(c, a), d), vec.dot(vec.sub(e, a), d)))
                if any(tc <= hi + tol and te >= lo - tol for lo, hi in group):
                    group.append((tc, te))
                    used[j] = True
                    changed = True
        lo = min(g[0] for g in group)
        hi = max(g[1] for g in group)
        merged.append((vec.add(a, vec.mul(d, lo)), vec.add(a, vec.mul(d, hi))))
    return merged


def find_triangles(segments: list[list[list[float]]], tol: float = 1.0) -> list[list[vec.Vec]]:
    """Return every triangle whose three sides lie on the given segments (vertices at their crossings)."""
    segs = _merge_collinear([(vec.v(a), vec.v(b)) for a, b in segments], tol)
    n = len(segs)
    meet: dict[tuple[int, int], vec.Vec] = {}
    for i in range(n):
        a, b = segs[i]
        for j in range(i + 1, n):
            c, e = segs[j]
            hit = vec.ray_segment(a, vec.sub(b, a), c, e)
            if hit is None:
                continue
            t, u = hit
            li, lj = math.dist(a, b), math.dist(c, e)
            if -tol / li <= t <= 1 + tol / li and -tol / lj <= u <= 1 + tol / lj:
                meet[(i, j)] = vec.add(a, vec.mul(vec.sub(b, a), t))
    nbrs: dict[int, set[int]] = {i: set() for i in range(n)}
    for i, j in meet:
        nbrs[i].add(j)
        nbrs[j].add(i)
    found = []
    for i in range(n):
        check_time("counting triangles")
        for j in sorted(x for x in nbrs[i] if x > i):
            for k in sorted(x for x in nbrs[i] & nbrs[j] if x > j):
                p, q, r = meet[(i, j)], meet[(i, k)], meet[(j, k)]
                if min(math.dist(p, q), math.dist(p, r), math.dist(q, r)) <= tol:
                    continue  # concurrent lines: no triangle
                if abs(vec.cross(vec.sub(q, p), vec.sub(r, p))) < 1e-9:
                    continue
                found.append([p, q, r])
    return found


@tool(
    "graphs",
    example={"segments": [[[0, 100], [100, 100]], [[100, 100], [50, 0]], [[50, 0], [0, 100]], [[50, 0], [50, 100]]]},
)
def count_triangles(args: TrianglesArgs, ctx: Context) -> Output:
    """Count the triangles formed by a set of drawn segments (every triangle whose three sides lie along the
    segments, vertices where they cross or meet). Collinear touching segments count as one side.

    Returns data.count and data.triangles (vertex triples, at most 500); outlines them when draw.
    """
    tris = find_triangles(args.segments, args.tolerance)
    data = {"count": len(tris), "triangles": [[[round(x, 3), round(y, 3)] for x, y in t] for t in tris[:500]]}
    if args.draw:
        for t in tris[:50]:
            ctx.sketch.polygon([list(p) for p in t], color=args.color, opacity=0.1)
    return Output(f"{len(tris)} triangle(s)", data)
