// ToolErrorBuilder: a <tool_error> under construction, fluent and lazy.
import { EXPORT } from './abi.js';

/**
 * ToolErrorBuilder is a tool error under construction. It is a thenable:
 * `await b` (or returning b from an async handler) renders it through the
 * module into a CallToolResult, so it never needs a .build(). It is also an
 * Error, so it can be thrown: a wrap()ped handler delivers it intact.
 *
 *   throw error('NOT_FOUND', 'No invoice with that ID')
 *     .suggest('List invoices first, then retry with a real ID')
 *     .actions('billing.list_invoices')
 *     .details({ requestedId: id });
 *
 * Nothing is checked here: a bad value is reported by the module, as a
 * ToolerrError naming the field, when the builder is rendered.
 */
export class ToolErrorBuilder extends Error {
  #toolerr;
  #request;

  constructor(code, message, toolerr) {
    super(typeof message === 'string' ? message : '');
    this.name = 'ToolErrorBuilder';
    this.#toolerr = toolerr;
    this.#request = { code };
    if (message !== undefined) this.#request.message = message;
  }

  /** @internal sets the request fields of toolError(code, {message, ...}) as given. */
  _assign(options) {
    if (options === null || typeof options !== 'object') {
      this.#request.options = options; // reported by the module as an unknown field
      return this;
    }
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined) continue;
      if (key === 'details') this.details(value);
      else this.#request[key] = value;
    }
    if (typeof this.#request.message === 'string') this.message = this.#request.message;
    return this;
  }

  /** code is the tool error's code. */
  get code() {
    return this.#request.code;
  }

  /** suggest sets the recovery the model should follow. */
  suggest(suggestion) {
    this.#request.suggestion = suggestion;
    return this;
  }

  /** actions appends tools the model may call next. */
  actions(...names) {
    this.#request.availableActions = [...(this.#request.availableActions ?? []), ...names.flat()];
    return this;
  }

  /** severity sets 'error' (default), 'critical' or 'warning'. */
  severity(severity) {
    this.#request.severity = severity;
    return this;
  }

  /** details appends details, in order, from an object, a Map, or one key and value. */
  details(entries, value) {
    const details = this.#request.details instanceof Map ? this.#request.details : new Map();
    if (typeof entries === 'string' && arguments.length === 2) {
      details.set(entries, value);
    } else if (entries instanceof Map) {
      for (const [k, v] of entries) details.set(k, v);
    } else if (entries !== null && typeof entries === 'object' && !Array.isArray(entries)) {
      for (const [k, v] of Object.entries(entries)) details.set(k, v);
    } else {
      this.#request.details = entries; // not an object: the module reports it
      return this;
    }
    this.#request.details = details;
    return this;
  }

  /** retryAfter sets the seconds to wait before retrying. */
  retryAfter(seconds) {
    this.#request.retryAfter = seconds;
    return this;
  }

  /** request returns the tool_error request built so far (details as a Map, in order). */
  get request() {
    const copy = { ...this.#request };
    if (copy.details instanceof Map) copy.details = new Map(copy.details);
    return copy;
  }

  /** render renders the envelope, through toolerr or the one this builder came from. */
  async render(toolerr) {
    const t = toolerr ?? this.#toolerr ?? (await (await defaultModule()).defaultToolerr());
    return t.callJSON(EXPORT.toolError, this.#request);
  }

  /** then makes the builder a PromiseLike<CallToolResult>. */
  then(onFulfilled, onRejected) {
    return this.render().then(onFulfilled, onRejected);
  }
}

// default.js is imported when first needed, not at the top: it loads toolerr.js, which builds its
// errors with this class. The import is made once (an import() per render cost a module-level
// toolError() more than the module's own work).
let defaultImport = null;
function defaultModule() {
  defaultImport ??= import('./default.js');
  return defaultImport;
}
