//! What both tiers share: the raw path (abi/ABI.md, "Raw path") and the
//! WASI functions the module imports, each written once over what a tier
//! gives. `toolerr_buffer` gives the address of a buffer inside the module,
//! the host writes the export's name and the request there, `toolerr_call`
//! runs the export and answers where the response lies in linear memory.
//! engine.rs runs the module's exports on Wasmtime's compiled code,
//! interp.rs on wasmi; [`call`] is the protocol of a call over them
//! ([`RawPath`]), and [`wasi`] what the imports do with the module's memory.
//! `tier!` writes, in each of them, what they do alike over their runtime's
//! API: finding the exports, and the WASI imports' host function.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What one call came to.
pub(crate) enum Outcome {
    /// The export's response.
    Response(Vec<u8>),
    /// The module's error object (`{"code", "message"}`): a bad request.
    Refused(Vec<u8>),
    /// The module has no buffer for a request this large.
    TooLarge,
    /// The call ran past its deadline.
    Timeout,
    /// An interpreted call stopped because compiled code can now be had:
    /// the request is to be run again on a compiled instance (calls are pure
    /// functions of their requests), within what is left of its time, up to
    /// its deadline (`None`: no bound).
    Handoff(Option<Instant>),
    /// The module trapped; the message says how.
    Trap(String),
}

/// The request buffer `toolerr_buffer` gave an instance (0: none yet) and
/// the size it was asked for: it stays the buffer until a larger one is
/// asked for (abi/ABI.md, "Raw path"), so a request that fits needs no call.
#[derive(Default)]
pub(crate) struct RequestBuffer {
    at: usize,
    size: i32,
}

/// One instance of the module on one tier, as the raw path sees it: its two
/// exports and its memory. [`call`], the protocol of a call, is written once
/// over them.
pub(crate) trait RawPath {
    /// Bounds the call about to run by the call timeout, or by `within`
    /// instead where given; the bound covers both of its exports' calls.
    fn bound(&mut self, within: Option<Duration>);

    /// Calls `toolerr_buffer(size)`: the address of a buffer of `size`
    /// bytes, 0 when the module has none that large.
    fn buffer(&mut self, size: i32) -> Result<i32, Outcome>;

    /// Calls `toolerr_call(name_len, input_len)`: where the response lies,
    /// packed (abi/ABI.md, "Raw path").
    fn invoke(&mut self, name_len: i32, input_len: i32) -> Result<i64, Outcome>;

    /// The instance's linear memory.
    fn memory(&mut self) -> &mut [u8];

    /// The instance's linear memory now, in 64 KiB pages.
    fn memory_pages(&self) -> u64;
}

/// Declares in a tier's module what both tiers write alike over their
/// runtime, Wasmtime or wasmi (whose API follows Wasmtime's, with the same
/// names): `Exports`, an instance's store and what the raw path uses in it,
/// and `wasi_function`, the host function of a WASI import. `$error` makes
/// the runtime's error of a message: `raw::tier!(wasmtime,
/// wasmtime::Error::msg)`, `raw::tier!(wasmi, wasmi::Error::new)`.
macro_rules! tier {
    ($runtime:ident, $error:path) => {
        /// An instance's store, its `toolerr_buffer` and `toolerr_call`, and
        /// its memory.
        struct Exports {
            store: $runtime::Store<()>,
            buffer: $runtime::TypedFunc<i32, i32>,
            call: $runtime::TypedFunc<(i32, i32), i64>,
            memory: $runtime::Memory,
        }

        impl Exports {
            /// Looks them up in `instance`, started in `store`; the error
            /// says what is missing.
            fn new(
                mut store: $runtime::Store<()>,
                instance: &$runtime::Instance,
            ) -> ::std::result::Result<Exports, String> {
                let buffer = instance
                    .get_typed_func::<i32, i32>(&mut store, "toolerr_buffer")
                    .map_err(|e| format!("{e:#}"))?;
                let call = instance
                    .get_typed_func::<(i32, i32), i64>(&mut store, "toolerr_call")
                    .map_err(|e| format!("{e:#}"))?;
                let memory = instance
                    .get_memory(&mut store, "memory")
                    .ok_or("the module exports no memory")?;
                Ok(Exports {
                    store,
                    buffer,
                    call,
                    memory,
                })
            }

            /// [`RawPath::memory`](crate::raw::RawPath::memory).
            fn memory(&mut self) -> &mut [u8] {
                self.memory.data_mut(&mut self.store)
            }

            /// [`RawPath::memory_pages`](crate::raw::RawPath::memory_pages).
            fn memory_pages(&self) -> u64 {
                self.memory.size(&self.store)
            }
        }

        /// The host function of the WASI import `name`:
        /// [`raw::wasi`](crate::raw::wasi) on its arguments and the
        /// module's memory, its errno the function's result where
        /// `returns_errno`.
        fn wasi_function(
            name: String,
            returns_errno: bool,
        ) -> impl Fn(
            $runtime::Caller<'_, ()>,
            &[$runtime::Val],
            &mut [$runtime::Val],
        ) -> ::std::result::Result<(), $runtime::Error>
        + Send
        + Sync
        + 'static {
            move |mut caller, params, results| {
                let args: Vec<i64> = params
                    .iter()
                    .map(|v| v.i64().or(v.i32().map(i64::from)).unwrap_or(0))
                    .collect();
                let memory = caller
                    .get_export("memory")
                    .and_then($runtime::Extern::into_memory)
                    .map(|memory| memory.data_mut(&mut caller));
                let errno = $crate::raw::wasi(&name, &args, memory).map_err($error)?;
                if returns_errno {
                    results[0] = $runtime::Val::I32(errno);
                }
                Ok(())
            }
        }
    };
}
pub(crate) use tier;

