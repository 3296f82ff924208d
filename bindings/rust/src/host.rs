//! The host: the embedded module, compiled once, and a pool of instances.

use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::abi::{self, CallToolResult, Description};
use crate::error::{Error, ErrorCode, Result};
use crate::raw::Outcome;
use crate::tiers::{Engines, Instance, Tier, Tiers};

/// The bytes of `plugin/toolerr.wasm`, included when this crate was built.
pub const WASM: &[u8] = include_bytes!("../wasm/toolerr.wasm");

/// The committed `plugin/toolerr.wasm.sha256` file (`<hex digest>  toolerr.wasm`).
pub const WASM_SHA256_FILE: &str = include_str!("../wasm/toolerr.wasm.sha256");

/// The ABI major this binding speaks ([`abi::ABI_MAJOR`]); [`Host::new`]
/// refuses any other.
pub const ABI_MAJOR: u32 = abi::ABI_MAJOR;

/// The expected hex sha256 of [`WASM`], read from [`WASM_SHA256_FILE`].
pub fn wasm_sha256() -> &'static str {
    WASM_SHA256_FILE.split_whitespace().next().unwrap_or("")
}

/// The hex sha256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The variable with which Extism, which earlier versions of this crate ran
/// the module on, gave a plugin the process's stdout and stderr. The module
/// now runs on Wasmtime directly and its output is always discarded, so the
/// variable changes nothing; [`Host::new`] no longer refuses to start while
/// it is set.
pub const WASI_OUTPUT_VARIABLE: &str = "EXTISM_ENABLE_WASI_OUTPUT";

/// Configures a [`Host`]. `Options::default()` runs the embedded module with
/// the defaults below: the host policy of `abi/ABI.md` ("Host policy"), which
/// every toolerr host (Go, Node, Python, Rust) applies with the same values,
/// generated from abi/abi.json (the `abi::POLICY_*` constants).
#[derive(Debug, Clone)]
pub struct Options {
    /// The most instances alive at once, and so the most calls running at
    /// once; further calls wait. 0 means the machine's available parallelism.
    pub max_instances: usize,
    /// Each instance's memory cap, in 64 KiB pages (default
    /// [`abi::POLICY_MEMORY_MAX_PAGES`], 8192: 512 MiB),
    /// written into the module as its memory's maximum. A call that needs
    /// more traps (`TRAP`) and its instance is discarded.
    pub memory_max_pages: u32,
    /// The longest one call may run (default
    /// [`abi::POLICY_CALL_TIMEOUT_MS`], 10 s, kept to within 10 ms);
    /// `None` for no bound. A call that runs out of time is interrupted
    /// (Wasmtime's epoch interruption), fails with `TIMEOUT`, and its
    /// instance is discarded.
    pub call_timeout: Option<Duration>,
    /// Replaces the embedded module: its bytes and their expected hex sha256.
    pub wasm: Option<(Vec<u8>, String)>,
    /// Which ways of running the module the host may use (default
    /// [`Tiers::Auto`]: Wasmtime's compiled code, from the compilation cache;
    /// where the cache does not hold it, an interpreter answers while the
    /// module compiles in the background).
    pub tiers: Tiers,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_instances: 0,
            memory_max_pages: abi::POLICY_MEMORY_MAX_PAGES,
            call_timeout: Some(Duration::from_millis(abi::POLICY_CALL_TIMEOUT_MS)),
            wasm: None,
            tiers: Tiers::Auto,
        }
    }
}

