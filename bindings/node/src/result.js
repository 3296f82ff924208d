// resultText: what an MCP CallToolResult says, as text. Not contract logic:
// it only reads the result; the envelope in it comes from toolerr.wasm.

/**
 * resultText returns the text of the first text block of an MCP
 * CallToolResult (one toolerr rendered, a tool's own, or one an MCP client
 * received), or '' when it has none.
 */
export function resultText(result) {
  const content = result?.content;
  if (!Array.isArray(content)) return '';
  const block = content.find((c) => c?.type === 'text');
  return typeof block?.text === 'string' ? block.text : '';
}
