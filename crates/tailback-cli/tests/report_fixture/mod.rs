//! A report over a small sweep and a quick experiment, shared by the report and browser tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::common::quick_fig4;
pub use crate::common::tailback;

/// Where the results and their report are.
pub struct Fixture {
    /// The directory given to `tailback report`.
    pub results: PathBuf,
    /// The sweep's directory.
    pub sweep: PathBuf,
    /// The experiment's directory.
    pub experiment: PathBuf,
    /// What `experiment run` printed.
    pub experiment_stdout: String,
}

/// Runs a sweep of a 4x4 torus over two loads and the quick `self-tuned-fig4` into
/// `dir/results`.
pub fn results(dir: &Path) -> Fixture {
    let results = dir.join("results");
    let config = dir.join("sweep.toml");
    std::fs::write(&config, crate::common::SMALL_TORUS).unwrap();
    let sweep = results.join("torus");
    let output = tailback()
        .arg("sweep")
        .arg(&config)
        .args([
            "--vary",
            "traffic.rate=0.1,0.3",
            "--seeds",
            "2",
            "-j",
            "2",
            "--out",
        ])
        .arg(&sweep)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let experiment = results.join("experiments").join("self-tuned-fig4-quick");
    let output = quick_fig4(&["-j", "2"], &experiment).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    Fixture {
        results,
        sweep,
        experiment,
        experiment_stdout: String::from_utf8(output.stdout).unwrap(),
    }
}

/// Runs `tailback report` on `dirs` with `extra` arguments; returns the index's path, which it
/// prints.
pub fn report(dirs: &[&Path], extra: &[&str]) -> PathBuf {
    let output = tailback()
        .arg("report")
        .args(dirs)
        .args(extra)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let path = stdout
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report path printed: {stdout}"));
    PathBuf::from(path)
}

/// Every page of the report whose index is `index`: the index first, then the entries' pages
/// in order of name.
pub fn pages(index: &Path) -> Vec<PathBuf> {
    let entries = index.parent().unwrap().join("entries");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&entries)
        .unwrap()
        .map(|e| e.unwrap().path().join("index.html"))
        .collect();
    pages.sort();
    std::iter::once(index.to_path_buf()).chain(pages).collect()
}

/// `text` as the report writes it in HTML.
pub fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}