/// Runs toolerr's exports on the embedded `toolerr.wasm`.
///
/// # Notes
/// - A `Host` is `Send + Sync`: share one (`&Host`, `Arc<Host>` or the
///   process-wide [`host()`](crate::host())). It compiles the module once
///   (Wasmtime, kept in a compilation cache under `~/.cache/toolerr`) and
///   pools instances, one per concurrent call, up to `Options::max_instances`;
///   an instance runs one call at a time.
/// - Where the cache does not hold the module yet, the first calls run on an
///   interpreter (wasmi) while a background thread compiles the module and
///   writes the cache entry; then new instances are compiled ones and the
///   interpreter's are dropped as they come back ([`Tiers`], [`Host::tier`]).
///   Dropping the host waits for that compile ([`Host::wait_compiled`]), and
///   so does the process's exit, for at most 30 s.
/// - Calls take the module's raw path (`toolerr_buffer`, `toolerr_call`):
///   the request is copied into the module's memory and the response out of
///   it, once each.
/// - An instance that traps or times out is discarded; the next call gets a
///   fresh one. A bad request is not a trap: the instance keeps serving. An
///   instance whose memory grew past [`Host::RETIRE_MEMORY_PAGES`] (read after
///   every call) is discarded after its call.
/// - [`Host::new`] refuses bytes whose sha256 is not the committed one, and a
///   module whose ABI major is not [`ABI_MAJOR`].
/// - The module's stdout and stderr (TinyGo's runtime prints a panic before
///   it traps) are discarded: a stdio server's stdout is its protocol.
pub struct Host {
    engines: Engines,
    pool: Mutex<Pool>,
    freed: Condvar,
    max_instances: usize,
    description: Description,
}

struct Pool {
    idle: Vec<Instance>,
    live: usize,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("abi_version", &self.description.abi_version)
            .field("version", &self.description.version)
            .field("max_instances", &self.max_instances)
            .field("tier", &self.tier())
            .finish()
    }
}

/// An instance checked out of the pool; dropping it without `release`
/// discards it (a panic mid-call leaves no broken instance behind).
struct Checkout<'h> {
    host: &'h Host,
    instance: Option<Instance>,
}

impl Checkout<'_> {
    fn release(mut self) {
        if let Some(instance) = self.instance.take() {
            let mut pool = self.host.lock_pool();
            pool.idle.push(instance);
            drop(pool);
            self.host.freed.notify_one();
        }
    }
}

impl Drop for Checkout<'_> {
    fn drop(&mut self) {
        if let Some(instance) = self.instance.take() {
            drop(instance);
            let mut pool = self.host.lock_pool();
            pool.live -= 1;
            drop(pool);
            self.host.freed.notify_one();
        }
    }
}

/// The error object the module sets on a bad request.
#[derive(Deserialize)]
struct ModuleError {
    code: String,
    message: String,
}

impl Host {
    /// An instance whose linear memory grew past 1024 pages (64 MiB) is
    /// retired after the call rather than reused: linear memory never
    /// shrinks, and a heap grown near the cap fails calls a fresh instance
    /// serves (the host policy's `retireMemoryPages`,
    /// [`abi::POLICY_RETIRE_MEMORY_PAGES`]).
    pub const RETIRE_MEMORY_PAGES: u32 = abi::POLICY_RETIRE_MEMORY_PAGES;

    /// After a call whose request or response is over 64 KiB, a host that
    /// must ask the module how far an instance's memory grew (an Extism
    /// engine) asks ([`abi::MEMORY_CHECK_BYTES`]). This crate's engines read
    /// it directly, after every call.
    pub const MEMORY_CHECK_BYTES: usize = abi::MEMORY_CHECK_BYTES;

    /// Loads the embedded module with the default options.
    pub fn new() -> Result<Host> {
        Host::with_options(Options::default())
    }

