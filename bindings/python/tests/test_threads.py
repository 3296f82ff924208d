"""Concurrent calls: a pool of instances, every result checked, on every way the binding runs the
module (engines.VARIANTS)."""

from __future__ import annotations

import threading

import pytest
import toolerr
from engines import VARIANTS, open_module

THREADS = 8
CALLS = 1000


def test_eight_threads_a_thousand_calls_each() -> None:
    failures: list[str] = []
    barrier = threading.Barrier(THREADS)

    def work(n: int) -> None:
        barrier.wait()
        for i in range(CALLS):
            message = f"thread {n} call {i} <&>"
            want = (
                f'<tool_error code="T{n}" severity="error">\n<message>thread {n} call {i} &lt;&amp;></message>\n'
                f"<details>\n  <detail key=\"i\">{i}</detail>\n</details>\n</tool_error>"
            )
            try:
                got = toolerr.tool_error(f"T{n}", message, details={"i": i}).content[0].text  # type: ignore[union-attr]
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                failures.append(f"{n}/{i}: {exc!r}")
                continue
            if got != want:
                failures.append(f"{n}/{i}: {got!r}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert 1 <= toolerr.default().live_instances <= THREADS


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_small_pool_serves_more_threads_than_instances(variant: str) -> None:
    module = open_module(variant, max_instances=2)
    results: list[str] = []
    lock = threading.Lock()

    def work(n: int) -> None:
        for i in range(50):
            out = module.call("escape", {"text": f"{n}<{i}", "context": "content"})
            with lock:
                results.append(out)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(f'{{"text":"{n}&lt;{i}"}}' for n in range(6) for i in range(50))
    assert module.live_instances <= 2
    module.close()
