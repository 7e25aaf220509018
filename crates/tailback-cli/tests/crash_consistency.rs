//! Crash consistency of everything that resumes: a sweep, an experiment and a Slurm shard run by
//! hand are each killed (SIGKILL) at pseudo-random moments and resumed, again and again. After every kill `results.jsonl` must still be a file the runner
//! accepts (whole records, but for a last line cut short) holding every point finished before,
//! once and unchanged; when a resume finally completes, the results must equal those of an
//! uninterrupted run, wall-clock time aside.
//!
//! Half the kills land within the first 10 ms of a run (start-up, the check of `sweep.json`, the
//! lock and, on resume, the rewrite of `results.jsonl`), the others anywhere in the time a whole
//! run takes. The delays come from a fixed seed, so every campaign kills at the same moments
//! relative to the length of the uninterrupted run. When a sweep completes the campaign starts
//! over in a fresh directory until the kills are used up. By default there are 12 kills of the
//! sweep and 6 each of the experiment and the shard; for a longer campaign set
//! `TAILBACK_CRASH_ROUNDS` (kills of each), e.g.
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
    let mut command = tailback();
    command
        .arg("sweep")
        .arg(config)
        .args(SWEEP)
        .arg("--out")
        .arg(out);
    if out.join("results.jsonl").exists() {
        command.arg("--resume");
    }
    spawn(command, stderr)
}

/// An experiment whose quick run has several points of a few seconds in all.
const EXPERIMENT: &str = "self-tuned-fig4";

/// Starts the quick run of [`EXPERIMENT`] into `out`, resuming when results are there.
fn start_experiment(out: &Path, stderr: &Path) -> Child {
    let mut command = tailback();
    command
        .args(["experiment", "run", EXPERIMENT, "--quick", "--out"])
        .arg(out);
    if out.join("results.jsonl").exists() {
        command.arg("--resume");
    }
    spawn(command, stderr)
}

/// Plans the sweep into `out` as one Slurm shard (`--dry-run`: nothing is submitted).
fn plan_shard(config: &Path, out: &Path, stderr: &Path) {
    let mut command = tailback();
    command
        .arg("sweep")
        .arg(config)
        .args(&SWEEP[..4])
        .arg("--out")
        .arg(out)
        .args(["--slurm", "--dry-run", "--shard-size", "40"]);
    let status = spawn(command, stderr).wait().unwrap();
    assert!(
        status.success(),
        "{}",
        std::fs::read_to_string(stderr).unwrap()
    );
}

/// Starts task 0 of the sweep planned in `out` (a shard always resumes its own results).
fn start_shard(out: &Path, stderr: &Path) -> Child {
    let mut command = tailback();
    command.arg("shard").arg(out).args(["--task", "0"]);
    spawn(command, stderr)
}

/// Where shard 0 of `out` keeps its results.
fn shard_dir(out: &Path) -> PathBuf {
    out.join("shards/task-0")
}

fn tailback() -> Command {
    Command::cargo_bin("tailback").expect("the tailback binary is built")
}

fn spawn(mut command: Command, stderr: &Path) -> Child {
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

/// The kills of each campaign: `TAILBACK_CRASH_ROUNDS`, or `default`.
fn rounds(default: usize) -> usize {
    std::env::var("TAILBACK_CRASH_ROUNDS").map_or(default, |n| {
        n.parse().expect("TAILBACK_CRASH_ROUNDS is a number")
    })
}

/// What a kill-and-resume campaign runs.
struct Target<'a> {
    /// Prepares a fresh output directory (plans a shard) before its first start.
    prepare: &'a dyn Fn(&Path),
    /// Starts it into an output directory, resuming what is there.
    start: &'a dyn Fn(&Path) -> Child,
    /// The directory holding the `results.jsonl` it writes, within the output directory.
    results: &'a dyn Fn(&Path) -> PathBuf,
}

