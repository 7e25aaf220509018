//! `--slurm` without a cluster: the job script of `--dry-run`, shards run by hand with
//! `tailback shard`, `tailback status` and `tailback merge` (which must equal a local run), and
//! the resubmission of only the shards with missing points. The real cluster is in `slurm.rs`.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::{SMALL_TORUS, comparisons, quick_fig4, results_without_timing, tailback};
use serde_json::Value;

/// A 4x4 torus, short runs, and a `[slurm]` table (which must not reach config validation).
fn config(dir: &Path) -> PathBuf {
    let path = dir.join("sweep.toml");
    std::fs::write(
        &path,
        format!(
            "{SMALL_TORUS}\n[slurm]\npartition = \"long\"\ntime = \"0:20:00\"\n\
             account = \"proj\"\nextra = [\"--qos=low\", \"--constraint=fast\"]\n"
        ),
    )
    .unwrap();
    path
}

/// 4 rates x 2 seeds = 8 points; with `--shard-size 3`, shards 0-1-2 of 3, 3, 2 points.
const VARY: [&str; 4] = ["--vary", "traffic.rate=0.1,0.2,0.3,0.4", "--seeds", "2"];

fn output(cmd: &mut Command) -> (bool, Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(cmd: &mut Command) -> String {
    let (success, _, stdout, stderr) = output(cmd);
    assert!(success, "stdout:\n{stdout}\nstderr:\n{stderr}");
    stdout
}

/// `tailback sweep ... --slurm --dry-run` into `out`; returns the script printed.
fn dry_run(config: &Path, out: &Path, extra: &[&str]) -> String {
    ok(tailback()
        .arg("sweep")
        .arg(config)
        .args(VARY)
        .arg("--out")
        .arg(out)
        .args(["--slurm", "--dry-run", "--shard-size", "3"])
        .args(extra))
}

fn shard(out: &Path, task: usize) -> String {
    ok(tailback()
        .arg("shard")
        .arg(out)
        .args(["--task", &task.to_string()]))
}

/// `results.csv` without its `wall_seconds` column, rows sorted.
fn csv_without_timing(out: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut rows: Vec<String> = text
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect();
    rows[1..].sort();
    rows
}

#[test]
fn a_dry_run_prints_the_array_and_the_options_of_the_flags_and_the_slurm_table() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let out = dir.path().join("s");
    let script = dry_run(
        &config,
        &out,
        &["--partition", "short", "--cpus-per-task", "2"],
    );
    let canonical = out.canonicalize().unwrap();
    for line in [
        "#!/bin/bash",
        "#SBATCH --array=0-2",
        "#SBATCH --job-name=tailback-s",
        &format!(
            "#SBATCH --output={}/slurm/logs/%A_%a.out",
            canonical.display()
        ),
        // The flag wins over the table; the table gives the rest.
        "#SBATCH --partition=short",
        "#SBATCH --time=0:20:00",
        "#SBATCH --account=proj",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --qos=low",
        "#SBATCH --constraint=fast",
    ] {
        assert!(
            script.lines().any(|l| l == line),
            "no `{line}` in\n{script}"
        );
    }
    assert!(!script.contains("--partition=long"), "{script}");
    let exec = script.lines().last().unwrap();
    assert!(
        exec.starts_with("exec /"),
        "the binary's absolute path: {exec}"
    );
    assert!(
        exec.ends_with(&format!(
            "shard {} --task \"$SLURM_ARRAY_TASK_ID\"",
            canonical.display()
        )),
        "{exec}"
    );
    // Nothing submitted; the plan and the sweep's manifest written.
    assert!(!out.join("slurm/submissions.jsonl").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("slurm/job.sh")).unwrap(),
        script
    );
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("slurm/plan.json")).unwrap())
            .unwrap();
    assert_eq!(plan["kind"], "sweep");
    assert_eq!(plan["points"], 8);
    assert_eq!(plan["shards"], 3);
    assert_eq!(plan["shard_size"], 3);
    assert_eq!(plan["tailback_version"], env!("CARGO_PKG_VERSION"));
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert!(manifest["config"].get("slurm").is_none(), "{manifest}");

    // By default, shards of at most 16 points: these 8 make one.
    let whole = dir.path().join("whole");
    let script = ok(tailback()
        .arg("sweep")
        .arg(&config)
        .args(VARY)
        .arg("--out")
        .arg(&whole)
        .args(["--slurm", "--dry-run"]));
    assert!(script.contains("#SBATCH --array=0\n"), "{script}");
}

