//! Helpers shared by the command-line tests.

#![allow(dead_code)]

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// A 4x4 torus with short runs: a sweep of a few points takes well under a second.
pub const SMALL_TORUS: &str = "[topology]\nk = 4\n[sim]\nwarmup_cycles = 300\nmeasure_cycles = 1500\n\
                               drain_cycles_max = 2000\n";

/// The `tailback` binary of this build.
pub fn tailback() -> Command {
    Command::cargo_bin("tailback").expect("the tailback binary is built")
}

/// `tailback experiment run self-tuned-fig4 --quick` with `args`, into `out` (a small
/// experiment of two runs).
pub fn quick_fig4(args: &[&str], out: &Path) -> Command {
    let mut command = tailback();
    command
        .args(["experiment", "run", "self-tuned-fig4", "--quick"])
        .args(args)
        .arg("--out")
        .arg(out);
    command
}

/// The comparisons with the paper in the `summary.json` of the experiment in `dir`.
pub fn comparisons(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let summary: Value = serde_json::from_str(&text).unwrap();
    summary["comparisons"].clone()
}

/// The lines of `results.jsonl` in `out` without their wall-clock fields (the only ones that
/// differ between two runs of a point), sorted by point.
pub fn results_without_timing(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let mut rows: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    for row in &mut rows {
        let summary = row["report"]["summary"].as_object_mut().unwrap();
        summary.remove("wall_seconds");
        summary.remove("node_cycles_per_second");
    }
    rows.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    rows
}

/// Runs `command`, expects it refused with exit status 2 (bad input), and returns what it
/// printed on stderr.
pub fn refused(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    String::from_utf8(output.stderr).unwrap()
}
