"""The raw engine's compilation cache and its first start.

A process that finds the module's Cranelift build in the binding's cache
(``$XDG_CACHE_HOME/toolerr/wasmtime-py``) deserializes it; one that does not
compiles with Winch, answers from it at once, compiles with Cranelift in a
background thread, writes the cache entry (whole or not at all), serves new
calls from Cranelift's code, retires Winch's instances as they come back to
the pool, and at exit waits for that compile, so that the next process finds
the cache filled. A damaged entry, or a cache that cannot be written, only
costs a compile. Each case runs in fresh interpreters with a cache folder of
its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from toolerr import _engine, _wasmtime

REQUEST = {"code": "NOT_FOUND", "message": "No invoice <inv_999>", "details": {"id": "inv_999"}}

#: One start: the compiler its first instances run, then one answer, each on a line.
START = f"""
import toolerr
module = toolerr.Toolerr()
print(module.compiler)
print(module.call("tool_error", {REQUEST!r}))
"""


def run(code: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300, env=env)


def start(cache: Path) -> tuple[str, str]:
    """A fresh process's compiler and answer; it must exit cleanly and write nothing on stderr."""
    out = run(START, cache)
    assert (out.returncode, out.stderr) == (0, ""), out.stderr
    compiler, answer = out.stdout.splitlines()
    return compiler, answer


def entries(cache: Path) -> list[Path]:
    """The files of the binding's cache folder (a temporary file left behind among them)."""
    folder = cache / "toolerr" / "wasmtime-py"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_a_first_start_answers_from_winch_and_the_next_one_deserializes(tmp_path: Path) -> None:
    compiler, first = start(tmp_path)
    assert compiler == "winch"
    assert json.loads(first)["isError"] is True
    # The exit waited for the Cranelift compile: the entry is there, whole, and nothing else.
    [entry] = entries(tmp_path)
    assert entry.suffix == ".cwasm" and entry.stat().st_size > 1 << 20
    assert start(tmp_path) == ("cranelift", first)  # the same bytes from the other compiler
    assert entries(tmp_path) == [entry]


def test_a_first_start_moves_to_cranelift_and_retires_winch_instances(tmp_path: Path) -> None:
    out = run(f"""
    import threading
    import toolerr
    module = toolerr.Toolerr(max_instances=4)
    request = {REQUEST!r}
    want = module.call("tool_error", request)
    assert module.compiler == "winch"
    assert [i.code.compiler for i in module._idle] == ["winch"]
    held = module._acquire()  # busy while the compile ends: dropped when it comes back
    failures = []

    def work() -> None:
        for _ in range(300):
            got = module.call("tool_error", request)
            if got != want:
                failures.append(got)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    assert module.wait_compiled(120) and module.compiler == "cranelift"
    for t in threads:
        t.join()
    assert failures == []
    live = module.live_instances
    module._release(held)
    assert module.live_instances == live - 1, "a Winch instance is retired when it comes back"
    for _ in range(8):
        assert module.call("tool_error", request) == want
    # The idle Winch instances were dropped when the first of them was taken: Cranelift's
    # serve alone.
    assert [i.code.compiler for i in module._idle] == ["cranelift"]
    assert module.live_instances == 1
    print("ok", module.live_instances)
    """, tmp_path)
    assert (out.returncode, out.stderr) == (0, ""), out.stderr
    assert out.stdout.startswith("ok ")
    assert len(entries(tmp_path)) == 1


def test_a_damaged_cache_entry_is_compiled_again_and_rewritten(tmp_path: Path) -> None:
    _, answer = start(tmp_path)
    [entry] = entries(tmp_path)
    whole = entry.read_bytes()
    middle = len(whole) // 2
    # Winch's build of the same module: another configuration's code, which wasmtime refuses.
    winch = bytes(_wasmtime._compile("winch", _engine.with_memory_max(_engine.packaged_wasm()[0], 8192)).serialize())
    damaged = {
        "a byte flipped": whole[:middle] + bytes([whole[middle] ^ 1]) + whole[middle + 1 :],
        "cut short": whole[: len(whole) // 3],
        "empty": b"",
        # Bytes whose digest matches but which wasmtime refuses.
        "not a module": b"garbage" * 1000 + hashlib.sha256(b"garbage" * 1000).hexdigest().encode(),
        "another configuration's build": winch + hashlib.sha256(winch).hexdigest().encode(),
    }
    for how, data in damaged.items():
        entry.write_bytes(data)
        assert start(tmp_path) == ("winch", answer), how
        assert entries(tmp_path) == [entry], how
        assert entry.read_bytes() != data, f"{how}: the entry was rewritten"
        assert start(tmp_path) == ("cranelift", answer), how


def test_a_cache_that_cannot_be_written_only_costs_a_compile(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go\n")
    first = start(blocked)
    assert first[0] == "winch"
    assert start(blocked) == first  # compiled again, and answered the same
    assert blocked.read_text() == "a file where the cache folder would go\n"


def test_the_cache_entry_is_named_by_the_module_and_the_settings(tmp_path: Path) -> None:
    """A module capped at another memory maximum is other bytes: an entry of its own."""
    out = run("""
    import hashlib
    import toolerr
    from toolerr import _engine, _wasmtime
    wasm, _ = _engine.packaged_wasm()
    for pages in (8192, 4096):
        module = toolerr.Toolerr(memory_max_pages=pages)
        capped = hashlib.sha256(_engine.with_memory_max(wasm, pages)).hexdigest()
        print(_wasmtime.cache_entry(capped).relative_to(_wasmtime.cache_dir()).as_posix(), module.compiler)
    print(_wasmtime.settings())
    """, tmp_path)
    assert (out.returncode, out.stderr) == (0, ""), out.stderr
    first, second, settings = out.stdout.splitlines()
    assert first.endswith(".cwasm winch") and second.endswith(".cwasm winch") and first != second
    assert settings.startswith("wasmtime-py 51.0.0; ") and settings.endswith("; cranelift; epoch_interruption")
    assert [e.name for e in entries(tmp_path)] == sorted([first.split()[0], second.split()[0]])
