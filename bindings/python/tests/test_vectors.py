"""Every conformance vector through the binding's raw call, byte for byte.

How a case is compared: the request bytes are the text of a string input,
or the input compacted with its number spelling and its escapes kept
(vectors.Case.request). The module's response text must equal the case's
output, a string holding the exact response, as every runner compares it;
nothing is re-encoded. An expected error must come back as a ToolerrError
with exactly its code and message. Every case runs on every way the binding
runs the module (engines.VARIANTS): the raw engine on Winch's code and on
Cranelift's, and the extism engine.
"""

from __future__ import annotations

import pytest
import toolerr
from engines import VARIANTS, shared_module
from vectors import Case, load_cases

CASES = load_cases()


def test_every_export_has_vectors() -> None:
    exports = {c.export for c in CASES}
    assert exports >= set(toolerr.describe()["exports"]) - {"validate"}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_vector(case: Case, variant: str) -> None:
    module = shared_module(variant)
    if case.error is not None:
        with pytest.raises(toolerr.ToolerrError) as raised:
            module.call(case.export, case.request())
        assert (raised.value.code, raised.value.message) == (case.error["code"], case.error["message"])
        return
    assert module.call(case.export, case.request()) == case.output
