//! Crash consistency of resumable sweeps: a sweep is killed (SIGKILL) at pseudo-random moments
//! and resumed, again and again. After every kill `results.jsonl` must still be a file the runner
//! accepts (whole records, but for a last line cut short) holding every point finished before,
//! once and unchanged; when a resume finally completes, the results must equal those of an
//! uninterrupted run, wall-clock time aside.
//!
//! Half the kills land within the first 10 ms of a run (start-up, the check of `sweep.json`, the
//! lock and, on resume, the rewrite of `results.jsonl`), the others anywhere in the time a whole
//! run takes. The delays come from a fixed seed, so every campaign kills at the same moments
//! relative to the length of the uninterrupted run. When a sweep completes the campaign starts
//! over in a fresh directory until the kills are used up. By default there are 12 kills; for a
//! longer campaign set `TAILBACK_CRASH_ROUNDS`, e.g.
//! `TAILBACK_CRASH_ROUNDS=200 cargo test --release -p tailback-cli --test crash_consistency`.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

/// An 8x8 torus run short enough that the 40 points of [`SWEEP`] take a second or two.
const CONFIG: &str = "[topology]\nk = 8\n[sim]\nwarmup_cycles = 1000\nmeasure_cycles = 8000\n\
                      drain_cycles_max = 8000\n";
const SWEEP: [&str; 6] = [
    "--vary",
    "traffic.rate=0.05:0.5:0.05",
    "--seeds",
    "4",
    "-j",
    "2",
];
const POINTS: usize = 40;

/// Starts the sweep writing to `out`, resuming when results are there, with its standard error
/// going to `stderr`.
fn start_sweep(config: &Path, out: &Path, stderr: &Path) -> Child {
    let mut command = Command::cargo_bin("tailback").expect("the tailback binary is built");
    command
        .arg("sweep")
        .arg(config)
        .args(SWEEP)
        .arg("--out")
        .arg(out);
    if out.join("results.jsonl").exists() {
        command.arg("--resume");
    }
    command
        .stdout(Stdio::null())
        .stderr(File::create(stderr).unwrap())
        .spawn()
        .unwrap()
}

/// Waits for `child` at most `delay`, then kills it; returns how it ended.
fn kill_after(child: &mut Child, delay: Duration) -> ExitStatus {
    let deadline = Instant::now() + delay;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(5)));
    }
    child.kill().unwrap();
    child.wait().unwrap()
}

/// The records of `out/results.jsonl` by point, checking that the runner would accept the file
/// as a crash can leave it: every complete line is a record, a last line without its newline may
/// be cut short, and no point is there twice.
fn read_results(out: &Path) -> BTreeMap<String, Value> {
    let path = out.join("results.jsonl");
    let Ok(bytes) = std::fs::read(&path) else {
        return BTreeMap::new();
    };
    let text = String::from_utf8(bytes).expect("results.jsonl is UTF-8");
    let mut lines: Vec<&str> = text.split('\n').collect();
    let last = lines.pop().unwrap_or_default();
    let mut records: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("line {} of {} ({e}): {line}", i + 1, path.display()))
        })
        .collect();
    // Killed between a record and its newline, or in the middle of the record.
    records.extend(serde_json::from_str::<Value>(last).ok());
    let mut by_id = BTreeMap::new();
    for record in records {
        let id = record["id"].as_str().expect("a record names its point");
        assert!(record["report"]["summary"].is_object(), "{record}");
        if let Some(twice) = by_id.insert(id.to_string(), record.clone()) {
            panic!(
                "point {id} stored twice in {}:\n{twice}\n{record}",
                path.display()
            );
        }
    }
    by_id
}

/// The records of `out` without the wall-clock fields, the only ones two runs of a point may
/// differ in.
fn numbers(out: &Path) -> BTreeMap<String, Value> {
    let mut records = read_results(out);
    for record in records.values_mut() {
        let summary = record["report"]["summary"].as_object_mut().unwrap();
        summary.remove("wall_seconds");
        summary.remove("node_cycles_per_second");
    }
    records
}

/// SplitMix64: the kill delays, reproducible from one seed.
struct Delays(u64);

