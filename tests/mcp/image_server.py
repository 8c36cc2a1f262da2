"""A small MCP server for the tests (run as `python tests/mcp/image_server.py [VARIANT]`), built on the `mcp` SDK.

Its tools: `stamp(text)` answers with a text and a 32 × 24 PNG (red, or blue in the `blue` variant, whose schema
also differs: an extra `size` argument), `stall()` never answers in time, `quit()` ends the server's process.
"""

import io
import os
import sys
import time

from mcp.server.mcpserver import Image, MCPServer
from PIL import Image as PILImage

VARIANT = sys.argv[1] if len(sys.argv) > 1 else "red"
app = MCPServer("test-images", version="1.2.3")


def _png(color: str) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (32, 24), color).save(buffer, format="PNG")
    return buffer.getvalue()


if VARIANT == "blue":

    @app.tool(structured_output=False)
    def stamp(text: str, size: int = 1) -> list[object]:
        """Stamp a blue square and say the text back."""
        return [f"stamped {text}", Image(data=_png("blue"), format="png")]

else:

    @app.tool(structured_output=False)
    def stamp(text: str) -> list[object]:
        """Stamp a red square and say the text back."""
        return [f"stamped {text}", Image(data=_png("red"), format="png")]


@app.tool(structured_output=False)
def stall() -> str:
    """Take far longer than any time-out."""
    time.sleep(600)
    return "late"


@app.tool(structured_output=False)
def quit() -> str:
    """End the server's process at once."""
    os._exit(0)


if __name__ == "__main__":
    app.run()
