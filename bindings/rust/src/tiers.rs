//! A tiered start, as the Go host's (host/tiered.go). Wasmtime's optimizing
//! compiler, Cranelift, takes about a second of two cores for this module;
//! a process whose compilation cache already holds it loads the code in a
//! few milliseconds and runs on it alone. One whose cache does not (a new
//! machine, a new build of the crate, an emptied or damaged cache) answers
//! from an interpreter, wasmi, which takes the module in a few milliseconds
//! and runs calls many times slower, while a background thread compiles
//! with Cranelift and writes the cache entry. Once that is done, new
//! instances are compiled ones, interpreted ones are dropped as they come
//! back to the pool (or are found idle in it), the interpreter's module is
//! let go with the last of them, and a call still running on the
//! interpreter stops at its next slice of fuel and runs again on compiled
//! code within what is left of its time (interp.rs). The outputs are the
//! same bytes: one module, two ways of running it.
//!
//! Dropping an [`Engines`] (a `Host`) waits for its compile, so that the
//! cache is filled for the next start and nothing runs once it is gone; so
//! does the process's exit, for at most [`EXIT_WAIT`], for a compile that
//! will write the cache (the process-wide `toolerr::host()` is never
//! dropped). A process killed before the compile ends leaves the cache as
//! it was (an entry is written whole or not at all), and the next one
//! starts on the interpreter again.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Once, OnceLock};
use std::time::{Duration, Instant};

use crate::engine::{self, Compiled, Compiler};
use crate::error::Result;
use crate::interp::{self, Interpreted};
use crate::raw::{self, Outcome, RawPath, RequestBuffer};

/// Which ways of running the module a [`Host`](crate::Host) may use
/// ([`Options::tiers`](crate::Options::tiers)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tiers {
    /// Wasmtime's compiled code, from the crate's compilation cache; when the
    /// cache does not hold it, the interpreter (wasmi) answers at once while
    /// a background thread compiles the module and writes the cache entry.
    /// The default.
    #[default]
    Auto,
    /// Wasmtime's compiled code only: a host that finds nothing in the cache
    /// compiles the module before it answers (about a second on two cores),
    /// and writes the cache entry.
    Compiled,
    /// The interpreter only: nothing is compiled, and the cache is neither
    /// read nor written. Calls run many times slower than compiled ones.
    Interpreter,
}

/// How an instance runs the module ([`Host::tier`](crate::Host::tier)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// On wasmi, an interpreter: the module is read and not compiled.
    Interpreter,
    /// On Wasmtime, compiled by Cranelift (from the cache, or just now).
    Compiled,
}

/// How long the process's exit waits at most for the compiles that will
/// fill the cache.
pub(crate) const EXIT_WAIT: Duration = Duration::from_secs(30);

/// One instance of the module, on either tier, and the request buffer its
/// raw path holds.
pub(crate) struct Instance {
    on: On,
    request: RequestBuffer,
}

/// What an instance runs on.
enum On {
    Compiled(engine::Instance),
    /// Boxed: a wasmi store is large, and an instance moves in and out of
    /// the pool on every call.
    Interpreted(Box<interp::Instance>),
}

impl From<engine::Instance> for Instance {
    fn from(instance: engine::Instance) -> Instance {
        let on = On::Compiled(instance);
        Instance {
            on,
            request: RequestBuffer::default(),
        }
    }
}

impl From<interp::Instance> for Instance {
    fn from(instance: interp::Instance) -> Instance {
        let on = On::Interpreted(Box::new(instance));
        Instance {
            on,
            request: RequestBuffer::default(),
        }
    }
}

impl Instance {
    /// Runs `export` on `request`, bounded by the call timeout, or by
    /// `within` instead where given. After a timeout, a trap or a hand-off
    /// the instance is in an undefined state and must be dropped.
    pub(crate) fn call(
        &mut self,
        export: &str,
        request: &[u8],
        within: Option<Duration>,
    ) -> Outcome {
        let instance: &mut dyn RawPath = match &mut self.on {
            On::Compiled(i) => i,
            On::Interpreted(i) => &mut **i,
        };
        raw::call(instance, &mut self.request, export, request, within)
    }

