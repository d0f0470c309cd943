"""Golden tests for every example in seed 000: the runner of its case files.

Each case is one file, ``tests/fixtures/seed000/<tool>.py``: the source, then its expected
schemas in a ``# expected schema:`` comment block (tests/helpers/golden.py). The expected schemas
were derived by hand from the rules (docs/seed-deviations.md lists where seed 000's printed
output contradicts the types); never regenerate them from the generator's output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.pipeline import build
from tests.helpers.golden import SEED000 as FIXTURES
from tests.helpers.golden import read_case, seed_cases
from tests.helpers.project import REPO

CASES = seed_cases()


def _build(sources: tuple[Path, ...], output: Path) -> dict[str, dict]:
    config = Config(root=REPO, config_file=REPO / "pyproject.toml", sources=sources, output=output)
    result = build(config)
    assert not result.errors, "\n".join(map(str, result.errors))
    return {
        definition.source.module.rsplit(".", 1)[-1]: tool.wire
        for definition in result.definitions
        for tool in definition.tools
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    # Seed 000 names two different tools ``analyze``; one project may not, so build them apart.
    second = FIXTURES / "examples_analyze.py"
    first = tuple(p for p in sorted(FIXTURES.glob("*.py")) if p != second)
    out = tmp_path_factory.mktemp("out")
    return {**_build(first, out / "a"), **_build((second,), out / "b")}


def test_every_seed_example_has_an_expectation() -> None:
    modules = {p.stem for p in FIXTURES.glob("*.py")} - {"__init__", "openmcp"}
    assert modules == {p.stem for p in CASES}
    assert len(modules) == 14
    for case in CASES:
        source, expected = read_case(case)  # raises when the block is missing or malformed
        assert set(expected) == {"inputSchema", "outputSchema"}, case
        assert "@tool" in source, case


@pytest.mark.process
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_seed_example_schemas(built: dict[str, dict], case: Path) -> None:
    _, expected = read_case(case)
    tool = built[case.stem]
    assert tool["inputSchema"] == expected["inputSchema"]
    assert tool.get("outputSchema") == expected["outputSchema"]


@pytest.mark.process
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_seed_example_schemas_are_valid_2020_12_objects(built: dict[str, dict], case: Path) -> None:
    tool = built[case.stem]
    for key in ("inputSchema", "outputSchema"):
        if key in tool:
            Draft202012Validator.check_schema(tool[key])
            assert tool[key]["type"] == "object"


@pytest.mark.process
def test_boxing_is_recorded_for_scalar_returns(built: dict[str, dict]) -> None:
    answer = built["answer"]["outputSchema"]
    assert answer["x-dedalus-box"] == {"field": "result"}
    assert answer["required"] == ["result"]
    assert answer["properties"]["result"] == {"type": "integer"}


@pytest.mark.process
def test_greet_description_is_never_a_placeholder(built: dict[str, dict]) -> None:
    for tool in built.values():
        for name, prop in tool["inputSchema"].get("properties", {}).items():
            assert prop.get("description") != f"Parameter {name}"
