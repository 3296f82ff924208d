//! The interpreter tier: the module on wasmi, a WebAssembly interpreter in
//! pure Rust, through the same raw path as the compiled tier (engine.rs).
//! It takes the module in a few milliseconds (lazy compilation: a function
//! is validated and translated to wasmi's bytecode when it is first called)
//! and runs calls many times slower than Wasmtime's compiled code, so it
//! answers the first calls of a process whose compilation cache does not
//! hold the module yet, while Wasmtime compiles it in the background
//! (tiers.rs).
//!
//! The same imports as on the compiled tier (no output, no files, real
//! clocks, random bytes; `extism:host/env` as traps), the same memory cap
//! (the module's own memory maximum), and the same time bound: wasmi has no
//! epoch interruption, so a call with a deadline runs on fuel, in slices of
//! [`FUEL_SLICE`]; when a slice runs out the call stops, resumably, and goes
//! on with another slice unless its deadline has passed. Between slices it
//! also looks whether compiled code can be had: a long call then stops and
//! is run again on a compiled instance ([`Outcome::Handoff`]), so that a
//! request the compiled tier answers in time is not failed for the
//! interpreter's slowness while the compile is done.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use wasmi::{
    CompilationMode, Config, CustomFuelCosts, Engine, ExternType, FuncType, Linker, Module, Store,
    TypedFunc, TypedResumableCall, ValType, WasmParams, WasmResults,
};

use crate::engine::INIT_TIMEOUT;
use crate::error::{Error, Result};
use crate::raw::{self, Outcome, RawPath, WASI, Word};

/// The fuel a call runs on before its deadline is looked at again: about a
/// millisecond of this module's work on wasmi (one unit is about one
/// instruction), so a call's time bound is kept to within a few
/// milliseconds, as on the compiled tier (10 ms).
pub(crate) const FUEL_SLICE: u64 = 1 << 20;

/// The deepest the module's calls may nest, and the most bytes of values
/// they may hold on wasmi's stack (both grow only as used): far beyond what
/// any request within the module's limits needs (a JSON document nested
/// 256 levels deep included), so that the interpreter answers every request
/// the compiled tier answers; an endless recursion traps.
const MAX_RECURSION_DEPTH: usize = 1 << 16;
const MAX_STACK_BYTES: usize = 64 << 20;

/// The module taken by wasmi, ready to instantiate.
pub(crate) struct Interpreted {
    engine: Engine,
    module: Module,
    linker: Linker<()>,
    timeout: Option<Duration>,
    /// Its instances alive now.
    live: Arc<AtomicUsize>,
    /// Set once compiled code can be had, where it will be: calls then hand
    /// off; `None` for an interpreter that serves alone.
    handoff: Option<Arc<AtomicBool>>,
    /// Whether calls run on fuel: with a time bound, or a hand-off to come.
    fuel: bool,
}

impl Interpreted {
    /// Takes `wasm` for instances whose calls are bounded by `timeout`, and
    /// hand off to compiled code once `handoff` is set.
    pub(crate) fn new(
        wasm: &[u8],
        timeout: Option<Duration>,
        handoff: Option<Arc<AtomicBool>>,
    ) -> Result<Interpreted> {
        let fuel = timeout.is_some() || handoff.is_some();
        let mut config = Config::default();
        config
            .compilation_mode(CompilationMode::Lazy)
            .consume_fuel(fuel)
            // Translating a function at its first call costs no fuel: wasmi
            // 2.0 cannot resume a call that runs out of fuel there (it fails
            // instead), and translating is bounded by the module's size. The
            // copies of memory.fill and memory.copy cost fuel as by default.
            .fuel_cost(CustomFuelCosts {
                bytes_copied_per_fuel: 64,
                fuel_per_bytes_translated: 0,
                fuel_per_bytes_validated: 0,
            })
            .set_max_recursion_depth(MAX_RECURSION_DEPTH)
            .set_max_stack_height(MAX_STACK_BYTES);
        let engine = Engine::new(&config);
        let module = Module::new(&engine, wasm)
            .map_err(|e| Error::trap(format!("toolerr: the interpreter: {e}")))?;
        let mut linker = Linker::new(&engine);
        define_imports(&mut linker, &module)
            .map_err(|e| Error::trap(format!("toolerr: the module's imports: {e}")))?;
        Ok(Interpreted {
            engine,
            module,
            linker,
            timeout,
            live: Arc::new(AtomicUsize::new(0)),
            handoff,
            fuel,
        })
    }

    /// The count of its instances alive, which outlives it: an instance
    /// made before the interpreter is let go lives on.
    pub(crate) fn live(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.live)
    }

    /// A new instance, initialized.
    pub(crate) fn instantiate(&self) -> Result<Instance> {
        let bad = |e: String| Error::trap(format!("toolerr: new instance: {e}"));
        let mut store = Store::new(&self.engine, ());
        // `_initialize` is bounded too, but never by less than the default
        // call timeout, as on the compiled tier.
        if self.fuel {
            store.set_fuel(FUEL_SLICE).map_err(|e| bad(e.to_string()))?;
        }
        let instance = self
            .linker
            .instantiate_and_start(&mut store, &self.module)
            .map_err(|e| bad(e.to_string()))?;
        if let Some(init) = instance.get_func(&store, "_initialize") {
            let init = init
                .typed::<(), ()>(&store)
                .map_err(|e| bad(e.to_string()))?;
            let deadline = self.timeout.map(|t| Instant::now() + t.max(INIT_TIMEOUT));
            run(&mut store, &init, (), self.fuel, deadline, None).map_err(|stop| {
                bad(match stop {
                    Outcome::Timeout => "_initialize ran out of time".into(),
                    Outcome::Trap(message) => message,
                    _ => "_initialize failed".into(),
                })
            })?;
        }
        let exports = Exports::new(store, &instance).map_err(bad)?;
        self.live.fetch_add(1, Ordering::SeqCst);
        Ok(Instance {
            exports,
            timeout: self.timeout,
            deadline: None,
            live: Arc::clone(&self.live),
            handoff: self.handoff.clone(),
            fuel: self.fuel,
        })
    }
}

