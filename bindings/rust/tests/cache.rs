//! The compilation cache and the tiered start: a host whose cache holds the
//! module (per Wasmtime build and configuration, under
//! `$XDG_CACHE_HOME/toolerr/wasmtime`) runs Wasmtime's compiled code at once;
//! one whose cache does not answers from the interpreter while a background
//! thread compiles and writes the entry, and the next host (or process)
//! loads it. An entry that is not what was written is compiled again.
//! (Its own test binary: XDG_CACHE_HOME is process-wide.)

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolerr::{Host, Options, Tier, Tiers};

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.sort();
    found
}

fn answers(host: &Host) {
    let text = host
        .call("required_field", &json!({"field": "id"}))
        .expect("an answer");
    assert!(text.contains("MISSING_REQUIRED_FIELD"), "{text}");
}

/// A host with one instance at the most, so that its tier shows in
/// `interpreted_instances`.
fn one_instance() -> Host {
    Host::with_options(Options {
        max_instances: 1,
        ..Options::default()
    })
    .expect("a host")
}

#[test]
fn the_first_start_answers_from_the_interpreter_and_the_next_from_the_cache() {
    let root = std::env::temp_dir().join(format!("toolerr-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // SAFETY: the only test of this binary that runs in this process (the
    // other is ignored, and run in a child process); no other thread reads
    // the environment.
    unsafe { std::env::set_var("XDG_CACHE_HOME", &root) };
    let dir = root.join("toolerr").join("wasmtime");

    // An empty cache: the interpreter answers at once, and its instance is
    // retired, as it comes back, once the compile has written the entry.
    let started = Instant::now();
    let host = one_instance();
    answers(&host);
    let first = started.elapsed();
    assert_eq!(host.tier(), Tier::Interpreter, "answered in {first:?}");
    assert_eq!(host.interpreted_instances(), 1);
    assert!(host.wait_compiled(None), "the compile failed");
    let compiled = started.elapsed();
    assert_eq!(host.tier(), Tier::Compiled);
    let written = entries(&dir);
    assert_eq!(written.len(), 1, "{written:?}");
    let name = written[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(name.ends_with(".cwasm"), "{name}");
    let entry = std::fs::read(&written[0]).unwrap();
    // The idle interpreted instance is dropped and a compiled one made.
    answers(&host);
    assert_eq!(
        (host.live_instances(), host.interpreted_instances()),
        (1, 0)
    );
    drop(host);
    eprintln!("interpreter answered in {first:?}, compiled after {compiled:?}");

    // The next host loads the entry: compiled code at once, the entry left as
    // it was.
    let started = Instant::now();
    let host = one_instance();
    answers(&host);
    let loaded = started.elapsed();
    assert_eq!(host.tier(), Tier::Compiled);
    assert_eq!(host.interpreted_instances(), 0);
    assert!(host.wait_compiled(Some(Duration::ZERO)));
    assert_eq!(std::fs::read(&written[0]).unwrap(), entry);
    drop(host);
    eprintln!("loaded in {loaded:?}");

    // An interpreted instance busy when the compile ends is retired when it
    // comes back, not pooled: 8 threads calling while a first start compiles.
    std::fs::remove_dir_all(&root).unwrap();
    let host = Host::with_options(Options {
        max_instances: 4,
        ..Options::default()
    })
    .expect("a host");
    assert_eq!(host.tier(), Tier::Interpreter);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                while host.tier() == Tier::Interpreter {
                    answers(&host);
                }
                for _ in 0..20 {
                    answers(&host);
                }
            });
        }
    });
    // Those idle in the pool go at the next call.
    answers(&host);
    assert_eq!(
        host.interpreted_instances(),
        0,
        "interpreted instances left"
    );
    assert!(host.live_instances() <= 4);
    drop(host);

    // A long call that starts on the interpreter is handed off when the
    // compile ends: it runs again on compiled code, within what is left of
    // its time, and answers the same bytes. On the interpreter alone it
    // would take longer than its bound.
    std::fs::remove_dir_all(&root).unwrap();
    let details: serde_json::Map<String, serde_json::Value> =
        (0..199_990).map(|i| (format!("k{i}"), json!(i))).collect();
    let long = json!({"code": "X", "message": "m", "details": details});
    let host = Host::with_options(Options {
        max_instances: 1,
        call_timeout: Some(Duration::from_secs(8)),
        ..Options::default()
    })
    .expect("a host");
    assert_eq!(host.tier(), Tier::Interpreter);
    let started = Instant::now();
    let handed = host.call("tool_error", &long).expect("a handed-off call");
    let took = started.elapsed();
    assert_eq!(host.tier(), Tier::Compiled);
    assert_eq!(host.interpreted_instances(), 0);
    let again = host.call("tool_error", &long).expect("a compiled call");
    assert!(handed == again, "the hand-off answered other bytes");
    drop(host);
    eprintln!("a long call handed off answered in {took:?}");

    // Another configuration (no call timeout compiles other code) has an
    // entry of its own.
    let host = Host::with_options(Options {
        call_timeout: None,
        ..Options::default()
    })
    .expect("a host without a timeout");
    answers(&host);
    drop(host); // waits for its compile
    assert_eq!(entries(&dir).len(), 2);

    // A damaged entry (one bit of its code, or cut short) is not loaded: the
    // interpreter answers, and the module is compiled again and the entry
    // rewritten.
    for damage in [0usize, 1] {
        let mut bad = entry.clone();
        if damage == 0 {
            bad[entry.len() / 2] ^= 1;
        } else {
            bad.truncate(entry.len() / 3);
        }
        std::fs::write(&written[0], &bad).unwrap();
        let host = Host::new().expect("a host despite a damaged entry");
        assert_eq!(host.tier(), Tier::Interpreter, "damage {damage}");
        answers(&host);
        assert!(host.wait_compiled(None));
        assert_eq!(
            std::fs::read(&written[0]).unwrap(),
            entry,
            "damage {damage}"
        );
    }

    // `Tiers::Compiled` compiles before it answers, and writes the entry;
    // `Tiers::Interpreter` neither reads nor writes the cache.
    std::fs::remove_dir_all(&root).unwrap();
    let interpreted = Host::with_options(Options {
        tiers: Tiers::Interpreter,
        ..Options::default()
    })
    .expect("an interpreter");
    answers(&interpreted);
    assert!(!interpreted.wait_compiled(None));
    drop(interpreted);
    assert!(entries(&dir).is_empty());
    let host = Host::with_options(Options {
        tiers: Tiers::Compiled,
        ..Options::default()
    })
    .expect("a compiled host");
    assert_eq!(host.tier(), Tier::Compiled);
    assert_eq!(entries(&dir), written);
    assert_eq!(std::fs::read(&written[0]).unwrap(), entry);
    std::fs::write(&written[0], b"damaged").unwrap();
    let host = Host::with_options(Options {
        tiers: Tiers::Interpreter,
        ..Options::default()
    })
    .expect("an interpreter");
    answers(&host);
    assert_eq!(std::fs::read(&written[0]).unwrap(), b"damaged");

    // A cache that cannot be written (a file where the folder should be)
    // only costs the compilation: the compiled code serves this host.
    std::fs::remove_dir_all(&root).unwrap();
    std::fs::create_dir_all(root.join("toolerr")).unwrap();
    std::fs::write(root.join("toolerr").join("wasmtime"), b"not a folder").unwrap();
    let host = Host::new().expect("a host without a cache");
    answers(&host);
    assert!(host.wait_compiled(None));
    answers(&host);
    drop(host);

    // A process that exits, dropping its host (the batch example) or not
    // (the process-wide `toolerr::host()`), waits for the compile: the next
    // one finds the cache filled. One killed before the compile ends leaves
    // no entry, and the next starts on the interpreter again.
    std::fs::remove_dir_all(&root).unwrap();
    let line = "{\"op\":\"required_field\",\"input\":{\"field\":\"id\"}}\n";
    let mut killed = batch(&root, false);
    let mut stdin = killed.stdin.take().unwrap();
    stdin.write_all(line.as_bytes()).unwrap();
    let mut answer = String::new();
    BufReader::new(killed.stdout.take().unwrap())
        .read_line(&mut answer)
        .unwrap();
    assert!(answer.contains("MISSING_REQUIRED_FIELD"), "{answer}");
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert!(
        entries(&dir).iter().all(|e| !is_entry(e)),
        "{:?}",
        entries(&dir)
    );
    let mut child = batch(&root, true);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("MISSING_REQUIRED_FIELD"));
    assert_eq!(entries(&dir), written, "after the batch example's exit");

    std::fs::remove_dir_all(&root).unwrap();
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "--exact",
            "a_process_wide_host_in_a_child_process",
            "--ignored",
            "--nocapture",
        ])
        .env("XDG_CACHE_HOME", &root)
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "{out:?}"
    );
    assert_eq!(entries(&dir), written, "after the process-wide host's exit");

    let _ = std::fs::remove_dir_all(&root);
    unsafe { std::env::remove_var("XDG_CACHE_HOME") };
}

/// Set for the child process of the test above.
const CHILD: &str = "TOOLERR_CACHE_TEST_CHILD";

/// In a child process (CHILD set): the process-wide host, on an empty cache,
/// answers from the interpreter and is never dropped; the process's exit
/// waits for the compile. Elsewhere it does nothing.
#[test]
#[ignore = "run in a child process by the test above"]
fn a_process_wide_host_in_a_child_process() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let host = toolerr::host().expect("the process-wide host");
    assert_eq!(host.tier(), Tier::Interpreter);
    answers(host);
}

fn is_entry(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "cwasm")
}

/// The batch example, built by `cargo test` next to this test's binary,
/// started with the cache at `root`.
fn batch(root: &Path, output: bool) -> std::process::Child {
    let exe = std::env::current_exe().expect("test binary path");
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target profile dir")
        .join("examples")
        .join(format!("batch{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} is missing", bin.display());
    Command::new(bin)
        .env("XDG_CACHE_HOME", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if output {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .spawn()
        .expect("start the batch example")
}
