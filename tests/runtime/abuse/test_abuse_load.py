"""Under load on loopback, no response is lost: bench/load.py at its full size, checked.

The benchmark prints throughput and latency; this test only asserts what must hold on any
machine: every call answered, every answer the right one. 10,000 sequential stdio calls and
100 concurrent streamable HTTP clients (10 calls each) take about 40 s on 2 cores.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.runtime.abuse.abuse_support import REPO_ROOT

pytestmark = pytest.mark.process

STDIO_CALLS = 10_000
HTTP_CLIENTS = 100
CALLS_PER_CLIENT = 10


@pytest.mark.slow
def test_no_response_is_lost_under_sequential_stdio_and_concurrent_http_load() -> None:
    completed = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "load.py"),
            "--calls",
            str(STDIO_CALLS),
            "--clients",
            str(HTTP_CLIENTS),
            "--calls-per-client",
            str(CALLS_PER_CLIENT),
            "--deadline",
            "60",
            "--json",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.stdout, completed.stderr
    stdio, http = json.loads(completed.stdout)

    assert stdio["calls"] == STDIO_CALLS
    assert http["calls"] == HTTP_CLIENTS * CALLS_PER_CLIENT
    for outcome in (stdio, http):
        assert (outcome["lost"], outcome["errors"]) == (0, 0), outcome
        assert outcome["answered"] == outcome["calls"]
        assert outcome["throughput"] > 0
    assert completed.returncode == 0, completed.stderr
