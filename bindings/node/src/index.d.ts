// Types of the toolerr package (hand-written; src/*.js is the code). The ABI's own request and
// response objects are in abi.d.ts, generated from abi/abi.json by `go run ./abi/gen`: an option
// that is such an object, or part of one, is declared from it here.
import type {
  Delta,
  Contract as ContractRequest,
  DetailValue,
  Details as DetailsObject,
  EscapeContext,
  InternalErrorRequest,
  RateLimitedRequest,
  ServerBusyRequest,
  Severity,
  ToolErrorRequest,
} from './abi.js';

export type { DetailValue, EscapeContext, InternalErrorRequest, RateLimitedRequest, ServerBusyRequest, Severity };

/** One text block of an MCP CallToolResult. */
export interface TextContent {
  type: 'text';
  text: string;
}

/** An MCP CallToolResult as toolerr.wasm renders it. */
export interface CallToolResult {
  content: TextContent[];
  isError: boolean;
  [key: string]: unknown;
}

/** Any MCP CallToolResult, as a client receives it. */
export interface AnyCallToolResult {
  content?: ReadonlyArray<{ type: string; text?: string }>;
  isError?: boolean;
  [key: string]: unknown;
}

/** A tool error's details, in order: an object, or a Map (which keeps integer-like keys in order too). */
export type Details = DetailsObject | Map<string, DetailValue>;

/** The options of toolError(code, options): the tool_error request but its code; details may be a Map. */
export interface ToolErrorOptions extends Omit<ToolErrorRequest, 'code' | 'details'> {
  details?: Details;
}

/** A delta of a behavioural contract, for contract awareness; before and after may be left out. */
export interface ContractDelta extends Omit<Delta, 'before' | 'after'> {
  before?: string | null;
  after?: string | null;
}

/** An MCP Tool as tools/list returns it; name, title, description, inputSchema, outputSchema and annotations are its contract. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  outputSchema?: object;
  annotations?: object;
  [key: string]: unknown;
}

/** A lockfile, as contractLock writes it (and `toolerr lock`). */
export interface Lockfile {
  lockfileVersion: number;
  digest: string;
  tools: Array<{ name: string; digest: string; contract: McpTool }>;
}

/** What contractLock and contractDiff read: a Tool array, a tools/list result or a lockfile. */
export type ToolSet = ReadonlyArray<McpTool> | { tools: ReadonlyArray<McpTool>; [key: string]: unknown } | Lockfile;

/** What changed between two sets of tools, most severe first. */
export interface ContractDiff {
  deltas: Array<ContractDelta & { category: string; before: string | null; after: string | null }>;
  maxSeverity: ContractDelta['severity'] | null;
  backwardsCompatible: boolean;
}

/** The members of a contract besides its deltas, or its lockfile and tools. */
export interface ContractOptions extends Pick<ContractRequest, 'tool' | 'action' | 'maxDeltas' | 'includeAllSeverities'> {}

/**
 * The contract awareness of a validation error: the deltas of a diff, or a
 * lockfile and the current tools for the module to diff (cached by digest).
 */
export type Contract =
  | (ContractOptions & { deltas: ContractDelta[] })
  | (ContractOptions & { lockfile: Lockfile; tools: ToolSet });

export interface ToolErrorEnvelope {
  kind: 'tool_error';
  code: string;
  severity: Severity;
  isError: boolean;
  message: string;
  recovery: string | null;
  availableActions: string[];
  /** The text each detail shows, in order: a number 1.5 comes back as "1.5". */
  details: Record<string, string>;
  retryAfter: number | null;
}

export interface ContractChanges {
  tool: string;
  action: string;
  changeCount: number;
  maxSeverity: string;
  changes: Array<{ severity: string; field: string; description: string; before: string | null; after: string | null }>;
}

export interface ValidationErrorEnvelope {
  kind: 'validation_error';
  action: string;
  fields: Array<{ name: string; message: string }>;
  recovery: string | null;
  contract: ContractChanges | null;
}