#[test]
fn without_sbatch_submitting_fails_suggesting_a_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let (success, code, _, stderr) = output(
        tailback()
            .env("PATH", dir.path())
            .arg("sweep")
            .arg(&config)
            .args(VARY)
            .arg("--out")
            .arg(dir.path().join("s"))
            .arg("--slurm"),
    );
    assert!(!success);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("sbatch not found") && stderr.contains("--dry-run"),
        "{stderr}"
    );
    assert!(!dir.path().join("s").exists(), "nothing written");
}

#[test]
fn shards_run_by_hand_merge_into_exactly_a_local_sweep_and_only_missing_shards_are_resubmitted() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let out = dir.path().join("s");
    dry_run(&config, &out, &[]);
    shard(&out, 0);
    shard(&out, 2);

    // Shard 1 never ran: status says so, merge refuses naming the count and the way out.
    let status = ok(tailback().arg("status").arg(&out));
    let row = |shard: &str| -> Vec<String> {
        status
            .lines()
            .find(|l| l.split_whitespace().next() == Some(shard))
            .unwrap_or_else(|| panic!("no row {shard} in\n{status}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("0")[..5], ["0", "3", "3", "0", "0"], "{status}");
    assert_eq!(row("1")[..5], ["1", "3", "0", "0", "3"], "{status}");
    assert_eq!(row("total")[..5], ["total", "8", "5", "0", "3"], "{status}");
    let (success, code, _, stderr) = output(tailback().arg("merge").arg(&out));
    assert!(!success);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("3 of 8 points missing (shard 1;"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--slurm") && stderr.contains("--resume"),
        "{stderr}"
    );
    assert!(!out.join("results.jsonl").exists(), "merge wrote nothing");

    // Resubmitting picks only shard 1.
    let script = dry_run(&config, &out, &["--resume"]);
    assert!(script.contains("#SBATCH --array=1\n"), "{script}");
    let before: Vec<String> = [0, 2]
        .iter()
        .map(|i| {
            std::fs::read_to_string(out.join(format!("shards/task-{i}/results.jsonl"))).unwrap()
        })
        .collect();
    let ran = shard(&out, 1);
    assert!(ran.contains("3 of 3 points done"), "{ran}");
    // A rerun task finds its points done and runs nothing.
    let again = tailback()
        .arg("shard")
        .arg(&out)
        .args(["--task", "0"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("3 of 3 points already done"));
    let after: Vec<String> = [0, 2]
        .iter()
        .map(|i| {
            std::fs::read_to_string(out.join(format!("shards/task-{i}/results.jsonl"))).unwrap()
        })
        .collect();
    assert_eq!(before, after, "the other shards' files are untouched");
    let nothing = dry_run(&config, &out, &["--resume"]);
    assert!(
        nothing.starts_with("nothing is missing: all 8 points"),
        "{nothing}"
    );

    let merged = ok(tailback().arg("merge").arg(&out));
    let local = dir.path().join("local");
    let here = ok(tailback()
        .arg("sweep")
        .arg(&config)
        .args(VARY)
        .args(["-j", "2", "--out"])
        .arg(&local));
    assert_eq!(results_without_timing(&out), results_without_timing(&local));
    assert_eq!(csv_without_timing(&out), csv_without_timing(&local));
    for file in [
        "curves.csv",
        "curves.json",
        "latency.data.csv",
        "throughput.data.csv",
        "sweep.json",
    ] {
        assert_eq!(
            std::fs::read_to_string(out.join(file)).unwrap(),
            std::fs::read_to_string(local.join(file)).unwrap(),
            "{file}"
        );
    }
    let saturation = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("saturation throughput"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(saturation(&merged), saturation(&here));
    assert!(!saturation(&merged).is_empty(), "{merged}");
    // Merging again is the same (the shards' copies are duplicates, dropped).
    ok(tailback().arg("merge").arg(&out));
    assert_eq!(results_without_timing(&out), results_without_timing(&local));
}

#[test]
fn a_conflicting_copy_of_a_point_makes_merge_fail_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let out = dir.path().join("s");
    dry_run(&config, &out, &[]);
    for task in 0..3 {
        shard(&out, task);
    }
    // Another copy of shard 0's first point, with one number changed, in shard 1's file.
    let first = std::fs::read_to_string(out.join("shards/task-0/results.jsonl")).unwrap();
    let mut row: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    row["report"]["summary"]["accepted"] = serde_json::json!(0.123456);
    let other = out.join("shards/task-1/results.jsonl");
    let mut text = std::fs::read_to_string(&other).unwrap();
    text.push_str(&format!("{row}\n"));
    std::fs::write(&other, text).unwrap();
    let (success, code, _, stderr) = output(tailback().arg("merge").arg(&out));
    assert!(!success);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("conflicting results for point"), "{stderr}");
    assert!(
        stderr.contains("task-0/results.jsonl, line 1")
            && stderr.contains("task-1/results.jsonl, line 4"),
        "{stderr}"
    );
}

#[test]
fn a_submission_is_recorded_with_its_job_id_and_a_version_mismatch_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let out = dir.path().join("s");
    // A stand-in for sbatch: prints a job id as `--parsable` does, remembers its arguments.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(
        &sbatch,
        format!(
            "#!/bin/sh\necho \"$@\" >> {}/sbatch.args\necho '4242;cluster'\n",
            dir.path().display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let submit = |extra: &[&str]| {
        output(
            tailback()
                .env("PATH", &bin)
                .arg("sweep")
                .arg(&config)
                .args(VARY)
                .arg("--out")
                .arg(&out)
                .args(["--slurm", "--shard-size", "3"])
                .args(extra),
        )
    };
    let (success, _, stdout, stderr) = submit(&[]);
    assert!(success, "{stderr}");
    assert!(
        stdout.contains("submitted Slurm job 4242: array 0-2"),
        "{stdout}"
    );
    let args = std::fs::read_to_string(dir.path().join("sbatch.args")).unwrap();
    assert!(
        args.starts_with("--parsable ") && args.contains("slurm/job.sh"),
        "{args}"
    );
    // Submitting again without --resume is refused; with it, every shard is still missing
    // (squeue is not there to say they are queued), so all are submitted again.
    let (success, code, _, stderr) = submit(&[]);
    assert!(!success && code == Some(2), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    shard(&out, 1);
    let (success, _, stdout, stderr) = submit(&["--resume"]);
    assert!(success, "{stderr}");
    assert!(
        stdout.contains("array 0,2 (2 of 3 shards, 5 of 8 points"),
        "{stdout}"
    );
    let submissions = std::fs::read_to_string(out.join("slurm/submissions.jsonl")).unwrap();
    let lines: Vec<Value> = submissions
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["job_id"], "4242");
    assert_eq!(lines[1]["array"], "0,2");
    let status = ok(tailback().env("PATH", &bin).arg("status").arg(&out));
    assert!(
        status.contains("Slurm jobs: 4242 (array 0-2), 4242 (array 0,2)"),
        "{status}"
    );
    assert!(status.contains("squeue is not available"), "{status}");

    // A task of another version refuses to run.
    let plan_path = out.join("slurm/plan.json");
    let mut plan: Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_path).unwrap()).unwrap();
    plan["tailback_version"] = "0.0.1-other".into();
    std::fs::write(&plan_path, plan.to_string()).unwrap();
    let (success, code, _, stderr) =
        output(tailback().arg("shard").arg(&out).args(["--task", "0"]));
    assert!(!success && code == Some(2), "{stderr}");
    assert!(
        stderr.contains("planned by tailback 0.0.1-other"),
        "{stderr}"
    );
}

