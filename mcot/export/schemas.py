"""The Arrow schemas of mcot's export views (parquet and hf), one function per view, named by its declaration.

Image columns are lists of Hugging Face image structs (`{"bytes", "path"}`); columns too varied for one Arrow
type (a trace, tool definitions) are JSON text, named in the view's declaration (`json_columns`).
"""

from __future__ import annotations

from typing import Any


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
