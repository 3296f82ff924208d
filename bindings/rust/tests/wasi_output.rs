//! EXTISM_ENABLE_WASI_OUTPUT gave an Extism plugin the process's stdout, so
//! the host refused to start while it was set. The module now runs on
//! Wasmtime directly with its output always discarded: the variable changes
//! nothing. (Its own test binary: the variable is process-wide.)

#[test]
fn the_extism_output_variable_changes_nothing() {
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe { std::env::set_var(toolerr::WASI_OUTPUT_VARIABLE, "1") };
    let host = toolerr::Host::new().expect("a host starts with the variable set");
    let text = host
        .call("required_field", &serde_json::json!({"field": "id"}))
        .expect("an answer");
    assert!(text.contains("MISSING_REQUIRED_FIELD"), "{text}");
    unsafe { std::env::remove_var(toolerr::WASI_OUTPUT_VARIABLE) };
}