#[test]
fn an_experiment_run_in_shards_merges_into_the_comparisons_of_a_local_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fig4");
    let script = ok(&mut quick_fig4(
        &["--slurm", "--dry-run", "--shard-size", "1"],
        &out,
    ));
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("slurm/plan.json")).unwrap())
            .unwrap();
    assert_eq!(plan["kind"], "experiment");
    assert_eq!(plan["experiment"], "self-tuned-fig4");
    assert_eq!(plan["quick"], true);
    let shards = plan["shards"].as_u64().unwrap() as usize;
    let last = shards - 1;
    assert!(
        script.contains(&format!("#SBATCH --array=0-{last}\n")),
        "{script}"
    );
    for task in 0..last {
        shard(&out, task);
    }
    let (success, code, _, stderr) = output(tailback().arg("merge").arg(&out));
    assert!(!success && code == Some(2), "{stderr}");
    assert!(stderr.contains(&format!("(shard {last};")), "{stderr}");
    shard(&out, last);
    ok(tailback().arg("merge").arg(&out));
    let local = dir.path().join("local");
    ok(&mut quick_fig4(&["-j", "2"], &local));
    assert_eq!(comparisons(&out), comparisons(&local));
    // A local resume over the directory gathers the shards and runs nothing.
    let resumed = quick_fig4(&["--resume"], &out).output().unwrap();
    assert!(resumed.status.success());
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    let points = plan["points"].as_u64().unwrap();
    assert!(
        stderr.contains(&format!("{points} of {points} points already done")),
        "{stderr}"
    );
}