    /// Checks the module's sha256, compiles it, and checks its ABI major
    /// with `describe`.
    pub fn with_options(options: Options) -> Result<Host> {
        let (wasm, want) = match &options.wasm {
            Some((bytes, sha)) => (bytes.as_slice(), sha.as_str()),
            None => (WASM, wasm_sha256()),
        };
        let got = sha256_hex(wasm);
        if !got.eq_ignore_ascii_case(want) {
            return Err(Error::trap(format!(
                "toolerr: module sha256 is {got}, want {want}"
            )));
        }
        // The cap is the module's own memory maximum: a growth past it is
        // refused inside the module (which then traps, out of memory), as on
        // every other host.
        let capped = with_memory_max(wasm, options.memory_max_pages)?;
        let engines = Engines::new(capped, options.call_timeout, options.tiers)?;
        let max_instances = match options.max_instances {
            0 => std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            n => n,
        };
        let mut host = Host {
            engines,
            pool: Mutex::new(Pool {
                idle: Vec::new(),
                live: 0,
            }),
            freed: Condvar::new(),
            max_instances,
            description: placeholder_description(),
        };
        let text = host
            .run("describe", b"{}")
            .map_err(|e| Error::new(e.code.clone(), format!("toolerr: describe: {}", e.message)))?;
        let description: Description = serde_json::from_str(&text).map_err(|e| {
            Error::internal(format!("toolerr: describe: undecodable response: {e}"))
        })?;
        let major = description
            .abi_version
            .split('.')
            .next()
            .and_then(|m| m.parse::<u32>().ok());
        if major != Some(ABI_MAJOR) {
            return Err(Error::trap(format!(
                "toolerr: module ABI {:?} is not supported by this host (ABI major {ABI_MAJOR})",
                description.abi_version
            )));
        }
        host.description = description;
        Ok(host)
    }

    /// What the module said of itself at load (`describe`).
    pub fn description(&self) -> &Description {
        &self.description
    }

    /// Whether the module has `export` (as `describe` lists it).
    pub fn has_export(&self, export: &str) -> bool {
        self.description.exports.iter().any(|e| e == export)
    }

    /// How many instances exist now, idle or busy.
    pub fn live_instances(&self) -> usize {
        self.lock_pool().live
    }

    /// How many of the live instances run on the interpreter, idle or busy:
    /// after a start on an empty cache, those made before the compile ended.
    /// They are dropped as they come back to the pool, and the interpreter's
    /// memory with the last of them.
    pub fn interpreted_instances(&self) -> usize {
        self.engines.interpreted()
    }

    /// How new instances run the module now: [`Tier::Compiled`], or
    /// [`Tier::Interpreter`] while the module compiles in the background (or
    /// for the host's life, with [`Tiers::Interpreter`] or when the compile
    /// failed).
    pub fn tier(&self) -> Tier {
        self.engines.tier()
    }

    /// Waits for the background compile of a host that started on the
    /// interpreter, for at most `timeout` (`None`: until it ends); true when
    /// new instances run compiled code. It returns at once for a host whose
    /// module came from the cache. Dropping a host waits the same way.
    pub fn wait_compiled(&self, timeout: Option<Duration>) -> bool {
        self.engines.wait_compiled(timeout)
    }

    /// Calls `export` with `request` written as compact JSON and returns the
    /// response text exactly as the module wrote it.
    pub fn call(&self, export: &str, request: &serde_json::Value) -> Result<String> {
        let body = serde_json::to_vec(request)
            .map_err(|e| Error::invalid(format!("{export}: request could not be encoded: {e}")))?;
        self.call_raw(export, &body)
    }

    /// Calls `export` with the request bytes as they are (malformed JSON
    /// included: the module answers it with `INVALID_REQUEST`) and returns the
    /// response text exactly as the module wrote it.
    pub fn call_raw(&self, export: &str, request: &[u8]) -> Result<String> {
        if !self.has_export(export) {
            return Err(Error::invalid(format!("unknown export {export:?}")));
        }
        let limit = self.description.limits.max_request_bytes;
        if request.len() as u64 > limit {
            return Err(Error::new(
                ErrorCode::RequestTooLarge,
                format!(
                    "{export}: request is {} bytes, over the limit of {limit}",
                    request.len()
                ),
            ));
        }
        self.run(export, request)
    }

    /// Serializes `request`, calls `export`, and decodes the response.
    pub fn call_json<Req: Serialize + ?Sized, Resp: DeserializeOwned>(
        &self,
        export: &str,
        request: &Req,
    ) -> Result<Resp> {
        let body = serde_json::to_vec(request)
            .map_err(|e| Error::invalid(format!("{export}: request could not be encoded: {e}")))?;
        let text = self.call_raw(export, &body)?;
        serde_json::from_str(&text)
            .map_err(|e| Error::internal(format!("{export}: undecodable response: {e}")))
    }

