//! With EXTISM_ENABLE_WASI_OUTPUT set, Extism would give the plugin the
//! process's stdout: the host refuses to start. (Its own test binary: the
//! variable is process-wide.)

#[test]
fn host_refuses_to_start_when_plugin_output_would_reach_stdout() {
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe { std::env::set_var(toolerr::WASI_OUTPUT_VARIABLE, "1") };
    let err = toolerr::Host::new().expect_err("a host started with plugin output enabled");
    assert_eq!(err.code, toolerr::ErrorCode::Trap);
    assert!(err.message.contains("EXTISM_ENABLE_WASI_OUTPUT"), "{err}");
    unsafe { std::env::remove_var(toolerr::WASI_OUTPUT_VARIABLE) };
    toolerr::Host::new().expect("a host starts once the variable is unset");
}
