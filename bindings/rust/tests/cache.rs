//! The compilation cache: `Host::new` compiles the module once per machine
//! (per Wasmtime build and configuration) and keeps the code under
//! `$XDG_CACHE_HOME/toolerr/wasmtime`; an entry that is not what was written
//! is compiled again. (Its own test binary: XDG_CACHE_HOME is process-wide.)

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use toolerr::{Host, Options};

fn entries(dir: &PathBuf) -> Vec<PathBuf> {
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

#[test]
fn the_module_is_compiled_once_and_a_damaged_entry_again() {
    let root = std::env::temp_dir().join(format!("toolerr-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe { std::env::set_var("XDG_CACHE_HOME", &root) };
    let dir = root.join("toolerr").join("wasmtime");

    let started = Instant::now();
    answers(&Host::new().expect("a host"));
    let compiled = started.elapsed();
    let written = entries(&dir);
    assert_eq!(written.len(), 1, "{written:?}");
    let name = written[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(name.ends_with(".cwasm"), "{name}");
    let entry = std::fs::read(&written[0]).unwrap();

    // Loaded, not compiled: the entry is left as it was, and it is quicker.
    let started = Instant::now();
    answers(&Host::new().expect("a host from the cache"));
    let loaded = started.elapsed();
    assert_eq!(std::fs::read(&written[0]).unwrap(), entry);
    eprintln!("compiled in {compiled:?}, loaded in {loaded:?}");
    assert!(
        loaded < compiled,
        "loaded in {loaded:?}, compiled in {compiled:?}"
    );

    // Another configuration (no call timeout compiles other code) has an
    // entry of its own.
    answers(
        &Host::with_options(Options {
            call_timeout: None,
            ..Options::default()
        })
        .expect("a host without a timeout"),
    );
    assert_eq!(entries(&dir).len(), 2);

    // A damaged entry (one bit of its code, or cut short) is not loaded: the
    // module is compiled again and the entry rewritten.
    for damage in [0usize, 1] {
        let mut bad = entry.clone();
        if damage == 0 {
            bad[entry.len() / 2] ^= 1;
        } else {
            bad.truncate(entry.len() / 3);
        }
        std::fs::write(&written[0], &bad).unwrap();
        answers(&Host::new().expect("a host despite a damaged entry"));
        assert_eq!(
            std::fs::read(&written[0]).unwrap(),
            entry,
            "damage {damage}"
        );
    }

    // A cache that cannot be written (a file where the folder should be)
    // only costs the compilation.
    std::fs::remove_dir_all(&root).unwrap();
    std::fs::create_dir_all(root.join("toolerr")).unwrap();
    std::fs::write(root.join("toolerr").join("wasmtime"), b"not a folder").unwrap();
    answers(&Host::new().expect("a host without a cache"));
    let _ = std::fs::remove_dir_all(&root);
    unsafe { std::env::remove_var("XDG_CACHE_HOME") };
}