raw::tier!(wasmi, wasmi::Error::new);

/// One instance of the module on wasmi; runs one call at a time.
pub(crate) struct Instance {
    exports: Exports,
    timeout: Option<Duration>,
    /// The deadline of the call running now, `toolerr_buffer` included.
    deadline: Option<Instant>,
    live: Arc<AtomicUsize>,
    handoff: Option<Arc<AtomicBool>>,
    fuel: bool,
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Instance {
    /// Calls `func` with `params` within the running call's deadline
    /// ([`run`]).
    fn run<P: WasmParams, R: WasmResults>(
        &mut self,
        func: TypedFunc<P, R>,
        params: P,
    ) -> std::result::Result<R, Outcome> {
        let handoff = self.handoff.as_deref();
        run(
            &mut self.exports.store,
            &func,
            params,
            self.fuel,
            self.deadline,
            handoff,
        )
    }
}

/// The raw path on the interpreter. After a timeout, a trap or a hand-off
/// the instance is in an undefined state and must be dropped.
impl RawPath for Instance {
    /// One deadline for the whole call: the call timeout, or `within`
    /// instead where given.
    fn bound(&mut self, within: Option<Duration>) {
        self.deadline = self.timeout.map(|t| Instant::now() + within.unwrap_or(t));
    }

    fn buffer(&mut self, size: i32) -> std::result::Result<i32, Outcome> {
        self.run(self.exports.buffer, size)
    }

    fn invoke(&mut self, name_len: i32, input_len: i32) -> std::result::Result<i64, Outcome> {
        self.run(self.exports.call, (name_len, input_len))
    }

    fn memory(&mut self) -> &mut [u8] {
        self.exports.memory()
    }

    fn memory_pages(&self) -> u64 {
        self.exports.memory_pages()
    }
}

/// Calls `func` with `params`. Where the engine consumes `fuel` the call runs
/// [`FUEL_SLICE`] at a time and stops at the end of a slice with
/// [`Outcome::Timeout`] once `deadline` has passed, or with
/// [`Outcome::Handoff`] once `handoff` is set; elsewhere it runs to its end.
/// A trap, in the module or in a host function, is [`Outcome::Trap`].
fn run<P: WasmParams, R: WasmResults>(
    store: &mut Store<()>,
    func: &TypedFunc<P, R>,
    params: P,
    fuel: bool,
    deadline: Option<Instant>,
    handoff: Option<&AtomicBool>,
) -> std::result::Result<R, Outcome> {
    let trap = |e: wasmi::Error| Outcome::Trap(e.to_string());
    if !fuel {
        return func.call(&mut *store, params).map_err(trap);
    }
    store.set_fuel(FUEL_SLICE).map_err(trap)?;
    let mut call = func.call_resumable(&mut *store, params).map_err(trap)?;
    loop {
        match call {
            TypedResumableCall::Finished(results) => return Ok(results),
            TypedResumableCall::HostTrap(stopped) => {
                return Err(Outcome::Trap(stopped.host_error().to_string()));
            }
            TypedResumableCall::OutOfFuel(stopped) => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Outcome::Timeout);
                }
                if handoff.is_some_and(|h| h.load(Ordering::SeqCst)) {
                    return Err(Outcome::Handoff(deadline));
                }
                store
                    .set_fuel(FUEL_SLICE.max(stopped.required_fuel()))
                    .map_err(trap)?;
                call = stopped.resume(&mut *store).map_err(trap)?;
            }
        }
    }
}

/// The module's imports, as on the compiled tier: WASI as far as TinyGo's
/// runtime needs it ([`raw::wasi`]), and everything else
/// (`extism:host/env`, which only the Extism path calls) as functions that
/// trap.
fn define_imports(
    linker: &mut Linker<()>,
    module: &Module,
) -> std::result::Result<(), wasmi::Error> {
    let val_type = |word: &Word| match word {
        Word::I32 => ValType::I32,
        Word::I64 => ValType::I64,
    };
    for import in module.imports() {
        let ExternType::Func(imported) = import.ty() else {
            continue;
        };
        if import.module() != WASI {
            let what = format!("{}::{}", import.module(), import.name());
            linker.func_new(
                import.module(),
                import.name(),
                imported.clone(),
                move |_, _, _| {
                    Err(wasmi::Error::new(format!(
                        "unknown import: `{what}` has not been defined (the raw path never calls it)"
                    )))
                },
            )?;
            continue;
        }
        let name = import.name().to_owned();
        let ty = match raw::wasi_signature(&name) {
            Some((params, results)) => {
                FuncType::new(params.iter().map(val_type), results.iter().map(val_type))
            }
            None => imported.clone(),
        };
        let returns_errno = matches!(ty.results(), [ValType::I32]);
        linker.func_new(WASI, import.name(), ty, wasi_function(name, returns_errno))?;
    }
    Ok(())
}