impl Delays {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Half the time within start-up, else anywhere in a run lasting `full_run`.
    fn delay(&mut self, full_run: Duration) -> Duration {
        if self.next().is_multiple_of(2) {
            Duration::from_micros(self.next() % 10_000)
        } else {
            full_run.mul_f64((self.next() >> 11) as f64 / (1u64 << 53) as f64)
        }
    }
}

fn write_config(dir: &Path) -> PathBuf {
    let config = dir.join("sweep.toml");
    std::fs::write(&config, CONFIG).unwrap();
    config
}

#[test]
fn killed_sweeps_resume_with_every_finished_point_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let stderr = dir.path().join("stderr.txt");
    let log = || std::fs::read_to_string(&stderr).unwrap();

    let started = Instant::now();
    let reference_out = dir.path().join("reference");
    let status = start_sweep(&config, &reference_out, &stderr)
        .wait()
        .unwrap();
    assert!(status.success(), "{}", log());
    let full_run = started.elapsed();
    let reference = numbers(&reference_out);
    assert_eq!(reference.len(), POINTS);

    let rounds: usize = std::env::var("TAILBACK_CRASH_ROUNDS").map_or(12, |n| {
        n.parse().expect("TAILBACK_CRASH_ROUNDS is a number")
    });
    let mut delays = Delays(0x7a11_bac4);
    // Kills after which `results.jsonl.new` remains: that kill or an earlier one cut a rewrite.
    let (mut kills, mut campaigns, mut mid_rewrite) = (0, 0, 0);
    while kills < rounds {
        campaigns += 1;
        let out = dir.path().join(format!("campaign-{campaigns}"));
        let mut finished = BTreeMap::new();
        loop {
            let mut child = start_sweep(&config, &out, &stderr);
            let status = if kills < rounds {
                kill_after(&mut child, delays.delay(full_run))
            } else {
                child.wait().unwrap()
            };
            let now = read_results(&out);
            for (id, record) in &finished {
                assert_eq!(
                    now.get(id),
                    Some(record),
                    "point {id} lost or changed by a run ending with {status} after {kills} kills"
                );
            }
            finished = now;
            match status.code() {
                Some(0) => break,
                None => {
                    kills += 1;
                    mid_rewrite += usize::from(out.join("results.jsonl.new").exists());
                }
                Some(_) => panic!("the sweep after kill {kills} failed:\n{}", log()),
            }
        }

        let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
        assert!(
            text.ends_with('\n') && text.lines().count() == POINTS,
            "{text}"
        );
        let results = numbers(&out);
        assert!(results.keys().eq(reference.keys()), "{:?}", results.keys());
        for (id, record) in results {
            assert_eq!(record, reference[&id], "point {id}");
        }
        let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
        // Rows start with the swept rate and the seed.
        let points: BTreeSet<Vec<&str>> = csv
            .lines()
            .skip(1)
            .map(|row| row.split(',').take(2).collect())
            .collect();
        assert_eq!(csv.lines().count(), POINTS + 1, "{csv}");
        assert_eq!(points.len(), POINTS, "{csv}");
    }
    eprintln!(
        "{kills} kills ({mid_rewrite} leaving results.jsonl.new) over {campaigns} campaigns; \
         an uninterrupted run took {full_run:?}"
    );
}

#[test]
fn a_lock_left_by_a_killed_sweep_does_not_block_its_resume() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let stderr = dir.path().join("stderr.txt");
    let out = dir.path().join("out");
    let lock = out.join(".tailback.lock");

    let mut child = start_sweep(&config, &out, &stderr);
    let holder = format!("process {} ", child.id());
    let started = Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|text| text.starts_with(&holder)) {
        assert!(started.elapsed() < Duration::from_secs(10), "no lock taken");
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    assert_eq!(child.wait().unwrap().code(), None, "killed while running");
    assert!(std::fs::read_to_string(&lock).unwrap().starts_with(&holder));

    let status = start_sweep(&config, &out, &stderr).wait().unwrap();
    assert!(
        status.success(),
        "{}",
        std::fs::read_to_string(&stderr).unwrap()
    );
    assert_eq!(read_results(&out).len(), POINTS);
}
