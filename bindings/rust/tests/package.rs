//! The crate as Cargo packages it: it carries the module it embeds (the
//! bytes of plugin/toolerr.wasm, which wasm/toolerr.wasm links to), its
//! version is the repository's VERSION and the module's own, it is
//! Apache-2.0 with the repository's LICENSE, and it turns on no serde_json
//! feature that it does not need.

mod common;

use std::path::Path;
use std::process::Command;

use toolerr::{Host, WASM, WASM_SHA256_FILE};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a command and returns its stdout; fails the test with its stderr.
fn output(mut command: Command) -> Vec<u8> {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("run {command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs cargo (the one running these tests) in the crate's folder, offline,
/// and returns its stdout; fails the test with its stderr.
fn cargo(args: &[&str]) -> String {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.args(args).arg("--offline").current_dir(crate_dir());
    String::from_utf8(output(command)).expect("utf-8")
}

#[test]
fn the_module_files_link_to_the_committed_module() {
    // What include_bytes! and include_str! read (tests/host.rs compares the
    // bytes with plugin/toolerr.wasm and its record).
    for (link, target) in [
        ("wasm/toolerr.wasm", "../../../plugin/toolerr.wasm"),
        (
            "wasm/toolerr.wasm.sha256",
            "../../../plugin/toolerr.wasm.sha256",
        ),
    ] {
        let read = std::fs::read_link(crate_dir().join(link))
            .unwrap_or_else(|e| panic!("{link} is not a symlink: {e}"));
        assert_eq!(read, Path::new(target), "{link}");
    }
}

#[test]
fn cargo_package_ships_the_module_readme_and_license_and_no_tests() {
    let listed = cargo(&["package", "--list", "--allow-dirty"]);
    let files: Vec<&str> = listed.lines().collect();
    for want in [
        "Cargo.toml",
        "LICENSE",
        "README.md",
        "src/lib.rs",
        "src/host.rs",
        "wasm/toolerr.wasm",
        "wasm/toolerr.wasm.sha256",
    ] {
        assert!(files.contains(&want), "{want} is not packaged: {files:?}");
    }
    let unwanted: Vec<&&str> = files
        .iter()
        .filter(|f| {
            ["tests/", "examples/", "scripts/"]
                .iter()
                .any(|d| f.starts_with(d))
                || f.ends_with(".sh")
        })
        .collect();
    assert!(
        unwanted.is_empty(),
        "packaged but not part of the crate: {unwanted:?}"
    );
}

#[test]
fn the_packaged_crate_carries_the_modules_bytes() {
    // cargo package follows the links: the .crate holds regular files with
    // the module's bytes and record, which a crate built from it embeds.
    let target = std::env::temp_dir().join(format!("toolerr-package-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&target);
    cargo(&[
        "package",
        "--no-verify",
        "--allow-dirty",
        "--target-dir",
        target.to_str().unwrap(),
    ]);
    let krate = target.join(format!(
        "package/toolerr-{}.crate",
        env!("CARGO_PKG_VERSION")
    ));
    let tar = |args: &[&str], member: &str| {
        let mut command = Command::new("tar");
        command
            .args(args)
            .arg(&krate)
            .arg(format!("toolerr-{}/{member}", env!("CARGO_PKG_VERSION")));
        output(command)
    };
    for member in ["wasm/toolerr.wasm", "wasm/toolerr.wasm.sha256"] {
        let listed = String::from_utf8(tar(&["-tvzf"], member)).unwrap();
        assert!(
            listed.starts_with('-'),
            "{member} is not a regular file in the crate: {listed}"
        );
    }
    let wasm = tar(&["-xzOf"], "wasm/toolerr.wasm");
    let record = tar(&["-xzOf"], "wasm/toolerr.wasm.sha256");
    std::fs::remove_dir_all(&target).unwrap();
    assert!(
        wasm == WASM,
        "the packaged wasm/toolerr.wasm is not the embedded module"
    );
    assert_eq!(String::from_utf8(record).unwrap(), WASM_SHA256_FILE);
}

#[test]
fn the_version_is_the_repositorys_and_the_modules() {
    let root = common::repo_root();
    let version = std::fs::read_to_string(root.join("VERSION")).unwrap();
    assert_eq!(env!("CARGO_PKG_VERSION"), version.trim());
    let host = Host::new().expect("host");
    assert_eq!(host.description().version, version.trim());
    // The README's install lines name the crate `cargo package` writes.
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    let version = version.trim();
    for want in [
        format!("/package/toolerr-{version}.crate\""),
        format!("toolerr = {{ path = \"toolerr-{version}\" }}"),
    ] {
        assert!(readme.contains(&want), "README.md does not say {want}");
    }
}

#[test]
fn the_license_is_apache_2_with_the_repositorys_text() {
    assert_eq!(env!("CARGO_PKG_LICENSE"), "Apache-2.0");
    let root = common::repo_root();
    let license = std::fs::read(root.join("LICENSE")).unwrap();
    assert!(
        String::from_utf8_lossy(&license)
            .trim_start()
            .starts_with("Apache License\n")
    );
    assert!(
        std::fs::read(crate_dir().join("LICENSE")).unwrap() == license,
        "bindings/rust/LICENSE is not the repository's LICENSE"
    );
}

/// The serde_json features the crate's normal dependencies turn on, with
/// `cargo tree` (features apply to a dependant's whole build).
fn serde_json_features(extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "tree",
        "-e",
        "normal,features",
        "-i",
        "serde_json",
        "--prefix",
        "none",
        "--format",
        "{p}",
    ];
    args.extend_from_slice(extra);
    let mut features: Vec<String> = cargo(&args)
        .lines()
        .filter_map(|l| l.strip_prefix("serde_json feature \""))
        .filter_map(|l| l.split('"').next())
        .map(str::to_string)
        .collect();
    features.sort();
    features.dedup();
    features
}

#[test]
fn serde_json_features_are_only_what_heal_needs() {
    // Without `server` (a client, or calls by hand): serde_json's defaults.
    assert_eq!(
        serde_json_features(&["--no-default-features"]),
        ["default", "std"]
    );
    // heal reads rmcp's serde_json maps (arguments, inputSchema), whose
    // order the module's validation errors follow: preserve_order, and no
    // raw_value (rmcp's schemars adds alloc).
    let with_server = serde_json_features(&[]);
    assert!(
        with_server.iter().any(|f| f == "preserve_order"),
        "{with_server:?}"
    );
    assert!(
        !with_server
            .iter()
            .any(|f| f == "raw_value" || f == "arbitrary_precision"),
        "{with_server:?}"
    );
}