    /// Runs one call on a pooled instance.
    fn run(&self, export: &str, request: &[u8]) -> Result<String> {
        let mut checkout = self.acquire()?;
        let mut outcome = checkout
            .instance
            .as_mut()
            .expect("a checkout holds an instance")
            .call(export, request, None);
        // An interpreted call that stopped because compiled code can now be
        // had runs again on a compiled instance, within what is left of its
        // time (its interpreted instance is dropped).
        while let Outcome::Handoff(deadline) = outcome {
            drop(checkout);
            checkout = self.acquire()?;
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            outcome = checkout
                .instance
                .as_mut()
                .expect("a checkout holds an instance")
                .call(export, request, left);
        }
        let instance = checkout
            .instance
            .as_mut()
            .expect("a checkout holds an instance");
        // Dropping a checkout instead of releasing it retires its instance:
        // after a trap or a timeout, when its memory grew too far, and an
        // interpreted one once compiled ones can be had.
        // Both tiers read the memory's size directly, so it is read after
        // every call: a small request can grow it too.
        let grown = |instance: &Instance| {
            self.engines.retired(instance)
                || instance.memory_pages() > u64::from(Self::RETIRE_MEMORY_PAGES)
        };
        match outcome {
            Outcome::Response(bytes) => {
                if !grown(instance) {
                    checkout.release();
                }
                String::from_utf8(bytes)
                    .map_err(|e| Error::internal(format!("{export}: response is not UTF-8: {e}")))
            }
            // A bad request: the instance is healthy and goes back to the pool.
            Outcome::Refused(bytes) => {
                if !grown(instance) {
                    checkout.release();
                }
                match serde_json::from_slice::<ModuleError>(&bytes) {
                    Ok(module) => Err(Error::new(
                        ErrorCode::from_abi(&module.code),
                        module.message,
                    )),
                    Err(e) => Err(Error::internal(format!(
                        "{export}: undecodable error object: {e}"
                    ))),
                }
            }
            Outcome::TooLarge => {
                if !grown(instance) {
                    checkout.release();
                }
                Err(Error::new(
                    ErrorCode::RequestTooLarge,
                    format!("{export}: request is {} bytes, too large", request.len()),
                ))
            }
            Outcome::Timeout | Outcome::Handoff(_) => {
                drop(checkout);
                Err(Error::new(
                    ErrorCode::Timeout,
                    format!("{export}: the call ran out of time"),
                ))
            }
            Outcome::Trap(message) => {
                drop(checkout);
                Err(Error::trap(format!(
                    "{export}: the module trapped: {message}"
                )))
            }
        }
    }

