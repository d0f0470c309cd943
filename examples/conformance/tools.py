"""Tools for the conformance suite's tool scenarios, served by ``mcp_codegen.runtime``.

Each tool answers what its scenario expects (``tools-call-*`` and ``json-schema-2020-12``; read in
the suite's ``dist/index.js``, version 0.1.9). Generated with ``mcp-codegen --config
examples/conformance/pyproject.toml generate`` into ``examples/conformance/generated``.
"""

from __future__ import annotations

import asyncio
import base64

from mcp import types
from mcp.server.mcpserver import Context

from mcp_codegen.decorators import tool

#: A 1x1 red pixel, PNG.
RED_PIXEL_PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
    )
).decode("ascii")
#: 1 ms of 8 kHz 8-bit mono silence, WAV.
SILENT_WAV = base64.b64encode(
    b"RIFF"
    + (36 + 8).to_bytes(4, "little")
    + b"WAVEfmt "
    + (16).to_bytes(4, "little")
    + (1).to_bytes(2, "little")  # PCM
    + (1).to_bytes(2, "little")  # mono
    + (8000).to_bytes(4, "little")
    + (8000).to_bytes(4, "little")
    + (1).to_bytes(2, "little")
    + (8).to_bytes(2, "little")
    + b"data"
    + (8).to_bytes(4, "little")
    + b"\x80" * 8
).decode("ascii")


@tool
def test_simple_text() -> types.TextContent:
    """Return a simple text."""
    return types.TextContent(type="text", text="This is a simple text response for testing.")


@tool
def test_image_content() -> types.ImageContent:
    """Return a 1x1 red PNG."""
    return types.ImageContent(type="image", data=RED_PIXEL_PNG, mime_type="image/png")


@tool
def test_audio_content() -> types.AudioContent:
    """Return a short silent WAV."""
    return types.AudioContent(type="audio", data=SILENT_WAV, mime_type="audio/wav")


@tool
def test_embedded_resource() -> types.EmbeddedResource:
    """Return an embedded text resource."""
    return types.EmbeddedResource(
        type="resource",
        resource=types.TextResourceContents(
            uri="test://embedded-resource",
            mime_type="text/plain",
            text="This is an embedded resource content.",
        ),
    )


@tool
def test_multiple_content_types() -> list[types.ContentBlock]:
    """Return text, an image and an embedded resource."""
    return [
        types.TextContent(type="text", text="Multiple content types test:"),
        types.ImageContent(type="image", data=RED_PIXEL_PNG, mime_type="image/png"),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(
                uri="test://mixed-content-resource",
                mime_type="application/json",
                text='{"test":"data","value":123}',
            ),
        ),
    ]


@tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Send three info log messages while running."""
    await ctx.info("Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.info("Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Logging test completed"


@tool
def test_error_handling() -> str:
    """Always fail."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Report progress 0, 50 and 100 of 100."""
    for progress in (0, 50, 100):
        await ctx.report_progress(progress, 100)
        if progress < 100:
            await asyncio.sleep(0.05)
    return "Progress test completed"


@tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Ask the client's model to answer ``prompt``."""
    result = await ctx.session.create_message(
        messages=[
            types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))
        ],
        max_tokens=100,
    )
    content = result.content
    text = content.text if isinstance(content, types.TextContent) else str(content)
    return f"LLM response: {text}"


@tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Ask the user for a username and an email address."""
    result = await ctx.session.elicit_form(
        message=message,
        requested_schema={
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        },
    )
    return f"User response: action={result.action}, content={result.content}"


@tool(
    description="Tool with JSON Schema 2020-12 features",
    input_schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    },
)
def json_schema_2020_12_tool(name: str | None = None, address: dict[str, str] | None = None) -> str:
    """Accept a name and an address."""
    return f"name={name}, address={address}"