export type Envelope = ToolErrorEnvelope | ValidationErrorEnvelope;

export type ValidateResult = { valid: true } | { valid: false; result: CallToolResult };

export interface Describe {
  abiVersion: string;
  version: string;
  exports: string[];
  codes: string[];
  severities: Severity[];
  limits: { maxRequestBytes: number; maxDepth: number };
}

/**
 * A failed call into toolerr.wasm; code is the ABI code (INVALID_REQUEST, REQUEST_TOO_LARGE, INTERNAL,
 * TIMEOUT, TRAP). A shared module that could not be loaded is TRAP, with what failed as its cause.
 */
export class ToolerrError extends Error {
  constructor(code: string, message: string, options?: { cause?: unknown });
  readonly name: 'ToolerrError';
  readonly code: string;
}

/** A tool's failure as a client sees it, parsed from an isError result. */
export class ClientError extends Error {
  readonly name: 'ClientError';
  readonly kind: 'tool_error' | 'validation_error' | null;
  /** VALIDATION_ERROR for a validation error; UNKNOWN when the result holds no envelope. */
  readonly code: string;
  readonly severity: Severity;
  readonly recovery: string | null;
  readonly availableActions: string[];
  readonly details: Record<string, string>;
  readonly retryAfter: number | null;
  /** Of a validation error. */
  readonly action: string | null;
  readonly fields: Array<{ name: string; message: string }>;
  readonly contract: ContractChanges | null;
  readonly raw: AnyCallToolResult;
}

/**
 * A tool error under construction. It is a PromiseLike<CallToolResult>
 * (await it, or return it from a handler: no build()) and an Error (throw
 * it from a wrapped handler).
 */
export class ToolErrorBuilder extends Error implements PromiseLike<CallToolResult> {
  readonly name: 'ToolErrorBuilder';
  readonly code: string;
  suggest(suggestion: string): this;
  actions(...names: Array<string | string[]>): this;
  severity(severity: Severity): this;
  details(entries: Details): this;
  details(key: string, value: DetailValue): this;
  retryAfter(seconds: number): this;
  /** The tool_error request built so far (details as a Map, in order). */
  readonly request: { code: string; message?: string; [key: string]: unknown };
  render(toolerr?: Toolerr): Promise<CallToolResult>;
  then<T = CallToolResult, E = never>(
    onFulfilled?: ((value: CallToolResult) => T | PromiseLike<T>) | null,
    onRejected?: ((reason: unknown) => E | PromiseLike<E>) | null,
  ): Promise<T | E>;
}

/**
 * What heal() takes: an McpServer of @modelcontextprotocol/sdk (SUPPORTED_SDK)
 * or of @modelcontextprotocol/server, the SDK's v2 packages (SUPPORTED_SERVER),
 * described by shape, as the SDK is an optional peer dependency. heal()
 * checks at run time that the instance has the methods it hooks.
 */
export interface HealableServer {
  registerTool(...args: never[]): unknown;
  connect(...args: never[]): Promise<void>;
}

/**
 * How a healed server answers a call to a tool it does not have (never registered, removed or
 * disabled: one its tools/list does not show): 'envelope' (the default), an isError result holding
 * UNKNOWN_ACTION with the name called and the server's tools, closest to it first; 'sdk', the SDK's
 * own answer (SDK 1.32: `MCP error -32602: Tool NAME not found`).
 */
export type UnknownToolAnswer = 'envelope' | 'sdk';

/** The options of heal(server, options). */
export interface HealOptions {
  /** How a call to a tool the server does not have is answered (default 'envelope'). */
  unknownTool?: UnknownToolAnswer;
}

/** The stdio gate's verdict on one line a client sent (abi/ABI.md, "The stdio gate"). */
export type GateVerdict =
  | { verdict: 'pass' }
  | { verdict: 'rewrite'; line: string }
  | { verdict: 'answer'; response: string }
  | { verdict: 'ignore'; reason: string };