impl<'a> Target<'a> {
    /// What `start` runs into an output directory as it is, writing its results there (a
    /// sweep, an experiment).
    fn in_place(start: &'a dyn Fn(&Path) -> Child) -> Target<'a> {
        Target {
            prepare: &|_| {},
            start,
            results: &|out| out.to_path_buf(),
        }
    }
}

/// Kills `target` `kills` times at delays from a fixed seed (relative to `full_run`, an
/// uninterrupted run) and resumes it, in fresh directories under `dir` until the kills are used
/// up: after each kill every point finished before is still there, once and unchanged; each
/// completed campaign's results equal `reference`. Returns the completed output directories.
fn campaign(
    dir: &Path,
    name: &str,
    target: &Target,
    kills: usize,
    full_run: Duration,
    reference: &BTreeMap<String, Value>,
    log: &dyn Fn() -> String,
) -> Vec<PathBuf> {
    let mut delays = Delays(0x7a11_bac4);
    // Kills after which `results.jsonl.new` remains: that kill or an earlier one cut a rewrite.
    let (mut killed, mut mid_rewrite, mut done) = (0, 0, Vec::new());
    while killed < kills {
        let out = dir.join(format!("{name}-{}", done.len() + 1));
        (target.prepare)(&out);
        let mut finished = BTreeMap::new();
        loop {
            let mut child = (target.start)(&out);
            let status = if killed < kills {
                kill_after(&mut child, delays.delay(full_run))
            } else {
                child.wait().unwrap()
            };
            let now = read_results(&(target.results)(&out));
            for (id, record) in &finished {
                assert_eq!(
                    now.get(id),
                    Some(record),
                    "{name}: point {id} lost or changed by a run ending with {status} after \
                     {killed} kills"
                );
            }
            finished = now;
            match status.code() {
                Some(0) => break,
                None => {
                    killed += 1;
                    mid_rewrite +=
                        usize::from((target.results)(&out).join("results.jsonl.new").exists());
                }
                Some(_) => panic!("{name}: the run after kill {killed} failed:\n{}", log()),
            }
        }
        let results_dir = (target.results)(&out);
        let text = std::fs::read_to_string(results_dir.join("results.jsonl")).unwrap();
        assert!(
            text.ends_with('\n') && text.lines().count() == reference.len(),
            "{name}: {text}"
        );
        let results = numbers(&results_dir);
        assert!(results.keys().eq(reference.keys()), "{:?}", results.keys());
        for (id, record) in results {
            assert_eq!(record, reference[&id], "{name}: point {id}");
        }
        done.push(out);
    }
    eprintln!(
        "{name}: {killed} kills ({mid_rewrite} leaving results.jsonl.new) over {} campaigns; an \
         uninterrupted run took {full_run:?}",
        done.len()
    );
    done
}

/// Prepares and runs `target` to the end into `dir/reference`; returns that directory, how long
/// the run took and its results without wall-clock fields.
fn reference_run(
    dir: &Path,
    target: &Target,
    log: &dyn Fn() -> String,
) -> (PathBuf, Duration, BTreeMap<String, Value>) {
    let out = dir.join("reference");
    (target.prepare)(&out);
    let started = Instant::now();
    let status = (target.start)(&out).wait().unwrap();
    assert!(status.success(), "{}", log());
    let took = started.elapsed();
    (out.clone(), took, numbers(&(target.results)(&out)))
}

#[test]
fn killed_sweeps_resume_with_every_finished_point_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let stderr = dir.path().join("stderr.txt");
    let log = || std::fs::read_to_string(&stderr).unwrap();
    let start = |out: &Path| start_sweep(&config, out, &stderr);
    let target = Target::in_place(&start);
    let (_, full_run, reference) = reference_run(dir.path(), &target, &log);
    assert_eq!(reference.len(), POINTS);
    for out in campaign(
        dir.path(),
        "sweep",
        &target,
        rounds(12),
        full_run,
        &reference,
        &log,
    ) {
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
}

/// An experiment killed and resumed ends with the results and the comparisons of one that ran
/// through.
#[test]
fn killed_experiments_resume_with_every_finished_point_once() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = dir.path().join("stderr.txt");
    let log = || std::fs::read_to_string(&stderr).unwrap();
    let start = |out: &Path| start_experiment(out, &stderr);
    let target = Target::in_place(&start);
    let (reference_out, full_run, reference) = reference_run(dir.path(), &target, &log);
    assert!(reference.len() >= 2, "{reference:?}");
    let comparisons = |out: &Path| {
        let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["comparisons"].clone()
    };
    for out in campaign(
        dir.path(),
        "experiment",
        &target,
        rounds(6),
        full_run,
        &reference,
        &log,
    ) {
        assert_eq!(comparisons(&out), comparisons(&reference_out));
    }
}

/// A Slurm shard run by hand, killed and resumed, ends with the points of the sweep it is cut
/// from, numbers unchanged.
#[test]
fn killed_shards_resume_with_every_finished_point_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let stderr = dir.path().join("stderr.txt");
    let log = || std::fs::read_to_string(&stderr).unwrap();
    let target = Target {
        prepare: &|out| plan_shard(&config, out, &stderr),
        start: &|out| start_shard(out, &stderr),
        results: &|out| shard_dir(out),
    };
    let (_, full_run, reference) = reference_run(dir.path(), &target, &log);
    assert_eq!(reference.len(), POINTS);
    campaign(
        dir.path(),
        "shard",
        &target,
        rounds(6),
        full_run,
        &reference,
        &log,
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
