"""What the trainers' own loading code needs besides the data, made here without a hub: a real (tiny) tokenizer
with a chat template that renders tools, tool calls and image parts, and verl's RL dataset over a parquet file."""

from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{%- if tools %}<|tools|>{% for tool in tools %}{{ tool['function']['name'] if 'function' in tool else tool['name'] }} "
    "{% endfor %}<|end|>{% endif -%}"
    "{%- for message in messages -%}<|{{ message['role'] }}|>"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- elif message['content'] -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'text' -%}{{ part['text'] }}{%- else -%}<image>{%- endif -%}{%- endfor -%}{%- endif -%}"
    "{%- for call in message.get('tool_calls') or [] -%}<call>{{ call['function']['name'] }}{%- endfor -%}"
    "<|end|>{%- endfor -%}{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"
)


def tiny_tokenizer() -> Any:
    """Return a word-level PreTrainedTokenizerFast with CHAT_TEMPLATE (every unknown word is one token)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "[PAD]", "[EOS]", "<image>", "<|end|>", "<|tools|>", "<call>"]
    roles = [f"<|{role}|>" for role in ("system", "user", "assistant", "tool")]
    vocab = {token: k for k, token in enumerate([*specials, *roles])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]")
    tokenizer.add_special_tokens({"additional_special_tokens": [*specials[3:], *roles]})
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def verl_rl_dataset(parquet: Path, tokenizer: Any, work: Path) -> Any:
    """Return verl's RLHFDataset over an `mcot export --as verl` parquet file, as verl's trainer builds it (with an
    image processor: verl reads the rows' images only when there is one)."""
    from transformers import Qwen2VLImageProcessor
    from verl.utils.dataset.rl_dataset import RLHFDataset

    config = {"filter_overlong_prompts": False, "cache_dir": str(work / "verl-cache"), "return_raw_chat": True}
    return RLHFDataset(str(parquet), tokenizer, config, processor=Qwen2VLImageProcessor())
