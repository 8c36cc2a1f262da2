"""One step of TRL's own GRPOTrainer with `environment_factory=CanvasEnv` (and with `remote_environment` over two
`mcot env serve` servers) and mcot.rewards' reward functions, on a tiny randomly initialised model (no hub): TRL
builds the environments, collects their tools, resets them from the rows of an `mcot export --as trl` dataset,
calls the reward functions with its columns, and adds `get_reward`.

The model is a text model (a vision-language model needs a processor from the hub), so the rows' image
placeholders are dropped from the prompt and the canvas is read from the jsonl export's folder (`images_root`)."""

import json
import os
from pathlib import Path
from typing import Any

import pytest
from extras import needs
from trainer_runs import mcot, shared_runs

pytestmark = [needs("trl", "jmespath", extra="rl"), pytest.mark.long_running]


def tiny_qwen() -> tuple[Any, Any]:
    """Return a one-layer Qwen2 model with random weights and a word-level tokenizer with TRL's Qwen2.5 template (a
    template TRL knows, so that it parses tool calls); no word of the vocabulary is a maze's answer."""
    import torch
    import trl
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    specials = ["[UNK]", "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
    vocab = {token: k for k, token in enumerate([*specials, "system", "user", "assistant", "tool", "moves"])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", pad_token="<|endoftext|>", eos_token="<|im_end|>"
    )
    tokenizer.add_special_tokens({"additional_special_tokens": specials[2:]})
    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja").read_text()
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096,
    )  # fmt: skip
    return Qwen2ForCausalLM(config), tokenizer


def text_rows(records: Path) -> list[dict[str, Any]]:
    """Return the `trl` rows of a jsonl export with text-only prompts (no image placeholders, no images column)."""
    rows = []
    for line in records.open(encoding="utf-8"):
        row = json.loads(line)
        row.pop("images")
        row.pop("completion")
        row["prompt"] = [
            {"role": m["role"], "content": "\n".join(p["text"] for p in m["content"] if p["type"] == "text")}
            for m in row["prompt"]
        ]
        rows.append(row)
    return rows


def test_one_grpo_step_with_canvas_env_and_mcot_rewards(tmp_path_factory: pytest.TempPathFactory) -> None:
    import datasets
    from trl import GRPOConfig, GRPOTrainer

    from mcot import rewards
    from mcot.env import CanvasEnv

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    runs = shared_runs(tmp_path_factory)
    work = tmp_path_factory.mktemp("grpo")
    mcot("export", runs["maze"], "--format", "jsonl", "--as", "trl", "--out", work / "rows")
    model, tokenizer = tiny_qwen()
    calls: list[dict[str, Any]] = []

    def accuracy(completions: list[Any], **columns: Any) -> list[float]:
        scores = rewards.accuracy(completions, **columns)
        calls.append({"completions": completions, "columns": columns, "scores": scores})
        return scores

    environment = CanvasEnv.with_toolset("canvas", images_root=work / "rows")
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[accuracy, rewards.answer_format],
        train_dataset=datasets.Dataset.from_list(text_rows(work / "rows" / "records.jsonl")),
        environment_factory=environment,
        args=GRPOConfig(
            output_dir=str(work / "out"), max_steps=1, per_device_train_batch_size=2, num_generations=2,
            max_completion_length=8, max_tool_calling_iterations=2, use_cpu=True, report_to=[], save_strategy="no",
            logging_steps=1, bf16=False, seed=0,
        ),
    )  # fmt: skip
    from mcot import tools

    assert sorted(tool.__name__ for tool in trainer.tools) == sorted(tools.canvas_tools())
    assert trainer.reward_func_names == ["accuracy", "answer_format", environment.__name__]  # get_reward added
    trainer.train()

    assert len(calls) == 1 and len(calls[0]["completions"]) == 2
    columns = calls[0]["columns"]
    assert {"item", "toolset", "answer", "environments"} <= set(columns) and columns["toolset"] == ["canvas"] * 2
    for env, item in zip(columns["environments"], columns["item"], strict=True):
        assert isinstance(env, environment) and env.episode.item.id == json.loads(item)["id"]
        assert env.episode.base is not None  # the item's canvas, read from the export folder
        assert list(env.episode.base.size) == json.loads(item)["canvas"]
    assert all(isinstance(c, list) and c[0]["role"] == "assistant" for c in calls[0]["completions"])
    assert calls[0]["scores"] == [0.0, 0.0]  # the vocabulary holds no answer: the protocol finds none correct
    logged = trainer.state.log_history[0]
    assert f"rewards/{environment.__name__}/mean" in logged and "rewards/accuracy/mean" in logged


def _serve(port: int, images_root: Path) -> Any:
    """Start `mcot env serve` on `port` (reading images under `images_root`); return the process once it listens."""
    import socket
    import subprocess
    import sys
    import time

    argv = [sys.executable, "-m", "mcot", "env", "serve", "--port", str(port), "--images-root", str(images_root)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return process
        except OSError:
            assert process.poll() is None, "mcot env serve exited"
            time.sleep(0.2)
    process.terminate()
    raise AssertionError("mcot env serve did not start")


def test_one_grpo_step_over_two_env_servers(tmp_path: Path) -> None:
    """TRL's own GRPOTrainer with `environment_factory=remote_environment([A, B])`: its rollouts' environments
    are OpenEnv sessions on two `mcot env serve` servers, taken in turn, and their drawing reward is logged."""
    pytest.importorskip("openenv")
    import socket

    import datasets
    from trl import GRPOConfig, GRPOTrainer

    from mcot import rewards, tools
    from mcot.env.remote import remote_environment

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    mcot("gen", "games", "--task", "maze", "--n", "2", "--seed", "3", "--out", tmp_path / "items")
    mcot("export", tmp_path / "items", "--format", "jsonl", "--as", "trl", "--out", tmp_path / "rows")
    rows = text_rows(tmp_path / "rows" / "records.jsonl")
    ports = []
    for _ in range(2):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
    servers = [_serve(port, tmp_path / "rows") for port in ports]
    try:
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        environment = remote_environment(urls)
        model, tokenizer = tiny_qwen()
        seen: list[Any] = []

        def accuracy(completions: list[Any], **columns: Any) -> list[float]:
            seen.extend(columns["environments"])
            return rewards.accuracy(completions, **columns)

        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            reward_funcs=[accuracy],
            train_dataset=datasets.Dataset.from_list(rows),
            environment_factory=environment,
            args=GRPOConfig(
                output_dir=str(tmp_path / "out"), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                max_completion_length=8, max_tool_calling_iterations=2, use_cpu=True, report_to=[],
                save_strategy="no", logging_steps=1, bf16=False, seed=0,
            ),
        )  # fmt: skip
        assert sorted(tool.__name__ for tool in trainer.tools) == sorted(tools.canvas_tools())
        trainer.train()
        assert len(seen) == 2 and all(isinstance(env, environment) for env in seen)
        assert {env.server for env in seen} == set(urls)  # one rollout's canvas on each server
        assert all(env.client.state()["item_id"] in {json.loads(row["item"])["id"] for row in rows} for env in seen)
        assert f"rewards/{environment.__name__}/mean" in trainer.state.log_history[0]
    finally:
        for process in servers:
            process.terminate()
            process.wait(30)
