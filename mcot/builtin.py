"""mcot's own declarations, made through the same public API a plugin uses (`mcot.core.declare`).

`mcot.core.plugins.load_plugins` imports this module before any plugin, the first time a registry is listed or
misses a name. Everything is named by module or "module:function", so declaring imports nothing heavy: a
backend's SDK, a benchmark's protocol, a loader's pyarrow are imported when first used.
"""

from __future__ import annotations

from mcot.core.declare import (
    DEFAULT_SYSTEM_PROMPT,
    declare_answer_form,
    declare_backend,
    declare_benchmark,
    declare_export_format,
    declare_export_view,
    declare_generator,
    declare_loader,
    declare_protocol,
    declare_tools,
    declare_toolset,
)
from mcot.core.registry import STRATEGIES

# --- model backends (specs of `--model` and `--judge`) ---------------------------------------------------

_BACKENDS = "mcot.agents.backends.factories"
declare_backend(
    "offline", f"{_BACKENDS}:offline", usage="offline", description="the deterministic offline policy, no network"
)
declare_backend("scripted", f"{_BACKENDS}:scripted", usage="scripted:FILE.json",
                description="replays assistant turns from a file")  # fmt: skip
declare_backend(
    "openai", f"{_BACKENDS}:openai", usage="openai:MODEL", description="OpenAI Chat Completions, OPENAI_API_KEY"
)
declare_backend("openai-compatible", f"{_BACKENDS}:openai_compatible", usage="openai-compatible:MODEL",
                description="vLLM, SGLang, Ollama… with --base-url")  # fmt: skip
declare_backend("anthropic", f"{_BACKENDS}:anthropic", usage="anthropic:MODEL",
                description="Anthropic Messages API, ANTHROPIC_API_KEY")  # fmt: skip
declare_backend("replay", f"{_BACKENDS}:replay", usage="replay:RUN",
                description="replays a finished run's model turns, no network")  # fmt: skip

# --- image generators (specs of `mcot imagine --generator`) ----------------------------------------------

_GENERATORS = "mcot.agents.generators.factories"
declare_generator("diffusers", f"{_GENERATORS}:diffusers", usage="diffusers:PATH",
                  description="a local diffusers pipeline folder (text-to-image; image-to-image or inpainting for "
                  "edits), the gen extra")  # fmt: skip
declare_generator("openai-image", f"{_GENERATORS}:openai_image", usage="openai-image:MODEL",
                  description="the OpenAI Images API, OPENAI_API_KEY")  # fmt: skip
declare_generator("procedural", f"{_GENERATORS}:procedural", usage="procedural",
                  description="physically exact schematic scenes; procedural:broken for each scene's broken twin")  # fmt: skip

# --- tools and toolsets (the arms of `--mode`) -----------------------------------------------------------

for _module in ("canvas_ops", "geometry", "optics", "physics", "graphs", "perception", "maze_image", "algebra"):
    declare_tools(f"mcot.tools.{_module}")
declare_tools("mcot.tools.code.tool")
declare_toolset("text", (), description="no tools: one answer in words")
declare_toolset("canvas", "mcot.tools.toolsets:canvas_tools", system_prompt=DEFAULT_SYSTEM_PROMPT,
                description="only the canvas tools (draw, transform, edit, undo, zoom, grid) and the canvas image")  # fmt: skip
declare_toolset("tools", "mcot.tools.toolsets:every_tool", system_prompt=DEFAULT_SYSTEM_PROMPT,
                description="the canvas and the domain tools")  # fmt: skip
declare_toolset("canvas-blind", "mcot.tools.toolsets:canvas_tools", sees_canvas=False,
                system_prompt=DEFAULT_SYSTEM_PROMPT,
                description="ablation: the canvas tools, but the canvas image only in the first observation; "
                "after that what changed is said in words")  # fmt: skip
declare_toolset("look", ("zoom", "show_grid"), system_prompt="system.look.txt",
                description="ablation: only zoom and show_grid (perception help without drawing)")  # fmt: skip
declare_toolset("code", ("python",), system_prompt="system.code.txt",
                description="only the python tool: a sandboxed, stateful Python session with the item's images")  # fmt: skip
declare_toolset("code+canvas", "mcot.tools.toolsets:code_and_canvas_tools", system_prompt="system.code-canvas.txt",
                description="the python tool and the canvas tools")  # fmt: skip

# --- the offline policy's strategies -----------------------------------------------------------------------

STRATEGIES.add_source("mcot.agents.offline.builtin")

# --- answer forms and scoring protocols ------------------------------------------------------------------

_PROMPTS = "mcot.agents.prompts"
declare_answer_form("boxed", f"{_PROMPTS}:boxed", description="\\boxed{answer} (RBench-V's form, and the default)")
declare_answer_form("bare", f"{_PROMPTS}:bare", description="the answer alone on the last line")
declare_answer_form("answer-line", f"{_PROMPTS}:answer_line", description="the line `Answer: answer`")
declare_protocol("official", description="each benchmark's published scoring (the default)")
declare_protocol("robust", description="mcot's own extraction and matching (docs/scoring.md)")

# --- data formats and benchmarks -------------------------------------------------------------------------