/** Where gatedStdin() reads, writes the gate's answers and notes ignored lines. */
export interface GatedStdinOptions {
  /** What the client writes (default process.stdin). */
  input?: NodeJS.ReadableStream;
  /** What the client reads, shared with the SDK's transport (default process.stdout). */
  output?: NodeJS.WritableStream;
  /** Notes an ignored line (default: a line on stderr). */
  log?: (note: string) => void;
}

/** A tool handler: any arguments, a result or a promise of one. */
export type Handler<A extends unknown[], R> = (...args: A) => R | PromiseLike<R>;

/** A loaded toolerr.wasm. Calls are serialized per instance. */
export class Toolerr {
  private constructor();
  /** Runs an export on a raw request (string or bytes, sent as is) or a value (encoded as JSON); the response JSON text. */
  call(exportName: string, request?: unknown): Promise<string>;
  callJSON<T = unknown>(exportName: string, request?: unknown): Promise<T>;
  describe(): Promise<Describe>;
  close(): Promise<void>;
  toolError(code: string, options: ToolErrorOptions | string): ToolErrorBuilder;
  error(code: string, message: string): ToolErrorBuilder;
  simpleError(message: string, code?: string): Promise<CallToolResult>;
  required(field: string): Promise<CallToolResult>;
  internalError(message: string, options?: Omit<InternalErrorRequest, 'message'>): Promise<CallToolResult>;
  /** UNKNOWN_ACTION for a call to tool, which does not exist: tools are the server's, in its order (listed closest to tool first, at most 20). */
  unknownTool(tool: string, tools: readonly string[]): Promise<CallToolResult>;
  rateLimited(options: RateLimitedRequest): Promise<CallToolResult>;
  serverBusy(options: ServerBusyRequest): Promise<CallToolResult>;
  formatValidation(action: string, issues: unknown[], args?: unknown, options?: { contract?: Contract; dialect?: 'zod' | 'pydantic' | 'jsonschema' }): Promise<CallToolResult>;
  validate(action: string, schema: object, args: unknown, options?: { contract?: Contract }): Promise<ValidateResult>;
  contractLock(tools: ToolSet): Promise<Lockfile>;
  contractDiff(before: ToolSet, after: ToolSet): Promise<ContractDiff>;
  escape(text: string, context?: EscapeContext): Promise<string>;
  parse(textOrResult: string | AnyCallToolResult): Promise<Envelope | null>;
  wrap<A extends unknown[], R>(tool: string, handler: Handler<A, R>): (...args: A) => Promise<Awaited<R> | CallToolResult>;
  throwOnError<R extends AnyCallToolResult>(result: R): Promise<R>;
  /** Makes an McpServer answer through this module (see heal()); returns server. */
  heal<S extends HealableServer>(server: S, options?: HealOptions): S;
  /** The stdio gate's verdict on one line a client sent: its bytes (a string is sent as UTF-8), without the line feed. */
  gate(line: Uint8Array | string): Promise<GateVerdict>;
  /** The stdio gate's <validation_error> for a tool's arguments of size bytes, too large to check beside their schema. */
  argumentsTooLarge(tool: string, size: number): Promise<CallToolResult>;
  /** The client's stdin behind the stdio gate, for StdioServerTransport; see gatedStdin(). */
  gatedStdin(options?: GatedStdinOptions): import('node:stream').Readable;
}

export { ABI_MAJOR, GATE_HEAD_BYTES } from './abi.js';
/** The @modelcontextprotocol/sdk versions whose McpServer heal() supports. */
export const SUPPORTED_SDK: '>=1.24.0 <2';
/** The @modelcontextprotocol/server (the SDK's v2 packages) versions whose McpServer heal() supports. */
export const SUPPORTED_SERVER: '>=2.0.0 <3';
/** The values of heal()'s unknownTool option, the default first. */
export const UNKNOWN_TOOL_ANSWERS: readonly ['envelope', 'sdk'];

