//! The module on Wasmtime, driven through its raw path (abi/ABI.md, "Raw
//! path", written once in `raw.rs`): one copy each way and no Extism kernel
//! between the host and the module, as in the Go host's wazero engine and
//! the Java binding. This is the compiled tier; `interp.rs` is the
//! interpreter that answers while it compiles, and `tiers.rs` chooses
//! between them.
//!
//! The module's imports: the WASI functions TinyGo's runtime links, given
//! the little they need (`raw::wasi`); and `extism:host/env`, which the raw
//! path never calls, defined as traps.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

use wasmtime::{
    Config, Engine, EngineWeak, FuncType, InstancePre, Linker, Module, Store, Trap, ValType,
};

use crate::abi;
use crate::error::{Error, Result};
use crate::host::sha256_hex;
use crate::raw::{self, Outcome, RawPath, WASI, Word, random_bytes};

/// How often the epoch advances while a call runs: a call's time bound is
/// kept to within one tick.
const TICK: Duration = Duration::from_millis(10);

/// The least bound on an instance's `_initialize`, in ticks: the default
/// call timeout (the host policy's `callTimeoutMs`, 10 s).
const INIT_TICKS: u64 = abi::POLICY_CALL_TIMEOUT_MS / TICK.as_millis() as u64 + 1;

/// The least bound on an instance's `_initialize`: the default call timeout.
pub(crate) const INIT_TIMEOUT: Duration = Duration::from_millis(abi::POLICY_CALL_TIMEOUT_MS);

/// The epoch deadline, in ticks, of a call bounded by `bound`: the ticks it
/// spans, rounded up, and one more (the epoch may advance just after the
/// call starts).
fn ticks_for(bound: Duration) -> u64 {
    bound.as_nanos().div_ceil(TICK.as_nanos()) as u64 + 1
}

/// Wasmtime, set up for one module and one call bound: its engine and where
/// the compilation cache keeps the module's code. It compiles (or loads from
/// the cache) the [`Compiled`] module that instances are made from.
pub(crate) struct Compiler {
    engine: Engine,
    /// Epoch ticks a call may run; `None` for no bound.
    deadline: Option<u64>,
    /// The cache entry of this module and configuration; `None` where there
    /// is no cache folder.
    entry: Option<PathBuf>,
}

impl Compiler {
    /// A new engine for `wasm` whose calls are bounded by `timeout`.
    pub(crate) fn new(wasm: &[u8], timeout: Option<Duration>) -> Result<Compiler> {
        let mut config = Config::new();
        config.epoch_interruption(timeout.is_some());
        let engine = Engine::new(&config)
            .map_err(|e| Error::trap(format!("toolerr: the wasm engine: {e:#}")))?;
        let deadline = timeout.map(|t| {
            ticker().watch(&engine);
            ticks_for(t)
        });
        let entry = cache_path(&engine, wasm);
        Ok(Compiler {
            engine,
            deadline,
            entry,
        })
    }

    /// Whether a compile writes a cache entry.
    pub(crate) fn caches(&self) -> bool {
        self.entry.is_some()
    }

    /// The compiled module from the compilation cache, when it holds a sound
    /// entry for it (see [`cache_path`]); `None` otherwise.
    pub(crate) fn cached(&self) -> Option<Compiled> {
        let path = self.entry.as_ref()?;
        let entry = std::fs::read(path).ok().filter(|e| e.len() > 64)?;
        let (code, digest) = entry.split_at(entry.len() - 64);
        if sha256_hex(code).as_bytes() != digest {
            return None;
        }
        // SAFETY: the bytes are what `precompile_module` wrote for an engine
        // with this compatibility hash (the name says so, and their digest
        // is checked above); wasmtime refuses, safely, bytes of another
        // version or configuration.
        let module = unsafe { Module::deserialize(&self.engine, code) }.ok()?;
        self.ready(&module).ok()
    }

    /// Compiles `wasm` now (with Cranelift, on the threads of the rayon pool
    /// it runs in) and writes the cache entry; a cache that cannot be
    /// written only costs the next start a compile.
    pub(crate) fn compile(&self, wasm: &[u8]) -> Result<Compiled> {
        let code = self
            .engine
            .precompile_module(wasm)
            .map_err(|e| Error::trap(format!("toolerr: compiling the module: {e:#}")))?;
        if let Some(path) = &self.entry {
            let _ = store_entry(path, &code);
        }
        // SAFETY: `code` was produced by `precompile_module` on this engine.
        let module = unsafe { Module::deserialize(&self.engine, &code) }
            .map_err(|e| Error::trap(format!("toolerr: loading the compiled module: {e:#}")))?;
        self.ready(&module)
    }

    /// The compiled module from the cache, or compiled now.
    pub(crate) fn load(&self, wasm: &[u8]) -> Result<Compiled> {
        match self.cached() {
            Some(compiled) => Ok(compiled),
            None => self.compile(wasm),
        }
    }

