//! Measures the Rust binding on the requests every engine is measured on
//! (tests/bench/requests.json), as a server uses it: one `Host`, raw calls
//! made one after another on one thread.
//!
//! ```sh
//! cargo run --quiet --locked --manifest-path bindings/rust/Cargo.toml --example bench
//! ```
//!
//! stdout gets one JSON line per measurement and nothing else; tests/bench
//! (`make bench`) reads them:
//!
//! ```text
//! {"engine":"rust","op":"tool_error","ns_per_call":12345.6,"calls_per_sec":81000}
//! {"engine":"rust","op":"cold_start","ms":123.4}
//! ```
//!
//! Progress and diagnostics go to stderr.
//!
//! Per op: a warm-up of at least WARMUP_SECONDS in chunks of about 50 ms
//! until the time per call settles, which also calibrates the call count;
//! then about `TOOLERR_BENCH_SECONDS` (default 1.5) of calls in `BATCHES`
//! timed batches; `ns_per_call` is the median batch's time per call (the
//! machine is shared: a median batch is steadier than the mean, which goes
//! to stderr). Requests go through `Host::call_raw` as one compact JSON text
//! per op, keys in the file's order, the same text for every engine.
//! `cold_start` is `Host::new` (sha256 check, compile or load the module,
//! describe and ABI check) to the first `tool_error` result, the median of
//! `TOOLERR_BENCH_COLD` (default 5) fresh hosts in this process.
//!
//! The dev profile is enough: the workspace builds every dependency
//! (Wasmtime, Cranelift, wasmi) at opt-level 2 even there, and the module's
//! own code is compiled by Cranelift at run time whatever the profile.
//!
//! `TOOLERR_BENCH_TIER=interpreter` measures the interpreter tier instead
//! (`Tiers::Interpreter`: the wasmi instances a first start answers from
//! while the module compiles), as the engine `rust-interpreter`.

use std::time::Instant;

use serde_json::{Value, json};
use toolerr::{Host, Options, Tiers};

const OPS: [&str; 4] = ["tool_error", "format_validation", "parse", "validate"];
const BATCHES: usize = 5;

fn positive(name: &str, fallback: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(fallback)
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Times `n` calls; nanoseconds per call.
fn timed(n: usize, once: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        once();
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

/// A warm-up that calibrates the call count, then BATCHES timed batches of
/// about `seconds` in all; the median batch's nanoseconds per call.
fn measure(engine: &str, name: &str, seconds: f64, once: &mut dyn FnMut()) -> f64 {
    let warmup = (seconds / 3.0).min(0.5);
    let t0 = Instant::now();
    let mut previous = timed(20, once);
    loop {
        let chunk = ((50e6 / previous).round() as usize).max(20);
        let current = timed(chunk, once);
        let settled = (current - previous).abs() <= 0.1 * previous;
        previous = current;
        let elapsed = t0.elapsed().as_secs_f64();
        if (settled && elapsed >= warmup) || elapsed >= 10.0 * warmup {
            break;
        }
    }
    let warmed = t0.elapsed().as_secs_f64();
    let per_batch = ((seconds * 1e9 / previous / BATCHES as f64).round() as usize).max(1);
    let batches: Vec<f64> = (0..BATCHES).map(|_| timed(per_batch, once)).collect();
    let ns = median(&batches);
    let mean = batches.iter().sum::<f64>() / BATCHES as f64;
    eprintln!(
        "bench {engine} {name}: warm-up {warmed:.2} s, {BATCHES}x{per_batch} calls, median {:.1} µs, \
         mean {:.1} µs, batches {} µs",
        ns / 1e3,
        mean / 1e3,
        batches
            .iter()
            .map(|x| format!("{:.1}", x / 1e3))
            .collect::<Vec<_>>()
            .join(" ")
    );
    ns
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds = positive("TOOLERR_BENCH_SECONDS", 1.5);
    let cold_loads = positive("TOOLERR_BENCH_COLD", 5.0).round().max(1.0) as usize;
    let interpreter = std::env::var("TOOLERR_BENCH_TIER").is_ok_and(|t| t == "interpreter");
    let (engine, tiers) = if interpreter {
        ("rust-interpreter", Tiers::Interpreter)
    } else {
        ("rust", Tiers::Auto)
    };
    let new_host = || {
        Host::with_options(Options {
            tiers,
            ..Options::default()
        })
    };
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/bench/requests.json"
    );
    let requests: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;

    // One compact JSON text per op, keys in the file's order.
    let mut texts = Vec::new();
    for op in OPS {
        let request = requests
            .get(op)
            .ok_or_else(|| format!("{path}: no {op:?} request"))?;
        texts.push((op, serde_json::to_vec(request)?));
    }

    // The first host also fills wasmtime's compilation cache, if it is on,
    // before cold starts are timed.
    let host = new_host()?;
    // A first start on an empty cache answers from the interpreter: the
    // calls below are timed on compiled code.
    host.wait_compiled(None);
    for (op, text) in &texts {
        let response: Value = serde_json::from_str(&host.call_raw(op, text)?)?; // a bad request fails here
        let keys: Vec<&str> = response
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        eprintln!(
            "bench {engine} {op}: request {} bytes, response keys {}",
            text.len(),
            keys.join(",")
        );
        let mut once = || {
            host.call_raw(op, text).expect("a call that succeeded once");
        };
        let ns = measure(engine, op, seconds, &mut once);
        let line = json!({"engine": engine, "op": op, "ns_per_call": round1(ns),
                          "calls_per_sec": (1e9 / ns).round() as u64});
        println!("{line}");
    }
    drop(host);

    let tool_error = &texts[0].1;
    let mut ms = Vec::new();
    for _ in 0..cold_loads {
        let t0 = Instant::now();
        let fresh = new_host()?;
        fresh.call_raw("tool_error", tool_error)?;
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
        drop(fresh);
    }
    eprintln!(
        "bench {engine} cold_start: {} ms",
        ms.iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "{}",
        json!({"engine": engine, "op": "cold_start", "ms": round1(median(&ms))})
    );
    Ok(())
}