    fn lock_pool(&self) -> MutexGuard<'_, Pool> {
        // The pool's state stays consistent across a panic (counts change
        // under the lock only), so a poisoned lock is still usable.
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn acquire(&self) -> Result<Checkout<'_>> {
        let mut pool = self.lock_pool();
        loop {
            if self.engines.interpreted() > 0 && pool.idle.iter().any(|i| self.engines.retired(i)) {
                // Idle interpreted instances, once compiled ones can be had:
                // dropped (outside the lock; the interpreter's memory goes
                // with the last of them), and their slots freed.
                let (stale, idle): (Vec<Instance>, Vec<Instance>) = std::mem::take(&mut pool.idle)
                    .into_iter()
                    .partition(|i| self.engines.retired(i));
                pool.idle = idle;
                pool.live -= stale.len();
                drop(pool);
                drop(stale);
                self.freed.notify_all();
                pool = self.lock_pool();
                continue;
            }
            if let Some(instance) = pool.idle.pop() {
                return Ok(Checkout {
                    host: self,
                    instance: Some(instance),
                });
            }
            if pool.live < self.max_instances {
                pool.live += 1;
                drop(pool);
                // From here on, dropping the checkout gives the slot back.
                let mut checkout = Checkout {
                    host: self,
                    instance: None,
                };
                match self.engines.instantiate() {
                    Ok(instance) => {
                        checkout.instance = Some(instance);
                        return Ok(checkout);
                    }
                    Err(e) => {
                        let mut pool = self.lock_pool();
                        pool.live -= 1;
                        drop(pool);
                        self.freed.notify_one();
                        return Err(e);
                    }
                }
            }
            pool = self.freed.wait(pool).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// How much of a line over the request limit the gate reads: its
    /// first 64 KiB ([`abi::GATE_HEAD_BYTES`]).
    pub const GATE_HEAD_BYTES: usize = abi::GATE_HEAD_BYTES;

    /// Applies the stdio gate (abi/ABI.md, "The stdio gate") to one line a
    /// client sent, its bytes as read without the line feed: pass it on,
    /// pass on the line the gate rewrote, answer it, or ignore it. A line
    /// over the request limit is sent as its length and its first
    /// [`GATE_HEAD_BYTES`](Self::GATE_HEAD_BYTES) bytes, as the ABI asks.
    pub fn gate(&self, line: &[u8]) -> Result<abi::GateVerdict> {
        self.gate_head(line.len(), line)
    }

    /// [`gate`](Self::gate) on a line of `total` bytes of which `head` holds
    /// the first (all of them, or at least `GATE_HEAD_BYTES`).
    pub(crate) fn gate_head(&self, total: usize, head: &[u8]) -> Result<abi::GateVerdict> {
        let text = if total as u64 > self.description.limits.max_request_bytes {
            let mut request = format!("{total}\n").into_bytes();
            request.extend_from_slice(&head[..head.len().min(Self::GATE_HEAD_BYTES)]);
            self.call_raw("gate", &request)?
        } else {
            self.call_raw("gate", head)?
        };
        serde_json::from_str(&text)
            .map_err(|e| Error::internal(format!("gate: undecodable response: {e}")))
    }

    /// Renders the stdio gate's `<validation_error>` for a tool's arguments
    /// too large to check beside their schema (what [`heal`](crate::heal)
    /// answers when the module refuses the check with `REQUEST_TOO_LARGE`);
    /// `size` is their JSON text in bytes. The error measures the
    /// `tools/call` message that carries them.
    pub fn arguments_too_large(&self, tool: &str, size: usize) -> Result<CallToolResult> {
        let name = serde_json::to_string(tool)
            .map_err(|e| Error::invalid(format!("arguments too large: the tool name: {e}")))?;
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{{"name":{name},"arguments":"#
        );
        let request = format!("{}\n{head}", head.len() + size + 2);
        match serde_json::from_str(&self.call_raw("gate", request.as_bytes())?) {
            Ok(abi::GateVerdict::Answer { response }) => {
                #[derive(Deserialize)]
                struct Answer {
                    result: CallToolResult,
                }
                serde_json::from_str::<Answer>(&response)
                    .map(|a| a.result)
                    .map_err(|e| {
                        Error::internal(format!(
                            "arguments too large: the gate answered {response}: {e}"
                        ))
                    })
            }
            other => Err(Error::internal(format!(
                "arguments too large: the gate gave {other:?}"
            ))),
        }
    }

    fn result<Req: Serialize + ?Sized>(
        &self,
        export: &str,
        request: &Req,
    ) -> Result<CallToolResult> {
        self.call_json(export, request)
    }

    /// Renders a `<tool_error>`. Warnings come back with `is_error` false:
    /// they ride the success path.
    pub fn tool_error(&self, request: &abi::ToolErrorRequest) -> Result<CallToolResult> {
        self.result("tool_error", request)
    }

    /// Renders the reference's `error()`: a message and, when `code` is
    /// given, a code attribute.
    pub fn simple_error(&self, message: &str, code: Option<&str>) -> Result<CallToolResult> {
        let request = abi::SimpleErrorRequest {
            message: message.into(),
            code: code.map(Into::into),
        };
        self.result("simple_error", &request)
    }

    /// Renders the `MISSING_REQUIRED_FIELD` envelope for `field`.
    pub fn required(&self, field: &str) -> Result<CallToolResult> {
        self.result(
            "required_field",
            &abi::RequiredFieldRequest {
                field: field.into(),
            },
        )
    }

    /// Renders the envelope of an unmarked failure in a handler; its recovery
    /// tells the model not to blindly retry.
    pub fn internal_error(&self, request: &abi::InternalErrorRequest) -> Result<CallToolResult> {
        self.result("internal_error", request)
    }

    /// Renders the `RATE_LIMITED` envelope of a rate limiter.
    pub fn rate_limited(&self, request: &abi::RateLimitedRequest) -> Result<CallToolResult> {
        self.result("rate_limited", request)
    }

    /// Renders the `UNKNOWN_ACTION` envelope of a call to a tool the server
    /// does not have (ABI 1.5): `tool` is the name called, `tools` the
    /// server's tools in its order (as tools/list gives them); the module
    /// lists the closest to `tool` first.
    pub fn unknown_tool<I>(&self, tool: &str, tools: I) -> Result<CallToolResult>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let request = abi::UnknownToolRequest {
            tool: tool.into(),
            tools: tools.into_iter().map(|t| t.as_ref().to_string()).collect(),
        };
        self.result("unknown_tool", &request)
    }

    /// Renders the `SERVER_BUSY` envelope of a concurrency guard.
    pub fn server_busy(&self, request: &abi::ServerBusyRequest) -> Result<CallToolResult> {
        self.result("server_busy", request)
    }

    /// Renders a `<validation_error>` from a validator's issues.
    pub fn format_validation(
        &self,
        request: &abi::FormatValidationRequest,
    ) -> Result<CallToolResult> {
        self.result("format_validation", request)
    }

    /// Checks arguments against a tool's JSON Schema. `Valid`, or `Invalid`
    /// with the `<validation_error>` to answer with.
    pub fn validate(&self, request: &abi::ValidateRequest) -> Result<abi::Validation> {
        let body = serde_json::to_vec(request)
            .map_err(|e| Error::invalid(format!("validate: request could not be encoded: {e}")))?;
        self.validate_bytes(&body)
    }

    /// [`Host::validate`] on a request already written as JSON (the router
    /// glue writes each tool's schema once). Arguments that pass are known
    /// by the response's text, `{"valid":true}`, without decoding it.
    pub(crate) fn validate_bytes(&self, request: &[u8]) -> Result<abi::Validation> {
        const VALID: &str = r#"{"valid":true}"#;
        let text = self.call_raw("validate", request)?;
        if text == VALID {
            return Ok(abi::Validation::Valid);
        }
        let response: abi::ValidateResponse = serde_json::from_str(&text)
            .map_err(|e| Error::internal(format!("validate: undecodable response: {e}")))?;
        match (response.valid, response.result) {
            (true, _) => Ok(abi::Validation::Valid),
            (false, Some(result)) => Ok(abi::Validation::Invalid(result)),
            (false, None) => Err(Error::internal(
                "validate: response has valid false and no result",
            )),
        }
    }

    /// Locks the contract of a set of MCP tools (ABI 1.2): `tools` is a
    /// tools array, a tools/list result or a lockfile, as any `Serialize`
    /// value (a `serde_json::Value`, rmcp's `Vec<Tool>` or `ListToolsResult`,
    /// a [`Lockfile`](abi::Lockfile)). The same tools in any key or tool order
    /// give the same lockfile; a lockfile relocks to itself.
    pub fn contract_lock<T: Serialize + ?Sized>(&self, tools: &T) -> Result<abi::Lockfile> {
        self.call_json("contract_lock", &abi::ContractLockRequest { tools })
    }

    /// Compares two contracts (ABI 1.2), each a lockfile, a tools array or a
    /// tools/list result: the deltas, the highest severity and whether the
    /// change is backwards compatible. A lockfile whose digests do not match
    /// its contracts is refused (`INVALID_REQUEST`).
    pub fn contract_diff<B: Serialize + ?Sized, A: Serialize + ?Sized>(
        &self,
        before: &B,
        after: &A,
    ) -> Result<abi::ContractDiff> {
        self.call_json("contract_diff", &abi::ContractDiffRequest { before, after })
    }

    /// Escapes `text` for an element body or a double-quoted attribute.
    pub fn escape(&self, text: &str, context: abi::EscapeContext) -> Result<String> {
        let request = abi::EscapeRequest {
            text: text.into(),
            context,
        };
        let response: abi::EscapeResponse = self.call_json("escape", &request)?;
        Ok(response.text)
    }

    /// Reads the first envelope in `text`; `None` when there is none.
    pub fn parse(&self, text: &str) -> Result<Option<abi::Envelope>> {
        let response: abi::ParseResponse =
            self.call_json("parse", &abi::ParseRequest::Text(text.into()))?;
        Ok(response.envelope)
    }

    /// Reads the first envelope in the text blocks of `result`.
    pub fn parse_result(&self, result: &CallToolResult) -> Result<Option<abi::Envelope>> {
        let response: abi::ParseResponse =
            self.call_json("parse", &abi::ParseRequest::Result(result.clone()))?;
        Ok(response.envelope)
    }

    /// Asks the module to describe itself again (see also [`Host::description`]).
    pub fn describe(&self) -> Result<Description> {
        self.call_json("describe", &abi::DescribeRequest::default())
    }
}

/// Stands in until `describe` answers: it lists `describe` only.
fn placeholder_description() -> Description {
    Description {
        exports: vec!["describe".into()],
        limits: abi::DescribeLimits {
            max_request_bytes: u64::MAX,
            ..abi::DescribeLimits::default()
        },
        ..Description::default()
    }
}

/// The process-wide host, loaded with the default options on first use. The
/// free functions of this crate and the conversions into rmcp's
/// `CallToolResult` use it; call it once at start-up to fail early.
pub fn host() -> Result<&'static Host> {
    static HOST: OnceLock<Result<Host>> = OnceLock::new();
    HOST.get_or_init(Host::new).as_ref().map_err(Clone::clone)
}