/// A newline in a Slurm option would end its `#SBATCH` line and run the rest as a shell line:
/// every such value, from a flag or the `[slurm]` table, is refused before anything is written.
#[test]
fn a_newline_in_a_slurm_option_is_refused_and_no_script_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let marker = dir.path().join("injected");
    let injected = format!("compute\ntouch {}", marker.display());
    for flag in ["--partition", "--time", "--mem", "--account"] {
        let out = dir.path().join(format!("o{flag}"));
        let (success, code, _, stderr) = output(
            tailback()
                .arg("sweep")
                .arg(&config)
                .args(VARY)
                .arg("--out")
                .arg(&out)
                .args(["--slurm", "--dry-run", flag, &injected]),
        );
        assert!(!success && code == Some(2), "{flag}: {stderr}");
        assert!(stderr.contains(&flag[2..]), "{flag}: {stderr}");
        assert!(!out.join("slurm/job.sh").exists(), "{flag}");
    }
    let table = dir.path().join("table.toml");
    std::fs::write(
        &table,
        format!(
            "{SMALL_TORUS}\n[slurm]\nextra = [{:?}]\n",
            format!("--qos=x\ntouch {}", marker.display())
        ),
    )
    .unwrap();
    let out = dir.path().join("extra");
    let (success, code, _, stderr) = output(
        tailback()
            .arg("sweep")
            .arg(&table)
            .args(VARY)
            .arg("--out")
            .arg(&out)
            .args(["--slurm", "--dry-run"]),
    );
    assert!(!success && code == Some(2), "{stderr}");
    assert!(stderr.contains("extra"), "{stderr}");
    assert!(!out.join("slurm/job.sh").exists());
    assert!(!marker.exists());
}