_LOADERS = "mcot.benchmarks.loaders"
declare_loader("items", f"{_LOADERS}.items_dir", description="an mcot items directory", convertible=False)
declare_benchmark(
    "gepbench",
    description="GePBench: geometric perception, 6 aspects × easy/hard, multiple choice",
    prompt="task.gepbench.txt",
    answer="bare",
    max_new_tokens=10,
    inference="text arm: geocap eval/gepbench.py's question, lettered choices and eval_inst, at most 10 new tokens; "
    "the arms with tools add the canvas system prompt, tool definitions and up to --max-steps turns, with no 10-token cap (a tool call needs more)",
    protocols="mcot.eval.protocols.gepbench",
    loader=f"{_LOADERS}.gepbench",
    cluster=("meta.level", "meta.image_id"),  # its questions share one image
    cluster_name="the figure",
)
declare_benchmark(
    "gobench",
    description="GOBench: geometric optics; understanding (rate generated images) and generation",
    prompt="task.gobench.txt",
    answer="bare",
    max_new_tokens=2048,
    inference="text arm: the image, then VLMEvalKit GOBenchDataset's SYS + '\\n' + question (the TSV's question where "
    "the TSV is given, else mcot's rendering of the record with the Total Score line its parser reads), at most 2048 "
    "tokens (VLMEvalKit's API default); "
    "the arms with tools add the canvas system prompt, tool definitions and up to --max-steps turns",
    protocols="mcot.eval.protocols.gobench",
    loader=f"{_LOADERS}.gobench",
)
declare_benchmark(
    "rbench-v",
    description="RBench-V: 803 visual-reasoning items that need drawing (math, physics, counting, game)",
    prompt="task.rbench-v.txt",
    answer="boxed",
    max_new_tokens=2048,
    inference="text arm: the RBench-V VLMEvalKit fork's build_prompt verbatim (with or without 'according to the "
    "given picture'), the question as the dataset holds it, at most 2048 tokens (VLMEvalKit's API default); the arms "
    "with tools add the canvas system prompt, tool definitions and up to --max-steps turns",
    protocols="mcot.eval.protocols.rbench_v",
    loader=f"{_LOADERS}.rbench_v",
)
declare_benchmark(
    "omniphys",
    description="OmniPhys: physics problems scored on result and process, and diagram editing",
    prompt="task.omniphys.txt",
    answer="answer-line",
    inference="text arm: mcot's own wording (no public OmniPhys inference code was found), a final "
    "`Answer:` line; the arms with tools add the canvas system prompt, tool definitions and up to --max-steps turns",
    protocols="mcot.eval.protocols.omniphys",
    loader=f"{_LOADERS}.omniphys",
)
declare_benchmark(
    "games",
    description="mcot's generated RBench-V-style games with exact solution geometry "
    "(maze, bounce, dart, ray, dots, triangles)",
    prompt="task.default.txt",
    answer="boxed",
    protocols="mcot.eval.protocols.games",
    cluster=("category", "meta.seed", "meta.index"),
    cluster_name="the generated scene",
    inference="mcot's own benchmark (no official inference): step by step, a \\boxed final answer; the arms "
    "with tools add the canvas system prompt, tool definitions and up to --max-steps turns",
)

# --- exports (`mcot export --format`, `--as`) ------------------------------------------------------------

_FORMATS = "mcot.export.formats"
declare_export_format("jsonl", f"{_FORMATS}:write_jsonl", description="a folder: records.jsonl + images/")
declare_export_format("parquet", f"{_FORMATS}:write_parquet", folder=False,
                      description="one file, images embedded")  # fmt: skip
declare_export_format("hf", f"{_FORMATS}:write_hf", requires="datasets",
                      description="a `datasets` folder: load_from_disk or load_dataset")  # fmt: skip
_PREDICTIONS = "mcot.export.predictions"
declare_export_format("vlmevalkit", f"{_PREDICTIONS}:write_vlmevalkit",
                      description="a folder: per arm, the TSV VLMEvalKit's RBench-V and GOBench evaluate() read")  # fmt: skip
declare_export_format("gepbench", f"{_PREDICTIONS}:write_gepbench",
                      description="a folder: per arm and level, the GePBench script's <perspective>.jsonl")  # fmt: skip
_VIEWS, _SCHEMAS = "mcot.export.views", "mcot.export.schemas"
declare_export_view(
    "records",
    f"{_VIEWS}:records_view",
    description="item, answer, score, trace",
    conversation=False,
    schema=f"{_SCHEMAS}:records_schema",
    image_columns=("item_images", "canvas_images", "output_images"),
    json_columns=("trace",),
)
declare_export_view(
    "messages",
    f"{_VIEWS}:messages_view",
    description="OpenAI-style chat with tool calls, for SFT",
    schema=f"{_SCHEMAS}:messages_schema",
    image_columns=("images",),
    json_columns=("tools",),
)
declare_export_view(
    "llava",
    f"{_VIEWS}:llava_view",
    description="LLaVA conversations with <image> tokens",
    schema=f"{_SCHEMAS}:llava_schema",
    image_columns=("image",),
)
declare_export_view(
    "sharegpt",
    "mcot.export.sharegpt:sharegpt_view",
    description="LLaMA-Factory sharegpt: function_call/observation turns, tools, images",
    schema=f"{_SCHEMAS}:sharegpt_schema",
    image_columns=("images",),
)
declare_export_view(
    "verl",
    "mcot.export.verl_rows:verl_view",
    description="verl RL prompt rows: reward_model, tools_kwargs for mcot's verl tools (runs or items)",
    schema=f"{_SCHEMAS}:verl_schema",
    image_columns=("images",),
    prompts=True,
)
declare_export_view(
    "verl-sft",
    "mcot.export.verl_rows:verl_sft_view",
    description="verl multi-turn SFT: messages with tool calls, <image> tokens, tools",
    schema=f"{_SCHEMAS}:verl_sft_schema",
    image_columns=("images",),
)
declare_export_view(
    "trl",
    "mcot.export.trl_rows:trl_view",
    description="TRL prompt-completion with typed parts, images, tools; CanvasEnv's rows (runs or items)",
    schema=f"{_SCHEMAS}:trl_schema",
    image_columns=("images",),
    prompts=True,
)
