"""``python -m toolerr.batch``: every vector through the batch protocol, and
its behaviour on bad lines, on both engines (``--engine extism`` for the
extism one). stdout carries protocol lines only."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from engines import ENGINES
from vectors import compact_input, load_cases

CASES = load_cases()


def batch_command(engine: str) -> list[str]:
    return [sys.executable, "-m", "toolerr.batch"] + ([] if engine == "raw" else ["--engine", engine])


def run_batch(lines: list[bytes], engine: str = "raw", **env: str) -> list[bytes]:
    out = subprocess.run(
        batch_command(engine),
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        timeout=300,
        env={**os.environ, **env},
        check=True,
    )
    assert out.stderr == b""
    return out.stdout.splitlines()


def batch_line(export: str, input_json: bytes) -> bytes:
    return b'{"op":' + json.dumps(export).encode() + b',"input":' + input_json + b"}"


@pytest.mark.parametrize("engine", ENGINES)
def test_every_vector_through_the_batch(engine: str) -> None:
    lines = []
    for case in CASES:
        if isinstance(case.input, str) and type(case.input) is str:
            # A raw request travels as a JSON string whose text is the request.
            encoded = json.dumps(case.input).encode()
        else:
            # Any other input travels as the file writes it (escapes kept).
            encoded = compact_input(case.input).encode("utf-8", "backslashreplace")
        lines.append(batch_line(case.export, encoded))
    answers = run_batch(lines, engine)
    assert len(answers) == len(CASES)
    failures = []
    for case, answer in zip(CASES, answers):
        if case.error is not None:
            # An error line is compared by its code and message.
            try:
                got = json.loads(answer)
            except ValueError:
                got = None
            if got != {"error": {"code": case.error["code"], "message": case.error["message"]}}:
                failures.append(f"{case.id}:\n got {answer!r}\nwant error {case.error['code']}: {case.error['message']}")
        else:
            # An output is the exact response text.
            assert case.output is not None, case.id
            want = case.output.encode()
            if answer != want:
                failures.append(f"{case.id}:\n got {answer!r}\nwant {want!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_lines_get_error_lines_and_the_batch_goes_on(engine: str) -> None:
    lines = [
        b"not json",
        b'{"input":{}}',
        b'{"op":"no_such_export","input":{}}',
        b"[1,2]",
        b"",  # blank lines are skipped
        b'{"op":"tool_error","input":{"code":"X"}}',
        b'{"op":"describe"}',
        b'{"op":"escape","input":"{\\"text\\":\\"<\\",\\"context\\":\\"content\\"}"}',
        b'{"input":{"text":"a\\ud800b","context":"content"},"op":"escape"}',
        b'{"op":"escape","input":{"text":"\xff","context":"content"}}',
    ]
    answers = [json.loads(a) for a in run_batch(lines, engine, EXTISM_ENABLE_WASI_OUTPUT="1")]
    assert len(answers) == 9
    assert answers[0]["error"]["code"] == "INVALID_REQUEST"
    assert answers[0]["error"]["message"] == 'batch: line 1 is not a JSON object {"op","input"}'
    assert answers[1] == {"error": {"code": "INVALID_REQUEST", "message": 'batch: line 2: "op" must be a non-empty string'}}
    assert answers[2] == {"error": {"code": "INVALID_REQUEST", "message": 'unknown export "no_such_export"'}}
    assert answers[3]["error"]["code"] == "INVALID_REQUEST"
    assert answers[4] == {"error": {"code": "INVALID_REQUEST", "message": 'tool_error: "message" is required'}}
    assert answers[5]["abiVersion"].startswith("1.")
    assert answers[6] == {"text": "&lt;"}
    assert answers[7] == {"text": "a\ufffdb"}
    assert answers[8] == {"text": "\ufffd"}


@pytest.mark.parametrize("engine", ENGINES)
def test_stdout_carries_only_protocol_lines(engine: str) -> None:
    # With the Extism debug switch set, the batch still writes nothing but
    # one JSON line per request.
    out = subprocess.run(
        batch_command(engine),
        input=b'{"op":"describe","input":{}}\n{"op":"describe","input":[]}\n',
        capture_output=True,
        timeout=300,
        env={**os.environ, "EXTISM_ENABLE_WASI_OUTPUT": "1"},
        check=True,
    )
    assert out.stderr == b""
    lines = out.stdout.split(b"\n")
    assert lines[-1] == b""
    assert len(lines) == 3
    assert json.loads(lines[0])["exports"]
    assert json.loads(lines[1])["error"]["code"] == "INVALID_REQUEST"


def test_an_unknown_engine_is_a_usage_error() -> None:
    out = subprocess.run([sys.executable, "-m", "toolerr.batch", "--engine", "wasm"], input=b"", capture_output=True,
                         timeout=300)
    assert (out.returncode, out.stdout) == (2, b"")
    assert out.stderr == b"usage: python -m toolerr.batch [--engine raw|extism]\n"
