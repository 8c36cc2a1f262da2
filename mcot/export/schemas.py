"""The Arrow schemas of mcot's export views (parquet and hf), one function per view, named by its declaration.

Image columns are lists of Hugging Face image structs (`{"bytes", "path"}`); columns too varied for one Arrow
type (a trace, tool definitions) are JSON text, named in the view's declaration (`json_columns`).
"""

from __future__ import annotations

from typing import Any

from mcot.tools.toolsets import every_tool


def _parts() -> dict[str, Any]:
    """Return the Arrow types the views share: flags, images, usage, chat messages."""
    import pyarrow as pa

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    images = pa.list_(image)
    flags = [
        ("id", pa.string()),
        ("mode", pa.string()),
        ("benchmark", pa.string()),
        ("category", pa.string()),
        ("status", pa.string()),
        ("error", pa.string()),
        ("correct", pa.bool_()),
        ("score", pa.float64()),
    ]
    usage = pa.struct([("input_tokens", pa.int64()), ("output_tokens", pa.int64()), ("cost_usd", pa.float64())])
    part = pa.struct([("type", pa.string()), ("text", pa.string()), ("image_url", pa.struct([("url", pa.string())]))])
    call = pa.struct(
        [
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]
    )
    message = pa.struct(
        [
            ("role", pa.string()),
            ("content", pa.list_(part)),
            ("tool_calls", pa.list_(call)),
            ("tool_call_id", pa.string()),
        ]
    )
    return {"images": images, "flags": flags, "usage": usage, "message": message}


def records_schema() -> Any:
    """Return the Arrow schema of the `records` view."""
    import pyarrow as pa

    parts = _parts()
    flags, images = parts["flags"], parts["images"]
    records = [
        *flags[:4],
        ("question", pa.string()),
        ("choices", pa.list_(pa.string())),
        ("answer", pa.string()),
        ("answer_type", pa.string()),
        ("model", pa.string()),
        *flags[4:6],
        ("prediction", pa.string()),
        ("extracted", pa.string()),
        *flags[6:],
        ("score_method", pa.string()),
        ("steps", pa.int64()),
        ("usage", parts["usage"]),
        ("latency_s", pa.float64()),
        ("item_images", images),
        ("canvas_images", images),
        ("output_images", images),
        ("trace", pa.string()),
    ]
    return pa.schema(records)


def messages_schema() -> Any:
    """Return the Arrow schema of the `messages` view."""
    import pyarrow as pa

    parts = _parts()
    return pa.schema(
        [*parts["flags"], ("messages", pa.list_(parts["message"])), ("images", parts["images"]), ("tools", pa.string())]
    )


def llava_schema() -> Any:
    """Return the Arrow schema of the `llava` view."""
    import pyarrow as pa

    parts = _parts()
    turn = pa.struct([("from", pa.string()), ("value", pa.string())])
    return pa.schema([*parts["flags"], ("system", pa.string()), ("image", parts["images"]), ("conversations", pa.list_(turn))])


def sharegpt_schema() -> Any:
    """Return the Arrow schema of the `sharegpt` view (LLaMA-Factory)."""
    import pyarrow as pa

    parts = _parts()
    turn = pa.struct([("from", pa.string()), ("value", pa.string())])
    return pa.schema(
        [
            *parts["flags"],
            ("system", pa.string()),
            ("tools", pa.string()),
            ("images", parts["images"]),
            ("conversations", pa.list_(turn)),
        ]
    )


def verl_schema() -> Any:
    """Return the Arrow schema of the `verl` view: `tools_kwargs` has a field per declared tool (null where the
    row's arm does not offer it; `tool_selection` names those it does)."""
    import pyarrow as pa


    parts = _parts()
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    created = pa.struct([("create_kwargs", pa.struct([("item", pa.string())]))])
    extra = pa.struct(
        [
            ("split", pa.string()),
            ("index", pa.int64()),
            ("id", pa.string()),
            ("item", pa.string()),
            ("need_tools_kwargs", pa.bool_()),
            ("tool_selection", pa.list_(pa.string())),
            ("tools_kwargs", pa.struct([(name, created) for name in every_tool()])),
        ]
    )
    return pa.schema(
        [
            *parts["flags"],
            ("data_source", pa.string()),
            ("prompt", pa.list_(message)),
            ("images", parts["images"]),
            ("ability", pa.string()),
            ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
            ("extra_info", extra),
            ("agent_name", pa.string()),
        ]
    )


def _text_message() -> Any:
    """Return the Arrow type of a chat message whose content is one string (verl's SFT messages)."""
    import pyarrow as pa

    call = pa.struct(
        [
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]
    )
    return pa.struct(
        [
            ("role", pa.string()),
            ("content", pa.string()),
            ("tool_calls", pa.list_(call)),
            ("tool_call_id", pa.string()),
        ]
    )


def verl_sft_schema() -> Any:
    """Return the Arrow schema of the `verl-sft` view."""
    import pyarrow as pa

    parts = _parts()
    return pa.schema(
        [*parts["flags"], ("messages", pa.list_(_text_message())), ("images", parts["images"]), ("tools", pa.string())]
    )


def trl_schema() -> Any:
    """Return the Arrow schema of the `trl` view (typed content parts, image placeholders)."""
    import pyarrow as pa

    parts = _parts()
    part = pa.struct([("type", pa.string()), ("text", pa.string())])
    call = pa.struct(
        [
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]
    )
    message = pa.struct(
        [
            ("role", pa.string()),
            ("content", pa.list_(part)),
            ("tool_calls", pa.list_(call)),
            ("name", pa.string()),
            ("tool_call_id", pa.string()),
        ]
    )
    return pa.schema(
        [
            *parts["flags"],
            ("prompt", pa.list_(message)),
            ("completion", pa.list_(message)),
            ("images", parts["images"]),
            ("tools", pa.string()),
            ("item", pa.string()),
            ("toolset", pa.string()),
            ("answer", pa.string()),
        ]
    )
