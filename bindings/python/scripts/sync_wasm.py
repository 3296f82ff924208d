#!/usr/bin/env python3
"""Copy plugin/toolerr.wasm into the Python package and record its sha256.

`make wasm` runs this after rebuilding the module; CI diffs the result. The
packaged copy (bindings/python/src/toolerr/toolerr.wasm) is never edited by
hand. The digest file has the same format as plugin/toolerr.wasm.sha256
(`sha256sum` output), and this script refuses to write a copy whose digest
differs from that file.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "plugin" / "toolerr.wasm"
SOURCE_DIGEST = ROOT / "plugin" / "toolerr.wasm.sha256"
PACKAGE = ROOT / "bindings" / "python" / "src" / "toolerr"


def main() -> int:
    data = SOURCE.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    recorded = SOURCE_DIGEST.read_text().split()[0].lower()
    if digest != recorded:
        print(
            f"sync_wasm: {SOURCE} has sha256 {digest}, but {SOURCE_DIGEST} records {recorded}",
            file=sys.stderr,
        )
        return 1
    shutil.copyfile(SOURCE, PACKAGE / "toolerr.wasm")
    (PACKAGE / "toolerr.wasm.sha256").write_text(f"{digest}  toolerr.wasm\n")
    print(f"sync_wasm: {PACKAGE / 'toolerr.wasm'} sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
