//! The memory check counts the limits the process really has: under `ulimit -v`, a run too
//! large for the address space is refused (exit status 2, naming the limit) instead of
//! aborting when an allocation fails, and a small run still goes.

mod common;

use std::process::Command;

use common::SMALL_TORUS;

/// `tailback ARGS` under an address-space limit of 4 GiB.
fn under_4_gib(args: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("tailback");
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 4194304 && exec '{}' {args}",
            bin.display()
        ))
        .output()
        .unwrap()
}

#[test]
fn a_run_beyond_the_address_space_limit_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big");
    // A 2048 x 2048 torus: about 13 GB by the estimate.
    let big = under_4_gib(&format!(
        "run --set topology.k=2048 --out '{}'",
        out.display()
    ));
    let err = String::from_utf8_lossy(&big.stderr);
    assert_eq!(big.status.code(), Some(2), "{err}");
    assert!(
        err.contains("this run needs about")
            && err.contains("but the address-space limit (ulimit -v) leaves")
            && err.contains("raise the address-space limit"),
        "{err}"
    );
    assert!(!out.exists());
    // --max-memory cannot lift it: past it allocations fail.
    let lifted = under_4_gib(&format!(
        "run --set topology.k=2048 --max-memory 1T --out '{}'",
        out.display()
    ));
    assert_eq!(lifted.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&lifted.stderr).contains("ulimit -v"));
    // `check` warns with the same limit and the same remedy.
    let checked = under_4_gib("check --set topology.k=2048");
    let warning = String::from_utf8_lossy(&checked.stderr);
    assert!(checked.status.success(), "{warning}");
    assert!(
        warning.contains("would refuse this configuration")
            && warning.contains("raise the address-space limit"),
        "{warning}"
    );

    let config = dir.path().join("small.toml");
    std::fs::write(&config, SMALL_TORUS).unwrap();
    let small_out = dir.path().join("small");
    let small = under_4_gib(&format!(
        "run '{}' --out '{}'",
        config.display(),
        small_out.display()
    ));
    assert!(
        small.status.success(),
        "{}",
        String::from_utf8_lossy(&small.stderr)
    );
    assert!(small_out.join("summary.json").exists());
}