/// Returns the module with its memory's maximum set to `max_pages` (or kept,
/// when the module declares a lower one), as the Node binding writes it: its
/// digest is checked before, and growing past the maximum then fails inside
/// the module, which traps out of memory, as on every other host.
pub(crate) fn with_memory_max(wasm: &[u8], max_pages: u32) -> Result<Vec<u8>> {
    let bad = |what: &str| Error::trap(format!("toolerr: {what}"));
    let leb = |mut at: usize| -> Result<(u64, usize)> {
        let (mut value, mut shift) = (0u64, 0u32);
        loop {
            let byte = *wasm.get(at).ok_or_else(|| bad("the module is truncated"))?;
            at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte < 0x80 {
                return Ok((value, at));
            }
            if shift > 35 {
                return Err(bad("the module has a malformed number"));
            }
        }
    };
    let encode = |mut n: u64, out: &mut Vec<u8>| loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        out.push(byte | if n > 0 { 0x80 } else { 0 });
        if n == 0 {
            break;
        }
    };
    let mut at = 8;
    while at < wasm.len() {
        let id = wasm[at];
        let (size, body) = leb(at + 1)?;
        let end = body + size as usize;
        if id == 5 {
            let (count, flags_at) = leb(body)?;
            let flags = *wasm
                .get(flags_at)
                .ok_or_else(|| bad("the module is truncated"))?;
            if count != 1 || flags > 1 {
                return Err(bad("the module's memory is not one unshared 32-bit memory"));
            }
            let (min, after_min) = leb(flags_at + 1)?;
            let max = if flags == 1 {
                leb(after_min)?.0.min(u64::from(max_pages))
            } else {
                u64::from(max_pages)
            };
            if min > max {
                return Err(bad(&format!(
                    "the module starts with {min} pages of memory"
                )));
            }
            let mut section = vec![1, 1];
            encode(min, &mut section);
            encode(max, &mut section);
            let mut out = wasm[..at].to_vec();
            out.push(5);
            encode(section.len() as u64, &mut out);
            out.extend_from_slice(&section);
            out.extend_from_slice(&wasm[end..]);
            return Ok(out);
        }
        at = end;
    }
    Err(bad("the module defines no memory of its own"))
}
