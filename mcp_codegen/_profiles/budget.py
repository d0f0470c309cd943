"""What a tools/list costs a client: bytes on the wire and approximate tokens, per tool and total.

Bytes are of the compact JSON a server sends (UTF-8, no spaces). Tokens are bytes/4 by default,
a rule of thumb that needs nothing; ``tokenizer = "o200k_base"`` (or another encoding name)
counts real BPE tokens with the ``bpe-openai`` package, which ships its encodings (tiktoken
downloads its encodings at first use, which offline builds cannot do).
"""

from __future__ import annotations

import json
from functools import lru_cache

from mcp_codegen._profiles import Finding
from mcp_codegen._shared.extras import missing_extra

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: The default token estimate: one token per four bytes.
BYTES_PER_TOKEN = "bytes/4"


def wire_bytes(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def payload_bytes(tools: list[dict[str, Any]]) -> int:
    """Bytes of the whole ``{"tools": [...]}`` result."""
    return wire_bytes({"tools": tools})


@lru_cache(maxsize=4)
def token_counter(tokenizer: str = BYTES_PER_TOKEN) -> Callable[[Any], int]:
    """A function from a JSON value to its token count; ``ValueError`` for a tokenizer that is
    not installed or not known."""
    if tokenizer == BYTES_PER_TOKEN:
        return lambda value: -(-wire_bytes(value) // 4)
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        raise ValueError(
            missing_extra(f"tokenizer {tokenizer!r}", "the bpe-openai package", "tokens")
            + ', or use tokenizer = "bytes/4"'
        ) from None
    if tokenizer not in bpe_openai.list_encoding_names():
        known = ", ".join([BYTES_PER_TOKEN, *bpe_openai.list_encoding_names()])
        raise ValueError(f"unknown tokenizer {tokenizer!r}; known: {known}")
    encoding = bpe_openai.get_encoding(tokenizer)
    return lambda value: len(
        encoding.encode(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    )


def tool_sizes(
    tools: list[dict[str, Any]], tokenizer: str = BYTES_PER_TOKEN
) -> dict[str, tuple[int, int]]:
    """``name -> (bytes, tokens)`` for each tool dict, in order."""
    count = token_counter(tokenizer)
    return {str(tool.get("name")): (wire_bytes(tool), count(tool)) for tool in tools}


def check_budget(
    tools: list[dict[str, Any]],
    max_tool_bytes: int | None,
    max_total_bytes: int | None,
    tokenizer: str = BYTES_PER_TOKEN,
) -> list[Finding]:
    """A ``warning`` for each tool over ``max_tool_bytes`` and for a payload over
    ``max_total_bytes``."""
    found: list[Finding] = []
    sizes = tool_sizes(tools, tokenizer)
    if max_tool_bytes is not None:
        for name, (size, tokens) in sizes.items():
            if size > max_tool_bytes:
                found.append(
                    Finding(
                        "size",
                        name,
                        "",
                        "size_budget",
                        "warning",
                        f"{size} bytes (~{tokens} tokens, {tokenizer}) is over max_tool_bytes = "
                        f"{max_tool_bytes}",
                    )
                )
    total = payload_bytes(tools)
    if max_total_bytes is not None and total > max_total_bytes:
        found.append(
            Finding(
                "size",
                "(all tools)",
                "",
                "size_budget",
                "warning",
                f"tools/list is {total} bytes (~{token_counter(tokenizer)({'tools': tools})} "
                f"tokens, {tokenizer}) for {len(tools)} tools; over max_total_bytes = "
                f"{max_total_bytes}",
            )
        )
    return found
