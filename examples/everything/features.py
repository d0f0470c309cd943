"""Everything but the tools, the SDK's own way: resources, a template, subscriptions, prompts,
completion and the logging level. Registered on import."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    PromptReference,
    ResourceTemplateReference,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)

from examples.everything.app import mcp
from examples.everything.assets import PNG_BASE64

logger = logging.getLogger(__name__)
#: URIs clients subscribed to (resources/subscribe), per process
SUBSCRIPTIONS: set[str] = set()


@mcp.resource("test://static-text", description="A static text resource", mime_type="text/plain")
def static_text() -> str:
    return "This is the content of the static text resource."


@mcp.resource("test://static-binary", description="A 1x1 PNG", mime_type="image/png")
def static_binary() -> bytes:
    return base64.b64decode(PNG_BASE64)


@mcp.resource(
    "test://template/{id}/data", description="Data for one id", mime_type="application/json"
)
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@mcp.resource("test://watched-resource", description="A resource clients subscribe to")
def watched() -> str:
    return "Watched resource content"


@mcp.prompt(description="A prompt without arguments")
def test_simple_prompt() -> list[UserMessage]:
    return [
        UserMessage(content=TextContent(type="text", text="This is a simple prompt for testing."))
    ]


@mcp.prompt(description="A prompt with two required arguments")
def test_prompt_with_arguments(arg1: str, arg2: str) -> list[UserMessage]:
    text = f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
    return [UserMessage(content=TextContent(type="text", text=text))]


@mcp.prompt(description="A prompt that embeds a resource")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:
    embedded = TextResourceContents(
        uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
    )
    return [
        UserMessage(content=EmbeddedResource(type="resource", resource=embedded)),
        UserMessage(
            content=TextContent(type="text", text="Please process the embedded resource above.")
        ),
    ]


@mcp.prompt(description="A prompt with an image")
def test_prompt_with_image() -> list[UserMessage]:
    return [
        UserMessage(content=ImageContent(type="image", data=PNG_BASE64, mime_type="image/png")),
        UserMessage(content=TextContent(type="text", text="Please analyze the image above.")),
    ]


#: completion values per argument name
SUGGESTIONS = {"arg1": ["paris", "park", "party"], "arg2": ["world", "word"], "id": ["123", "456"]}


@mcp.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion:
    values = [v for v in SUGGESTIONS.get(argument.name, []) if v.startswith(argument.value)]
    return Completion(values=values, total=len(values), has_more=False)


# The SDK's MCPServer has no decorator for these three; its low-level server takes handlers.
async def _set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    logger.info("client asked for log level %s", params.level)
    return EmptyResult()


async def _subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
    SUBSCRIPTIONS.add(str(params.uri))
    return EmptyResult()


async def _unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
    SUBSCRIPTIONS.discard(str(params.uri))
    return EmptyResult()


_lowlevel = mcp._lowlevel_server
_lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)
_lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)
_lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, _unsubscribe)
