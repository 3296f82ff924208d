"""result_text reads the first text block of any CallToolResult."""

from __future__ import annotations

from mcp_types import CallToolResult, ImageContent, TextContent

import toolerr


def test_result_text_of_a_rendered_result() -> None:
    result = toolerr.required("id")
    block = result.content[0]
    assert isinstance(block, TextContent) and toolerr.result_text(result) == block.text
    assert toolerr.result_text(result).startswith('<tool_error code="MISSING_REQUIRED_FIELD">')


def test_result_text_skips_other_blocks_and_reads_dicts() -> None:
    image = ImageContent(type="image", data="AA==", mime_type="image/png")
    mixed = CallToolResult(content=[image, TextContent(type="text", text="first"), TextContent(type="text", text="2")])
    assert toolerr.result_text(mixed) == "first"
    assert toolerr.result_text({"content": [{"type": "image"}, {"type": "text", "text": "t"}], "isError": True}) == "t"


def test_result_text_of_no_text_is_empty() -> None:
    assert toolerr.result_text(CallToolResult(content=[])) == ""
    assert toolerr.result_text({"content": [{"type": "text", "text": 5}]}) == ""
    assert toolerr.result_text({}) == ""
    assert toolerr.result_text({"content": "text"}) == ""


def test_guarded_handlers_return_their_value_or_the_envelope() -> None:
    @toolerr.guard("billing.get_invoice")
    def get_invoice(invoice_id: str) -> dict[str, str]:
        if invoice_id == "inv_001":
            return {"id": invoice_id}
        raise toolerr.error("NOT_FOUND", "No invoice with that ID")

    assert get_invoice("inv_001") == {"id": "inv_001"}
    assert toolerr.result_text(get_invoice("inv_999")).startswith('<tool_error code="NOT_FOUND"')
    assert get_invoice.__name__ == "get_invoice"