/// Runs `export` on `request` on `instance`, whose request buffer is `held`,
/// bounded by the call timeout, or by `within` instead where given (what is
/// left of a call handed off by the interpreter).
pub(crate) fn call(
    instance: &mut dyn RawPath,
    held: &mut RequestBuffer,
    export: &str,
    request: &[u8],
    within: Option<Duration>,
) -> Outcome {
    let (Ok(name_len), Ok(input_len)) = (i32::try_from(export.len()), i32::try_from(request.len()))
    else {
        return Outcome::TooLarge;
    };
    let Some(size) = name_len.checked_add(input_len) else {
        return Outcome::TooLarge;
    };
    instance.bound(within);
    if held.at == 0 || size > held.size {
        match instance.buffer(size) {
            Ok(0) => return Outcome::TooLarge,
            Ok(at) => {
                *held = RequestBuffer {
                    at: at as u32 as usize,
                    size,
                }
            }
            Err(stop) => return stop,
        }
    }
    let (at, memory) = (held.at, instance.memory());
    let written = write(memory, at, export.as_bytes())
        .and_then(|()| write(memory, at + export.len(), request));
    if let Err(e) = written {
        return Outcome::Trap(format!("writing the request: {e}"));
    }
    match instance.invoke(name_len, input_len) {
        Ok(packed) => response(instance.memory(), packed as u64),
        Err(stop) => stop,
    }
}

/// The response `toolerr_call` answered with `packed`: where it lies in
/// `memory`, and whether it is the module's error object.
fn response(memory: &[u8], packed: u64) -> Outcome {
    let (start, len) = ((packed >> 32) as usize, (packed & 0x7fff_ffff) as usize);
    let Some(bytes) = memory.get(start..start + len) else {
        return Outcome::Trap("the response lies outside the module's memory".into());
    };
    if packed & 0x8000_0000 != 0 {
        Outcome::Refused(bytes.to_vec())
    } else {
        Outcome::Response(bytes.to_vec())
    }
}

/// Writes `bytes` into `memory` at `at`, as Wasmtime's and wasmi's
/// `Memory::write` do (and with their message).
fn write(memory: &mut [u8], at: usize, bytes: &[u8]) -> Result<(), &'static str> {
    at.checked_add(bytes.len())
        .and_then(|end| memory.get_mut(at..end))
        .ok_or("out of bounds memory access")?
        .copy_from_slice(bytes);
    Ok(())
}

/// The WASI import module's name.
pub(crate) const WASI: &str = "wasi_snapshot_preview1";

/// The WASI errno for "bad file descriptor": there are no files.
const EBADF: i32 = 8;