    fn ready(&self, module: &Module) -> Result<Compiled> {
        let mut linker: Linker<()> = Linker::new(&self.engine);
        define_imports(&mut linker, module)
            .map_err(|e| Error::trap(format!("toolerr: the module's imports: {e:#}")))?;
        let pre = linker
            .instantiate_pre(module)
            .map_err(|e| Error::trap(format!("toolerr: the module's imports: {e:#}")))?;
        Ok(Compiled {
            pre,
            engine: self.engine.clone(),
            deadline: self.deadline,
        })
    }
}

/// The module compiled for one engine, ready to instantiate.
pub(crate) struct Compiled {
    pre: InstancePre<()>,
    engine: Engine,
    /// Epoch ticks a call may run; `None` for no bound.
    deadline: Option<u64>,
}

impl Compiled {
    /// A new instance, initialized.
    pub(crate) fn instantiate(&self) -> Result<Instance> {
        let bad = |e: wasmtime::Error| Error::trap(format!("toolerr: new instance: {e:#}"));
        let mut store = Store::new(&self.engine, ());
        // `_initialize` (a WASI reactor's start, some 20 ms on a quiet
        // machine and more on a loaded one) is bounded too, but never by
        // less than the default call timeout: a host with a short
        // `call_timeout` must still be able to make an instance.
        let _running = self.deadline.map(|ticks| {
            store.set_epoch_deadline(ticks.max(INIT_TICKS));
            ticker().running()
        });
        let instance = self.pre.instantiate(&mut store).map_err(bad)?;
        if let Some(init) = instance.get_func(&mut store, "_initialize") {
            init.typed::<(), ()>(&store)
                .and_then(|f| f.call(&mut store, ()))
                .map_err(bad)?;
        }
        let exports = Exports::new(store, &instance)
            .map_err(|e| Error::trap(format!("toolerr: new instance: {e}")))?;
        Ok(Instance {
            exports,
            deadline: self.deadline,
        })
    }
}

raw::tier!(wasmtime, wasmtime::Error::msg);

/// One instance of the module; runs one call at a time.
pub(crate) struct Instance {
    exports: Exports,
    /// Epoch ticks a call may run; `None` for no bound.
    deadline: Option<u64>,
}

impl Instance {
    /// Marks a call of the module's running while it lives, where calls
    /// have a deadline: the ticker advances the epoch meanwhile.
    fn running(&self) -> Option<Running> {
        self.deadline.map(|_| ticker().running())
    }
}

/// A trap of a call: [`Outcome::Timeout`] where the epoch deadline passed.
fn stopped(e: wasmtime::Error) -> Outcome {
    match e.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => Outcome::Timeout,
        _ => Outcome::Trap(format!("{e:#}")),
    }
}

/// The raw path on compiled code. After a timeout or a trap the instance is
/// in an undefined state and must be dropped.
impl RawPath for Instance {
    /// Sets the epoch deadline: the engine's call timeout, or `within`
    /// instead where given (what is left of a call handed off by the
    /// interpreter).
    fn bound(&mut self, within: Option<Duration>) {
        let ticks = match (self.deadline, within) {
            (Some(_), Some(within)) => Some(ticks_for(within)),
            (deadline, _) => deadline,
        };
        if let Some(ticks) = ticks {
            self.exports.store.set_epoch_deadline(ticks);
        }
    }

    fn buffer(&mut self, size: i32) -> std::result::Result<i32, Outcome> {
        let _running = self.running();
        self.exports
            .buffer
            .call(&mut self.exports.store, size)
            .map_err(stopped)
    }

    fn invoke(&mut self, name_len: i32, input_len: i32) -> std::result::Result<i64, Outcome> {
        let _running = self.running();
        self.exports
            .call
            .call(&mut self.exports.store, (name_len, input_len))
            .map_err(stopped)
    }

    fn memory(&mut self) -> &mut [u8] {
        self.exports.memory()
    }

    fn memory_pages(&self) -> u64 {
        self.exports.memory_pages()
    }
}

/// The module's imports: WASI as far as TinyGo's runtime needs it
/// ([`raw::wasi`]), and `extism:host/env` (which only the Extism path calls)
/// as traps.
fn define_imports(linker: &mut Linker<()>, module: &Module) -> wasmtime::Result<()> {
    let engine = linker.engine().clone();
    let val_type = |word: &Word| match word {
        Word::I32 => ValType::I32,
        Word::I64 => ValType::I64,
    };
    for import in module.imports() {
        let wasmtime::ExternType::Func(imported) = import.ty() else {
            continue;
        };
        if import.module() != WASI {
            continue;
        }
        let name = import.name().to_owned();
        let ty = match raw::wasi_signature(&name) {
            Some((params, results)) => FuncType::new(
                &engine,
                params.iter().map(val_type),
                results.iter().map(val_type),
            ),
            None => imported,
        };
        let returns_errno =
            ty.results().len() == 1 && matches!(ty.results().next(), Some(ValType::I32));
        linker.func_new(WASI, import.name(), ty, wasi_function(name, returns_errno))?;
    }
    linker.define_unknown_imports_as_traps(module)
}

