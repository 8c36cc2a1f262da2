"""mcot as an inspect_ai extension (the `inspect` extra): one task per benchmark, mcot's tools, its official scorers.

inspect_ai finds the extension through the entry point group `inspect_ai` (`mcot = "mcot.inspect_tasks._registry"`),
so `inspect eval mcot/games -T data=ITEMS -T arm=canvas --model ...` runs without an import of ours:

- `mcot.inspect_tasks.tasks`: `rbench_v`, `gepbench`, `gobench`, `omniphys`, `games` (`-T data=PATH` an items folder
  or a benchmark's native files, `-T arm=text|canvas|tools|…`, `-T limit=N`, `-T max_steps=N`);
- `mcot.inspect_tasks.tools`: a toolset's tools as inspect tools on one canvas per sample (images come back as
  image content);
- `mcot.inspect_tasks.scorers`: `official`, each benchmark's official protocol as `mcot score` applies it.

Nothing here is imported by mcot itself; inspect_ai loads only in these modules.
"""
