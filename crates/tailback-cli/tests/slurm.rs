//! `--slurm` on a real Slurm cluster: a one-node cluster on this machine, set up by
//! `scripts/slurm-local.sh` (which installs slurm-wlm and munge with apt when missing: needs
//! root). Opt-in: without `TAILBACK_SLURM_TEST=1` the test passes at once, printing "skipped".
//!
//! ```sh
//! TAILBACK_SLURM_TEST=1 cargo test --release -p tailback-cli --test slurm -- --nocapture
//! ```

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use common::{SMALL_TORUS, comparisons, quick_fig4, results_without_timing, tailback};

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run(program: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The job id in `submitted Slurm job ID: ...`.
fn job_id(stdout: &str) -> String {
    stdout
        .split_whitespace()
        .skip_while(|w| *w != "job")
        .nth(1)
        .map(|w| w.trim_end_matches(':').to_string())
        .unwrap_or_else(|| panic!("no job id in {stdout}"))
}

/// Waits until squeue lists nothing of `job`.
fn wait_for(job: &str, limit: Duration) {
    let start = Instant::now();
    loop {
        let out = std::process::Command::new("squeue")
            .args(["-h", "-j", job])
            .output()
            .unwrap();
        if out.status.success() && out.stdout.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        assert!(
            start.elapsed() < limit,
            "job {job} still queued after {limit:?}:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Submits a sweep with `--slurm`; returns the job id.
fn submit(config: &Path, vary: &[&str], out: &Path, extra: &[&str]) -> String {
    job_id(&ok(tailback()
        .arg("sweep")
        .arg(config)
        .args(vary)
        .arg("--out")
        .arg(out)
        .arg("--slurm")
        .args(extra)))
}

fn local_sweep(config: &Path, vary: &[&str], out: &Path) {
    ok(tailback()
        .arg("sweep")
        .arg(config)
        .args(vary)
        .args(["-j", "2", "--out"])
        .arg(out));
}

#[test]
fn sweeps_and_experiments_run_as_job_arrays_on_a_real_slurm_cluster() {
    if std::env::var("TAILBACK_SLURM_TEST").as_deref() != Ok("1") {
        println!("skipped: set TAILBACK_SLURM_TEST=1 to run it (needs root; docs/cluster.md)");
        return;
    }
    let started = Instant::now();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-local.sh");
    run("bash", &[script.to_str().unwrap()]);
    println!(
        "cluster ready after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Under /tmp: slurmd (root here) reads and writes it.
    let dir = tempfile::Builder::new()
        .prefix("tailback-slurm-")
        .tempdir_in("/tmp")
        .unwrap();
    let limit = Duration::from_secs(150);

    // (a) A sweep of 8 points in shards of 3, merged: exactly a local sweep.
    let small = config(dir.path(), "small.toml", SMALL_TORUS);
    let vary = ["--vary", "traffic.rate=0.1,0.2,0.3,0.4", "--seeds", "2"];
    let out = dir.path().join("sweep");
    let job = submit(&small, &vary, &out, &["--shard-size", "3"]);
    wait_for(&job, limit);
    let status = ok(tailback().arg("status").arg(&out));
    assert!(
        status.contains(&format!("Slurm jobs: {job} (array 0-2)")),
        "{status}"
    );
    assert!(status.contains("all done"), "{status}");
    ok(tailback().arg("merge").arg(&out));
    let local = dir.path().join("sweep-local");
    local_sweep(&small, &vary, &local);
    assert_eq!(results_without_timing(&out), results_without_timing(&local));
    for task in 0..3 {
        let log = out.join(format!("slurm/logs/{job}_{task}.out"));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            text.contains(&format!("task {task}:")),
            "{}: {text}",
            log.display()
        );
    }
    println!(
        "(a) sweep done after {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // (b) A quick experiment, merged: the comparisons of a local quick run.
    let fig4 = dir.path().join("fig4");
    let job = job_id(&ok(&mut quick_fig4(
        &["--slurm", "--shard-size", "1"],
        &fig4,
    )));
    wait_for(&job, limit);
    ok(tailback().arg("merge").arg(&fig4));
    let fig4_local = dir.path().join("fig4-local");
    ok(&mut quick_fig4(&["-j", "2"], &fig4_local));
    assert_eq!(comparisons(&fig4), comparisons(&fig4_local));
    println!(
        "(b) experiment done after {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // (c) A cancelled task: its shard's points are missing; resubmitting runs only them.
    let slow = config(
        dir.path(),
        "slow.toml",
        "[topology]\nk = 8\n[sim]\nwarmup_cycles = 1000\nmeasure_cycles = 100000\n\
         drain_cycles_max = 20000\n",
    );
    let vary = ["--vary", "traffic.rate=0.1,0.15,0.2", "--seeds", "3"];
    let out = dir.path().join("cancelled");
    let job = submit(&slow, &vary, &out, &["--shard-size", "3"]);
    run("scancel", &[&format!("{job}_2")]);
    wait_for(&job, limit);
    let status = ok(tailback().arg("status").arg(&out));
    let row = |text: &str, shard: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(shard))
            .unwrap_or_else(|| panic!("no row {shard} in\n{text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row(&status, "0")[2..5], ["3", "0", "0"], "{status}");
    assert_eq!(row(&status, "1")[2..5], ["3", "0", "0"], "{status}");
    let missing: usize = row(&status, "2")[4].parse().unwrap();
    assert!(
        missing > 0,
        "the cancelled shard has missing points:\n{status}"
    );
    assert_eq!(row(&status, "total")[4], missing.to_string(), "{status}");
    let (merge, code) = {
        let o = tailback().arg("merge").arg(&out).output().unwrap();
        (
            String::from_utf8_lossy(&o.stderr).into_owned(),
            o.status.code(),
        )
    };
    assert_eq!(code, Some(2), "{merge}");
    assert!(
        merge.contains(&format!("{missing} of 9 points missing (shard 2;")),
        "{merge}"
    );
    let read = |task: usize| {
        std::fs::read_to_string(out.join(format!("shards/task-{task}/results.jsonl")))
            .unwrap_or_default()
    };
    let before = [read(0), read(1)];
    let resubmitted = ok(tailback()
        .arg("sweep")
        .arg(&slow)
        .args(vary)
        .arg("--out")
        .arg(&out)
        .args(["--slurm", "--resume"]));
    assert!(
        resubmitted.contains("array 2 (1 of 3 shards"),
        "{resubmitted}"
    );
    let again = job_id(&resubmitted);
    wait_for(&again, limit);
    assert_eq!(
        [read(0), read(1)],
        before,
        "the finished shards' files are untouched"
    );
    assert_eq!(read(2).lines().count(), 3, "{}", read(2));
    let logs: Vec<String> = std::fs::read_dir(out.join("slurm/logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("{again}_")))
        .collect();
    assert_eq!(logs, [format!("{again}_2.out")]);
    let log = std::fs::read_to_string(out.join("slurm/logs").join(&logs[0])).unwrap();
    assert!(log.contains("task 2: 3 of 3 points done"), "{log}");
    let status = ok(tailback().arg("status").arg(&out));
    assert!(status.contains("all done"), "{status}");
    ok(tailback().arg("merge").arg(&out));
    let local = dir.path().join("cancelled-local");
    local_sweep(&slow, &vary, &local);
    assert_eq!(results_without_timing(&out), results_without_timing(&local));
    println!(
        "(c) cancelled task done after {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
