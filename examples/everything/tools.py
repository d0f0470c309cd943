"""The conformance suite's tools, one per scenario, registered with ``@mcp.tool()``.

Plain SDK 2.x code: under ``use_generated`` they are listed from generated/ and the SDK builds
each tool's argument model on its first call; without it the SDK infers them at import.
"""

import asyncio
import json

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    SamplingMessage,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel, Field

from examples.everything.app import mcp
from examples.everything.assets import JSON_SCHEMA_2020_12, PNG_BASE64, WAV_BASE64


@mcp.tool()
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@mcp.tool()
def test_image_content() -> list[ImageContent]:
    """Returns a 1x1 PNG image."""
    return [ImageContent(type="image", data=PNG_BASE64, mime_type="image/png")]


@mcp.tool()
def test_audio_content() -> list[AudioContent]:
    """Returns a short WAV clip."""
    return [AudioContent(type="audio", data=WAV_BASE64, mime_type="audio/wav")]


@mcp.tool()
def test_embedded_resource() -> list[EmbeddedResource]:
    """Returns an embedded text resource."""
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="test://embedded-resource",
                mime_type="text/plain",
                text="This is an embedded resource content.",
            ),
        )
    ]


@mcp.tool()
def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
    """Returns text, an image and an embedded resource."""
    return [
        TextContent(type="text", text="Multiple content types test:"),
        ImageContent(type="image", data=PNG_BASE64, mime_type="image/png"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="test://mixed-content-resource",
                mime_type="application/json",
                text=json.dumps({"test": "data", "value": 123}),
            ),
        ),
    ]


@mcp.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Sends three info log messages while it runs."""
    await ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@mcp.tool()
def test_error_handling() -> str:
    """Always fails."""
    raise ToolError("This tool intentionally returns an error for testing")


@mcp.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 of 100."""
    for step in (0, 50, 100):
        await ctx.report_progress(progress=step, total=100, message=f"Completed step {step} of 100")
        if step < 100:
            await asyncio.sleep(0.05)
    return "Tool with progress executed successfully"


@mcp.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's LLM to answer the prompt."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=100,
    )
    content = result.content
    text = content.text if isinstance(content, TextContent) else "(no text)"
    return f"LLM response: {text}"


class Contact(BaseModel):
    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


@mcp.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a username and an email address."""
    result = await ctx.elicit(message=message, schema=Contact)
    content = result.data.model_dump() if result.action == "accept" else {}
    return f"User response: action={result.action}, content={json.dumps(content)}"


class Defaults(BaseModel):
    name: str = Field(default="John Doe", description="User name")
    age: int = Field(default=30, description="User age")
    score: float = Field(default=95.5, description="User score")
    status: str = Field(
        default="active",
        description="User status",
        json_schema_extra={"enum": ["active", "inactive", "pending"]},
    )
    verified: bool = Field(default=True, description="Verification status")


@mcp.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicits a form with a default for every primitive type (SEP-1034)."""
    result = await ctx.elicit(message="Please provide user information", schema=Defaults)
    content = result.data.model_dump() if result.action == "accept" else {}
    return f"Elicitation completed: action={result.action}, content={json.dumps(content)}"


def _titled(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in pairs]


class Enums(BaseModel):
    untitledSingle: str = Field(
        description="Untitled single-select",
        json_schema_extra={"enum": ["option1", "option2", "option3"]},
    )
    titledSingle: str = Field(
        description="Titled single-select",
        json_schema_extra={
            "oneOf": _titled(
                ("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")
            )
        },
    )
    legacyEnum: str = Field(
        description="Legacy titled enum",
        json_schema_extra={
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
    )
    untitledMulti: list[str] = Field(
        description="Untitled multi-select",
        json_schema_extra={"items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    )
    titledMulti: list[str] = Field(
        description="Titled multi-select",
        json_schema_extra={
            "items": {
                "anyOf": _titled(
                    ("value1", "First Choice"),
                    ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                )
            }
        },
    )


@mcp.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicits a form with the five enum forms of SEP-1330."""
    result = await ctx.elicit(message="Please pick from each list", schema=Enums)
    content = result.data.model_dump() if result.action == "accept" else {}
    return f"Elicitation completed: action={result.action}, content={json.dumps(content)}"


class address(BaseModel):  # lower case: the scenario looks for `$defs.address`
    street: str | None = None
    city: str | None = None


@mcp.tool(
    description="Tool with JSON Schema 2020-12 features",
    input_schema={
        "$schema": JSON_SCHEMA_2020_12,
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
def json_schema_2020_12_tool(name: str | None = None, address: address | None = None) -> str:
    return json.dumps({"name": name, "address": address.model_dump() if address else None})


@mcp.tool()
async def test_reconnection(ctx: Context) -> str:
    """Closes its SSE stream mid-call; the client resumes with Last-Event-ID (SEP-1699)."""
    await ctx.log("info", "Before disconnect")
    await ctx.close_sse_stream()
    await asyncio.sleep(0.2)
    await ctx.log("info", "After reconnect")
    return "Reconnection test completed"