    /// The instance's linear memory now, in 64 KiB pages.
    pub(crate) fn memory_pages(&self) -> u64 {
        match &self.on {
            On::Compiled(i) => i.memory_pages(),
            On::Interpreted(i) => i.memory_pages(),
        }
    }
}

/// The module on the tiers a host uses: what new instances are made from.
pub(crate) struct Engines {
    shared: Arc<Shared>,
    /// The interpreter's instances alive now.
    interpreted: Arc<AtomicUsize>,
}

/// What the host and its compile thread share.
struct Shared {
    /// Set once Wasmtime's code can be had; never unset.
    compiled: OnceLock<Compiled>,
    /// The interpreter, until the compiled code is set.
    interpreter: Mutex<Option<Arc<Interpreted>>>,
    /// True once no compile is left to run (well or not).
    done: Mutex<bool>,
    finished: Condvar,
}

impl Engines {
    /// The module `wasm` (its memory already capped) on the tiers `tiers`
    /// allows, its calls bounded by `timeout`.
    pub(crate) fn new(wasm: Vec<u8>, timeout: Option<Duration>, tiers: Tiers) -> Result<Engines> {
        let shared = Arc::new(Shared {
            compiled: OnceLock::new(),
            interpreter: Mutex::new(None),
            done: Mutex::new(true),
            finished: Condvar::new(),
        });
        let mut engines = Engines {
            shared: Arc::clone(&shared),
            interpreted: Arc::new(AtomicUsize::new(0)),
        };
        if tiers == Tiers::Interpreter {
            let interpreter = Interpreted::new(&wasm, timeout, None)?;
            engines.interpreted = interpreter.live();
            *shared.lock_interpreter() = Some(Arc::new(interpreter));
            return Ok(engines);
        }
        let compiler = Compiler::new(&wasm, timeout)?;
        if tiers == Tiers::Compiled {
            let _ = shared.compiled.set(compiler.load(&wasm)?);
            return Ok(engines);
        }
        if let Some(compiled) = compiler.cached() {
            let _ = shared.compiled.set(compiled);
            return Ok(engines);
        }
        // Nothing cached: the interpreter answers meanwhile. Where it cannot
        // take the module, the module is compiled now, as with
        // `Tiers::Compiled`.
        let ready = Arc::new(AtomicBool::new(false));
        let Ok(interpreter) = Interpreted::new(&wasm, timeout, Some(Arc::clone(&ready))) else {
            let _ = shared.compiled.set(compiler.compile(&wasm)?);
            return Ok(engines);
        };
        engines.interpreted = interpreter.live();
        *shared.lock_interpreter() = Some(Arc::new(interpreter));
        *shared.lock_done() = false;
        let caches = compiler.caches();
        if caches {
            exit_waits_for_one();
        }
        let worker = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("toolerr-compile".into())
            .spawn(move || {
                // Dropped last, even when the compile panics: the host's drop
                // and the process's exit wait for it.
                let _finished = Finished {
                    shared: Arc::clone(&worker),
                    caches,
                };
                if let Ok(compiled) = compile_beside_calls(&compiler, &wasm) {
                    let _ = worker.compiled.set(compiled);
                    // New instances are compiled ones from here on; calls
                    // still running on the interpreter hand off to them, and
                    // the interpreted instances still out keep what they
                    // need.
                    ready.store(true, Ordering::SeqCst);
                    worker.lock_interpreter().take();
                }
                // Let go of the engine and the bytes before the compile is
                // marked done.
                drop(compiler);
                drop(wasm);
            });
        if spawned.is_err() {
            // The closure was dropped unrun, and its `Finished` never made:
            // the interpreter serves for the host's life, as when the
            // compile fails.
            if caches {
                exit_wait_done();
            }
            *shared.lock_done() = true;
        }
        Ok(engines)
    }

    /// A new instance, initialized: a compiled one once the compiled code
    /// can be had, else an interpreted one.
    pub(crate) fn instantiate(&self) -> Result<Instance> {
        if let Some(compiled) = self.shared.compiled.get() {
            return compiled.instantiate().map(Instance::from);
        }
        let interpreter = self.shared.lock_interpreter().clone();
        match interpreter {
            Some(interpreter) => interpreter.instantiate().map(Instance::from),
            // The interpreter is let go only after the compiled code is set.
            None => self
                .shared
                .compiled
                .get()
                .expect("compiled code before the interpreter is let go")
                .instantiate()
                .map(Instance::from),
        }
    }