/// A value type of the WASI functions [`wasi`] defines.
#[derive(Clone, Copy)]
pub(crate) enum Word {
    I32,
    I64,
}

/// The WASI functions the module imports that [`wasi`] defines one by one,
/// with their parameters and results: a tier links each with this
/// signature, so that a module importing it with another fails to
/// instantiate. Every other WASI function is about files, and answers
/// EBADF.
const WASI_DEFINED: [(&str, &[Word], &[Word]); 6] = {
    use Word::{I32, I64};
    [
        ("fd_write", &[I32, I32, I32, I32], &[I32]),
        ("clock_time_get", &[I32, I64, I32], &[I32]),
        ("random_get", &[I32, I32], &[I32]),
        ("args_sizes_get", &[I32, I32], &[I32]),
        ("args_get", &[I32, I32], &[I32]),
        ("proc_exit", &[I32], &[]),
    ]
};

/// The parameters and results of the WASI function `name` where [`wasi`]
/// defines it; `None` for one that answers EBADF, linked with the type the
/// module imports it with.
pub(crate) fn wasi_signature(name: &str) -> Option<(&'static [Word], &'static [Word])> {
    WASI_DEFINED
        .iter()
        .find(|(defined, ..)| *defined == name)
        .map(|&(_, params, results)| (params, results))
}

/// What the WASI function `name` does on both tiers, given its arguments
/// (each widened to an i64) and the module's memory (`None`: the module
/// exports none): the errno it returns (for a function that returns one),
/// or why it traps. WASI as far as TinyGo's runtime needs it: no arguments,
/// no files, a clock, random bytes; output (a panic message of TinyGo's
/// runtime, before it traps) is discarded: a stdio server's stdout is its
/// protocol.
pub(crate) fn wasi(name: &str, args: &[i64], memory: Option<&mut [u8]>) -> Result<i32, String> {
    let arg = |i: usize| args.get(i).copied().unwrap_or(0) as i32;
    let at = |i: usize| arg(i) as u32 as usize;
    let memory = || memory.ok_or("the module exports no memory");
    match name {
        "fd_write" => {
            let memory = memory()?;
            let total =
                iovs_total(memory, arg(1), arg(2)).ok_or("fd_write: iovecs out of bounds")?;
            write(memory, at(3), &total.to_le_bytes())?;
        }
        "clock_time_get" => write(memory()?, at(2), &clock_nanos(arg(0)).to_le_bytes())?,
        "random_get" => write(memory()?, at(0), &random_bytes(arg(1).max(0) as usize))?,
        // No arguments.
        "args_sizes_get" => {
            let memory = memory()?;
            write(memory, at(0), &0u32.to_le_bytes())?;
            write(memory, at(1), &0u32.to_le_bytes())?;
        }
        "args_get" => {}
        "proc_exit" => return Err(format!("the module exited ({})", arg(0))),
        _ => return Ok(EBADF),
    }
    Ok(0)
}

/// The bytes `fd_write` was asked to write: the lengths of its `count`
/// iovecs at `iovs` (each an address and a length, 4 bytes each); `None`
/// when they lie outside `memory`. Nothing is written anywhere.
fn iovs_total(memory: &[u8], iovs: i32, count: i32) -> Option<u32> {
    let mut total = 0u32;
    for i in 0..count.max(0) as usize {
        let at = (iovs as u32 as usize).checked_add(8 * i + 4)?;
        let len = memory.get(at..at.checked_add(4)?)?;
        total = total.wrapping_add(u32::from_le_bytes(len.try_into().ok()?));
    }
    Some(total)
}

/// `clock_time_get`: the real time for the realtime clock (id 0), else
/// nanoseconds of a monotonic clock.
fn clock_nanos(id: i32) -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    if id == 0 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    } else {
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// Bytes for `random_get`: the module's maps seed from them; nothing it
/// answers depends on them.
pub(crate) fn random_bytes(len: usize) -> Vec<u8> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let state = std::collections::hash_map::RandomState::new();
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        let mut hasher = state.build_hasher();
        COUNTER.fetch_add(1, Ordering::Relaxed).hash(&mut hasher);
        out.extend_from_slice(&hasher.finish().to_le_bytes());
    }
    out.truncate(len);
    out
}