/// Where the compilation cache keeps `wasm` compiled by `engine`. The cache
/// is a folder of this crate's own (`$XDG_CACHE_HOME/toolerr/wasmtime`, else
/// `~/.cache/toolerr/wasmtime`); an entry is named by the module's sha256 and
/// the engine's compatibility hash, and holds the compiled code followed by
/// its sha256, checked before the code is loaded. Any failure of the cache
/// just compiles.
fn cache_path(engine: &Engine, wasm: &[u8]) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .or_else(|| std::env::var_os("LOCALAPPDATA").map(PathBuf::from))?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let module = sha256_hex(wasm);
    Some(base.join("toolerr").join("wasmtime").join(format!(
        "{}-{:016x}.cwasm",
        &module[..32],
        hasher.finish()
    )))
}

/// Writes a cache entry whole or not at all (a new file renamed into place).
fn store_entry(path: &std::path::Path, code: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(path);
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        std::process::id(),
        random_bytes(8)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    ));
    let mut entry = Vec::with_capacity(code.len() + 64);
    entry.extend_from_slice(code);
    entry.extend_from_slice(sha256_hex(code).as_bytes());
    let written = std::fs::write(&tmp, &entry).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Advances the epoch of every engine whose calls have a deadline, every
/// [`TICK`] while a call runs, and sleeps when none has run for a second:
/// an idle server has no thread waking for it.
struct Ticker {
    engines: Mutex<Vec<EngineWeak>>,
    /// Calls running now.
    running: AtomicUsize,
    /// Calls started so far (the ticker sleeps when it stops changing).
    started: AtomicU64,
    asleep: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

fn ticker() -> &'static Ticker {
    static TICKER: OnceLock<&'static Ticker> = OnceLock::new();
    TICKER.get_or_init(|| {
        let ticker: &'static Ticker = Box::leak(Box::new(Ticker {
            engines: Mutex::new(Vec::new()),
            running: AtomicUsize::new(0),
            started: AtomicU64::new(0),
            asleep: AtomicBool::new(false),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }));
        // Without the thread no deadline passes: calls are then unbounded.
        let _ = std::thread::Builder::new()
            .name("toolerr-epoch".into())
            .spawn(move || ticker.run());
        ticker
    })
}

/// Marks a call running while it lives.
struct Running(&'static Ticker);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Ticker {
    fn watch(&self, engine: &Engine) {
        let mut engines = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        engines.retain(|e| e.upgrade().is_some());
        engines.push(engine.weak());
    }

    fn running(&'static self) -> Running {
        self.running.fetch_add(1, Ordering::SeqCst);
        self.started.fetch_add(1, Ordering::SeqCst);
        if self.asleep.load(Ordering::SeqCst) {
            let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.asleep.store(false, Ordering::SeqCst);
            self.wake.notify_one();
        }
        Running(self)
    }

    fn run(&self) {
        let idle_ticks = (Duration::from_secs(1).as_nanos() / TICK.as_nanos()) as u32;
        let (mut idle, mut seen) = (0u32, self.started.load(Ordering::SeqCst));
        loop {
            std::thread::sleep(TICK);
            let engines: Vec<Engine> = {
                let mut weak = self.engines.lock().unwrap_or_else(|p| p.into_inner());
                weak.retain(|e| e.upgrade().is_some());
                weak.iter().filter_map(EngineWeak::upgrade).collect()
            };
            for engine in &engines {
                engine.increment_epoch();
            }
            drop(engines);
            let started = self.started.load(Ordering::SeqCst);
            if started != seen || self.running.load(Ordering::SeqCst) > 0 {
                (idle, seen) = (0, started);
                continue;
            }
            idle += 1;
            if idle < idle_ticks {
                continue;
            }
            // Sleep until a call starts. A call that starts after `asleep`
            // is set wakes the ticker (under the lock, so the wake-up cannot
            // come before the wait); one that started before is seen here.
            let mut guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.asleep.store(true, Ordering::SeqCst);
            if self.running.load(Ordering::SeqCst) > 0
                || self.started.load(Ordering::SeqCst) != seen
            {
                self.asleep.store(false, Ordering::SeqCst);
            }
            while self.asleep.load(Ordering::SeqCst) {
                guard = self.wake.wait(guard).unwrap_or_else(|p| p.into_inner());
            }
            drop(guard);
            (idle, seen) = (0, self.started.load(Ordering::SeqCst));
        }
    }
}
