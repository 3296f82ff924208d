"""Drive a README's first example, an MCP server on stdio, as a client
would: initialize, then two calls of billing.get_invoice, one with
arguments the tool's schema refuses and one its handler answers with the
NOT_FOUND tool error. Checks both envelopes, that the server exits when its
stdin closes, and that it wrote nothing on stderr. With --quickstart (a
quickstart of examples/, which has billing.export_invoices), a third call
whose handler crashes must answer INTERNAL_ERROR, still with nothing on
stderr. Standard library only.

    python3 drive.py [--quickstart] [--] COMMAND [ARG...]

Any byte on the server's stderr is a failure. Exits 0 when every check
holds, else 1 with what went wrong on stderr.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading

TIMEOUT = 60.0
REQUESTS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "toolerr-install-check", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
     "params": {"name": "billing.get_invoice", "arguments": {"id": 5}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
     "params": {"name": "billing.get_invoice", "arguments": {"id": "inv_404"}}},
]
# What the first text block of each call's result starts with.
EXPECT = {
    2: '<validation_error action="billing.get_invoice">',
    3: '<tool_error code="NOT_FOUND" severity="error">',
}


CRASH = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "billing.export_invoices", "arguments": {}}}
CRASH_EXPECT = '<tool_error code="INTERNAL_ERROR" severity="error">\n<message>[billing.export_invoices] '


def main(argv: list[str]) -> int:
    quickstart = bool(argv) and argv[0] == "--quickstart"
    if quickstart:
        argv = argv[1:]
    command = argv[1:] if argv and argv[0] == "--" else argv
    requests = REQUESTS + [CRASH] if quickstart else REQUESTS
    expect = {**EXPECT, 4: CRASH_EXPECT} if quickstart else EXPECT
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8"
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    errors: list[str] = []
    stderr_chunks: list[str] = []
    threading.Thread(target=read_stdout, daemon=True).start()
    reader = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read() if proc.stderr else ""), daemon=True)
    reader.start()

    answers: dict[int, dict[str, object]] = {}
    try:
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            if "id" not in request:
                continue
            while request["id"] not in answers:
                line = lines.get(timeout=TIMEOUT)
                if line is None:
                    raise EOFError("the server closed its stdout")
                message = json.loads(line)
                if "id" in message:
                    answers[message["id"]] = message
    except (queue.Empty, EOFError, BrokenPipeError, json.JSONDecodeError) as exc:
        errors.append(f"no answer to every request: {type(exc).__name__}: {exc}")
    finally:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    try:
        status = proc.wait(timeout=TIMEOUT)
        if status != 0:
            errors.append(f"the server exited with status {status}")
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        errors.append(f"the server did not exit within {TIMEOUT:.0f}s of its stdin closing")
    reader.join(timeout=TIMEOUT)

    for id_, prefix in expect.items():
        answer = answers.get(id_)
        if answer is None:
            continue
        result = answer.get("result")
        if not isinstance(result, dict):
            errors.append(f"call {id_}: no result: {json.dumps(answer)[:500]}")
            continue
        content = result.get("content") or [{}]
        text = content[0].get("text", "") if isinstance(content[0], dict) else ""
        if result.get("isError") is not True or not text.startswith(prefix):
            errors.append(f"call {id_}: want isError and {prefix!r}..., got {json.dumps(result)[:500]}")
    stderr = "".join(stderr_chunks)
    if stderr:
        errors.append(f"the server wrote on stderr:\n{stderr}")
    for error in errors:
        print(f"drive: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
