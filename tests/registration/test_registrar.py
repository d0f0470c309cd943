"""``mcp_codegen._registration.registrar``: how the generator and the runtime reach tools defined inside
registration functions, for every decorator spelling the frameworks accept."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_codegen._registration.registrar import RegistrarError, capture


def register(app: Any, prefix: str = "kb") -> list[Any]:
    @app.tool
    def bare() -> str:
        return "bare"

    @app.tool()
    def called() -> str:
        return "called"

    @app.tool("positional_name", title="Named")
    def named() -> str:
        return "named"

    def added() -> str:
        return "added"

    app.add_tool(added, name=f"{prefix}_added")
    return [bare, called, named]


def test_every_spelling_is_recorded_and_the_functions_are_unchanged() -> None:
    found = capture(register, "app")
    assert sorted(found) == [
        "register.<locals>.added",
        "register.<locals>.bare",
        "register.<locals>.called",
        "register.<locals>.named",
    ]
    assert {name: function() for name, function in found.items()} == {
        "register.<locals>.added": "added",
        "register.<locals>.bare": "bare",
        "register.<locals>.called": "called",
        "register.<locals>.named": "named",
    }


def test_positional_only_server_parameter() -> None:
    def setup(server: Any, /) -> None:
        @server.tool()
        def ping() -> str:
            return "pong"

    assert list(capture(setup, "server")) == [
        "test_positional_only_server_parameter.<locals>.setup.<locals>.ping"
    ]


@pytest.mark.parametrize(
    ("registrar", "message"),
    [
        (lambda app, database: None, "also needs database"),
        (lambda server: None, "has no parameter 'app'"),
    ],
)
def test_registrars_that_cannot_be_called_are_refused(registrar: Any, message: str) -> None:
    with pytest.raises(RegistrarError, match=message):
        capture(registrar, "app")


def test_async_registrars_are_refused() -> None:
    async def register_async(app: Any) -> None:
        @app.tool()
        def later() -> None: ...

    with pytest.raises(RegistrarError, match="is async"):
        capture(register_async, "app")


def test_a_server_reached_through_an_attribute_is_recorded_and_then_closed() -> None:
    """``@ctx.mcp.tool()`` records like ``@app.tool()``; a tool body that uses ``ctx`` when it
    runs gets a clear error, not a recording stand-in it would silently call."""

    def register(ctx: Any) -> None:
        @ctx.mcp.tool(title="Region")
        def region() -> str:
            return str(ctx.region)

        ctx.mcp.add_tool(lambda: None)

    recorded = {name.rpartition("register.")[2]: f for name, f in capture(register, "ctx").items()}
    assert sorted(recorded) == ["<locals>.<lambda>", "<locals>.region"]
    with pytest.raises(RegistrarError, match="a tool used 'region' of the object its"):
        recorded["<locals>.region"]()
