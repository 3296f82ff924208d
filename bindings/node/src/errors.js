// The two error types of the binding: ToolerrError for a failed call into
// the module, ClientError for a tool's failure as an MCP client sees it.

/**
 * A call into toolerr.wasm failed. `code` is the ABI code: INVALID_REQUEST,
 * REQUEST_TOO_LARGE or INTERNAL from the module, TRAP from this binding when
 * the module itself failed (the plugin is then replaced) or could not be
 * loaded (then `cause` is why). The message comes from the module and names
 * the field at fault.
 */
export class ToolerrError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'ToolerrError';
    this.code = code;
  }
}

/**
 * A tool's failure as a client sees it: the parsed envelope of an isError
 * CallToolResult. `code` is VALIDATION_ERROR for a <validation_error>, and
 * UNKNOWN when the result holds no envelope; `raw` is the result itself.
 */
export class ClientError extends Error {
  constructor(fields) {
    super(fields.message);
    this.name = 'ClientError';
    this.kind = fields.kind ?? null;
    this.code = fields.code;
    this.severity = fields.severity ?? 'error';
    this.recovery = fields.recovery ?? null;
    this.availableActions = fields.availableActions ?? [];
    this.details = fields.details ?? {};
    this.retryAfter = fields.retryAfter ?? null;
    this.action = fields.action ?? null;
    this.fields = fields.fields ?? [];
    this.contract = fields.contract ?? null;
    this.raw = fields.raw;
  }
}
