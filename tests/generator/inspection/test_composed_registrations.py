"""A composing server's renamed copy of another server's tool is no omission (issue 19 item 4).

fastmcp 3.x ``import_server`` copies each tool of the imported server and registers the copy,
renamed ``prefix_name``, with ``add_tool`` on the importing server; the omission check saw a
tool registered under a name computed at run time. The watcher now marks a registration of a
function already registered in another server's store under another name as a copy. Checked
here with the real fastmcp 4.x store and the same copy ``import_server`` makes; a function
registered twice in one store under a computed name stays a plain registration (reported).
"""

from __future__ import annotations

from fastmcp import FastMCP

from mcp_codegen._generator.inspection import registrations


def _recorded_during(action) -> list[registrations.Registration]:  # type: ignore[no-untyped-def]
    registrations.watch()
    before = len(registrations.recorded())
    with registrations.recording():
        action()
    return registrations.recorded()[before:]


def test_a_copy_on_another_server_is_marked_a_copy() -> None:
    def run() -> None:
        wiki, main = FastMCP("wiki"), FastMCP("main")

        @wiki.tool()
        def search(text: str) -> str:
            """Search."""
            return text

        (tool,) = [t for t in wiki._local_provider._components.values() if t.name == "search"]
        main.add_tool(tool.model_copy(update={"name": "wiki_search"}))  # import_server's copy

    first, copy = _recorded_during(run)
    assert (first.name, first.copy_of) == ("search", None)
    assert (copy.name, copy.copy_of) == ("wiki_search", "search")


def test_a_second_name_on_the_same_server_is_not_a_copy() -> None:
    def run() -> None:
        server = FastMCP("one")

        def search(text: str) -> str:
            """Search."""
            return text

        server.tool(name="search")(search)
        server.tool(name="find_" + "things")(search)

    first, second = _recorded_during(run)
    assert (second.name, second.copy_of) == ("find_things", None)
    assert first.copy_of is None


def test_the_same_function_on_another_server_under_its_own_name_is_not_a_copy() -> None:
    """Registered again on a second server under a name that is not a composition's
    ``prefix_name``: the user's own registration, checked as any other (it was taken for a copy,
    and a tool no form generated was dropped without a word)."""

    def run() -> None:
        one, two = FastMCP("one"), FastMCP("two")

        def search(text: str) -> str:
            """Search."""
            return text

        one.tool(name="search")(search)
        two.tool(name="lookup")(search)

    first, second = _recorded_during(run)
    assert (first.name, first.copy_of, first.function_name) == ("search", None, "search")
    assert (second.name, second.copy_of, second.function_name) == ("lookup", None, "search")