/** Loads a module (by default the bundled copy), checking its sha256 and ABI major; memoryMaxPages and callTimeoutMs are the host policy's limits; engine runs calls on the calling thread: 'raw' (default, Node's WebAssembly on the module's raw path) or 'extism'. */
export function load(options?: { wasm?: Uint8Array; sha256?: string; memoryMaxPages?: number; callTimeoutMs?: number; engine?: 'raw' | 'extism' }): Promise<Toolerr>;
/** The shared Toolerr behind the module-level functions. */
export function defaultToolerr(): Promise<Toolerr>;

export function call(exportName: string, request?: unknown): Promise<string>;
export function describe(): Promise<Describe>;
export function toolError(code: string, options: ToolErrorOptions | string): ToolErrorBuilder;
export function error(code: string, message: string): ToolErrorBuilder;
export function simpleError(message: string, code?: string): Promise<CallToolResult>;
export function required(field: string): Promise<CallToolResult>;
export function internalError(message: string, options?: Omit<InternalErrorRequest, 'message'>): Promise<CallToolResult>;
/** UNKNOWN_ACTION for a call to tool, which does not exist: tools are the server's, in its order (listed closest to tool first, at most 20). */
export function unknownTool(tool: string, tools: readonly string[]): Promise<CallToolResult>;
export function rateLimited(options: RateLimitedRequest): Promise<CallToolResult>;
export function serverBusy(options: ServerBusyRequest): Promise<CallToolResult>;
export function formatValidation(action: string, issues: unknown[], args?: unknown, options?: { contract?: Contract; dialect?: 'zod' | 'pydantic' | 'jsonschema' }): Promise<CallToolResult>;
export function validate(action: string, schema: object, args: unknown, options?: { contract?: Contract }): Promise<ValidateResult>;
export function contractLock(tools: ToolSet): Promise<Lockfile>;
export function contractDiff(before: ToolSet, after: ToolSet): Promise<ContractDiff>;
export function escape(text: string, context?: EscapeContext): Promise<string>;
export function parse(textOrResult: string | AnyCallToolResult): Promise<Envelope | null>;
export function wrap<A extends unknown[], R>(tool: string, handler: Handler<A, R>): (...args: A) => Promise<Awaited<R> | CallToolResult>;
export function throwOnError<R extends AnyCallToolResult>(result: R): Promise<R>;
/**
 * The text of the first text block of an MCP CallToolResult (one toolerr
 * rendered, a tool's own, or one an MCP client received), or '' when it has
 * none. It only reads the result.
 */
export function resultText(result: object | null | undefined): string;
/**
 * Makes an McpServer answer with toolerr's envelopes: arguments its zod
 * schema refuses become a <validation_error>, a thrown tool error reaches the
 * client intact, any other throw becomes INTERNAL_ERROR naming the tool, a
 * call to a tool the server does not have becomes UNKNOWN_ACTION (unless
 * options.unknownTool is 'sdk'); tools registered before or after are
 * covered. The shared module starts loading at once, in the background.
 * Returns server; throws a TypeError, changing nothing, for anything but a
 * supported McpServer or for an option heal() does not know.
 */
export function heal<S extends HealableServer>(server: S, options?: HealOptions): S;
/** The stdio gate's verdict on one line a client sent: its bytes (a string is sent as UTF-8), without the line feed. */
export function gate(line: Uint8Array | string): Promise<GateVerdict>;
/** The stdio gate's <validation_error> for a tool's arguments of size bytes, too large to check beside their schema. */
export function argumentsTooLarge(tool: string, size: number): Promise<CallToolResult>;
/**
 * process.stdin behind the module's stdio gate, for the SDK's transport:
 * `await server.connect(new StdioServerTransport(gatedStdin()))`. A line the
 * gate passes or rewrites reaches the SDK; one it answers gets the answer on
 * output; one it ignores is noted through log.
 */
export function gatedStdin(options?: GatedStdinOptions): import('node:stream').Readable;