    /// Whether `instance` is to be dropped rather than pooled: an
    /// interpreted one, once compiled ones can be had.
    pub(crate) fn retired(&self, instance: &Instance) -> bool {
        matches!(instance.on, On::Interpreted(_)) && self.shared.compiled.get().is_some()
    }

    /// The interpreter's instances alive now, idle or busy.
    pub(crate) fn interpreted(&self) -> usize {
        self.interpreted.load(Ordering::SeqCst)
    }

    /// How new instances run the module now.
    pub(crate) fn tier(&self) -> Tier {
        if self.shared.compiled.get().is_some() {
            Tier::Compiled
        } else {
            Tier::Interpreter
        }
    }

    /// Waits for a background compile to end, for at most `timeout` (`None`:
    /// as long as it takes); true when new instances run compiled code.
    pub(crate) fn wait_compiled(&self, timeout: Option<Duration>) -> bool {
        let until = timeout.map(|t| Instant::now() + t);
        let mut done = self.shared.lock_done();
        while !*done {
            done = match until {
                None => self
                    .shared
                    .finished
                    .wait(done)
                    .unwrap_or_else(|p| p.into_inner()),
                Some(until) => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    self.shared
                        .finished
                        .wait_timeout(done, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
        drop(done);
        self.shared.compiled.get().is_some()
    }
}

impl Drop for Engines {
    /// Waits for the compile, as the Go host's `Close` does: the next start
    /// finds the cache filled, and no thread of this host runs on.
    fn drop(&mut self) {
        self.wait_compiled(None);
    }
}

impl Shared {
    fn lock_interpreter(&self) -> MutexGuard<'_, Option<Arc<Interpreted>>> {
        self.interpreter.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_done(&self) -> MutexGuard<'_, bool> {
        self.done.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Marks the compile ended when dropped, however it ended.
struct Finished {
    shared: Arc<Shared>,
    caches: bool,
}

impl Drop for Finished {
    fn drop(&mut self) {
        *self.shared.lock_done() = true;
        self.shared.finished.notify_all();
        if self.caches {
            exit_wait_done();
        }
    }
}

/// Compiles on all the machine's cores but one, which is left to the calls
/// the interpreter runs meanwhile (as the Go host leaves one to wazero's
/// interpreter): a pool of its own, so that Wasmtime's parallel compile
/// stays in it.
fn compile_beside_calls(compiler: &Compiler, wasm: &[u8]) -> Result<Compiled> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cores.saturating_sub(1).max(1))
        .thread_name(|i| format!("toolerr-compile-{i}"))
        .build();
    match pool {
        Ok(pool) => pool.install(|| compiler.compile(wasm)),
        Err(_) => compiler.compile(wasm),
    }
}

/// The compiles that will write a cache entry and have not ended; the
/// process's exit waits for them.
static PENDING: Mutex<usize> = Mutex::new(0);
static PENDING_DONE: Condvar = Condvar::new();

fn exit_waits_for_one() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        unsafe extern "C" {
            fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
        }
        // SAFETY: `atexit` is the C runtime's; `at_exit` is a plain function
        // that lives as long as the program.
        unsafe { atexit(at_exit) };
    });
    *PENDING.lock().unwrap_or_else(|p| p.into_inner()) += 1;
}

fn exit_wait_done() {
    let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    *pending = pending.saturating_sub(1);
    PENDING_DONE.notify_all();
}

/// Run by the C runtime's `exit` (as `main` returns, or at
/// `std::process::exit`): waits, for at most [`EXIT_WAIT`], for the
/// compiles that will fill the cache, so that the next process starts on
/// compiled code. A panic must not unwind out of it, and nothing here
/// panics.
extern "C" fn at_exit() {
    let until = Instant::now() + EXIT_WAIT;
    let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    while *pending > 0 {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        pending = PENDING_DONE
            .wait_timeout(pending, left)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}
