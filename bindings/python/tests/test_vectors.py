"""Every conformance vector through the binding's raw call, byte for byte.

How a case is compared: the request bytes are the text of a string input,
or the input compacted with its number spelling and its escapes kept
(vectors.Case.request). The module's response text must equal the expected
output written canonically (vectors.canonical: members in file order,
JSON.stringify strings, ECMAScript numbers), byte for byte, as the Go runner
compares with vectors.Canonical. The canonical writer is test code with its
own table test (test_canonical.py); the binding itself writes no number. An
expected error must come back as a ToolerrError with exactly its code and
message.
"""

from __future__ import annotations

import pytest
import toolerr
from vectors import Case, canonical, load_cases

CASES = load_cases()


def test_every_export_has_vectors() -> None:
    exports = {c.export for c in CASES}
    assert exports >= set(toolerr.describe()["exports"]) - {"validate"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_vector(case: Case) -> None:
    module = toolerr.default()
    if case.error is not None:
        with pytest.raises(toolerr.ToolerrError) as raised:
            module.call(case.export, case.request())
        assert (raised.value.code, raised.value.message) == (dict(case.error)["code"], dict(case.error)["message"])
        return
    assert module.call(case.export, case.request()) == canonical(case.output)
