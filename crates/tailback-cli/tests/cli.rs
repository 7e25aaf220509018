//! End-to-end tests of the `tailback` commands.

mod common;

use std::path::Path;

use assert_cmd::Command;
use common::{SMALL_TORUS, refused, results_without_timing};
use serde_json::Value;

/// A short run of the default torus, so tests stay fast.
const SHORT: [&str; 6] = [
    "--set",
    "sim.warmup_cycles=500",
    "--set",
    "sim.measure_cycles=2000",
    "--set",
    "sim.drain_cycles_max=4000",
];

fn tailback() -> Command {
    Command::cargo_bin("tailback").expect("the tailback binary is built")
}

fn write_config(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

fn stdout_json(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON document")
}

#[test]
fn run_without_config_prints_the_required_json_fields_and_writes_plots() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = tailback()
        .arg("run")
        .args(SHORT)
        .args(["--format", "json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let json = stdout_json(&output);
    for pointer in [
        "/offered",
        "/accepted",
        "/latency/mean",
        "/latency/p99",
        "/network_latency/mean",
        "/hops/mean",
        "/saturated",
        "/cycles",
        "/wall_seconds",
    ] {
        assert!(
            json.pointer(pointer).is_some(),
            "missing {pointer} in {json}"
        );
    }
    assert_eq!(json["saturated"], Value::Bool(false));
    let offered = json["offered"].as_f64().unwrap();
    assert!(
        (offered - 0.2).abs() < 0.02,
        "default offered load is 0.2, got {offered}"
    );
    for file in [
        "summary.json",
        "latency_cdf.svg",
        "latency_cdf.png",
        "accepted_per_node.svg",
        "accepted_per_node.png",
    ] {
        assert!(out.join(file).is_file(), "{file} not written");
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["config"]["topology"]["dims"],
        serde_json::json!([8, 8])
    );
}

#[test]
fn run_table_names_every_measure() {
    let dir = tempfile::tempdir().unwrap();
    let output = tailback()
        .arg("run")
        .args(SHORT)
        .args(["--set", "traffic.pattern=transpose", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for label in [
        "offered",
        "accepted",
        "packet latency",
        "network latency",
        "source queue",
        "hops",
        "saturated",
        "node-cycles/s",
        "transpose traffic",
    ] {
        assert!(text.contains(label), "table lacks {label}:\n{text}");
    }
}

#[test]
fn bad_configurations_exit_2_listing_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "bad.toml",
        "[router]\nvcz = 3\nvcs = 0\n[traffic]\nrate = 9.5\n[topology]\nk = \"eight\"\n",
    );
    let output = tailback().arg("run").arg(&config).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("4 problems"), "{err}");
    for expected in [
        "router.vcz = 3: unknown key",
        "router.vcs = 0: must be an integer from 1 to 32",
        "traffic.rate = 9.5",
        "topology.k = \"eight\": expected an integer",
    ] {
        assert!(err.contains(expected), "missing `{expected}` in:\n{err}");
    }
    assert!(!err.contains("panicked"));
}

#[test]
fn inconsistent_values_and_bad_overrides_exit_2() {
    let err = refused(tailback().args([
        "check",
        "--set",
        "routing.datelines=[0,4]",
        "--set",
        "router.vcs=2",
    ]));
    assert!(
        err.contains("router.vcs = 2") && err.contains("needs at least 3 VCs"),
        "{err}"
    );

    let cut_through = refused(
        tailback()
            .args(["run", "--set", "router.switching=virtual_cut_through"])
            .args(["--set", "traffic.packet_flits=16"]),
    );
    assert!(cut_through.contains("router.vc_buffer_flits = 8"));

    refused(tailback().args(["run", "--set", "router.vcs"]));

    let missing = refused(tailback().args(["check", "/nonexistent.toml"]));
    assert!(missing.contains("cannot read config"));
}

#[test]
fn check_skips_analyses_past_its_work_budget_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    // A 256 x 256 torus: routing all 65,536^2 pairs or building their dependency graph would
    // take minutes; the bisection's few hundred searches run.
    let config = write_config(dir.path(), "big.toml", "[topology]\nk = 256\n");
    let json = stdout_json(
        &tailback()
            .arg("check")
            .arg(&config)
            .args(["--format", "json"])
            .output()
            .unwrap(),
    );
    let skipped: Vec<&str> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert!(s["steps"].as_f64().unwrap() > 2e9, "{s}");
            s["analysis"].as_str().unwrap()
        })
        .collect();
    assert_eq!(skipped, ["channel_load", "dependency_graph"]);
    assert!(json["ideal_throughput"].is_null() && json["deadlock_free"].is_null());
    assert_eq!(json["bisection_links"], 512);
    let table = tailback().arg("check").arg(&config).output().unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("skipped: about") && text.contains("--full"),
        "{text}"
    );
}

#[test]
fn check_describes_the_network_and_its_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "torus.toml", "[topology]\nk = 8\n");
    let output = tailback()
        .arg("check")
        .arg(&config)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let json = stdout_json(&output);
    assert_eq!(json["nodes"], 64);
    assert_eq!(json["channels"]["router_to_router"], 256);
    assert_eq!(json["vc_buffers"]["input_vcs"], 64 * 5 * 4);
    assert_eq!(json["deadlock_free"], true);
    // Halving the rows cuts 8 columns twice (the middle and the wrap-around).
    assert_eq!(json["bisection_links"], 16);
    assert!(json.get("global_view_delay").is_none());
    // The entropy circuit refreshes in k/2 hops out and back per dimension.
    let entropy = tailback()
        .arg("check")
        .arg(&config)
        .args(["--set", "congestion.mechanism=entropy", "--format", "json"])
        .output()
        .unwrap();
    assert!(entropy.status.success(), "{entropy:?}");
    assert_eq!(stdout_json(&entropy)["global_view_delay"][1], 16);
    // Uniform traffic (excluding self) on an 8-ary torus with balanced ties loads every channel
    // with k/8 = 1 per unit of injection, times 64/63.
    let ideal = json["ideal_throughput"].as_f64().unwrap();
    assert!((ideal - 63.0 / 64.0).abs() < 1e-9, "{ideal}");
    // Sending every distance-4 tie the positive way loads positive channels with (1+2+3+4)/8.
    let positive = tailback()
        .arg("check")
        .arg(&config)
        .args(["--set", "routing.tie_break=positive", "--format", "json"])
        .output()
        .unwrap();
    let ideal = stdout_json(&positive)["ideal_throughput"].as_f64().unwrap();
    assert!((ideal - 63.0 / 80.0).abs() < 1e-9, "{ideal}");
    // Store-and-forward: each of the h + 1 routers waits for the 8-flit packet's 7 more flits.
    let zero_load = |switching: &str| {
        let output = tailback()
            .arg("check")
            .arg(&config)
            .args([
                "--set",
                &format!("router.switching={switching}"),
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        stdout_json(&output)["zero_load_latency"].as_f64().unwrap()
    };
    let hops = json["mean_hops"].as_f64().unwrap();
    let extra = zero_load("store_and_forward") - zero_load("virtual_cut_through");
    assert!((extra - (hops + 1.0) * 7.0).abs() < 1e-9, "{extra}");

    let table = tailback()
        .arg("check")
        .arg(&config)
        .args(["--set", "traffic.pattern=tornado"])
        .output()
        .unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("deadlock") && text.contains("acyclic"),
        "{text}"
    );
    assert!(text.contains("ideal throughput"), "{text}");
    assert!(!text.contains("load analysis"), "{text}");
    assert_eq!(json["workload_pattern"], true);
}

/// The 648-node tree's forest configuration.
const FOREST: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../experiments/infiniband/forest.toml"
);

/// A workload without a destination pattern of its own (here a forest) says the channel-load
/// rows are for uniform traffic.
#[test]
fn check_says_which_traffic_its_bounds_are_for() {
    let forest = FOREST;
    let json = stdout_json(
        &tailback()
            .args(["check", forest, "--format", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(json["workload_pattern"], false);
    let table = tailback().args(["check", forest]).output().unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("load analysis      under uniform traffic"),
        "{text}"
    );
}

/// With random up ports, `check`'s bound and hops are expectations over the draws, and it
/// says so: bit reversal on a 4-ary 3-tree is bounded at 0.25 with destination-mod-k and at a
/// node's full rate with random up ports.
#[test]
fn check_gives_expectations_for_random_routing() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[traffic]\npattern = \"bit_reverse\"\n";
    let cfg = write_config(dir.path(), "tree.toml", text);
    let cfg = cfg.to_str().unwrap();
    let bound = |algorithm: &str| {
        let set = format!("routing.algorithm=\"{algorithm}\"");
        let json = stdout_json(
            &tailback()
                .args(["check", cfg, "--set", &set, "--format", "json"])
                .output()
                .unwrap(),
        );
        (
            json["ideal_throughput"].as_f64().unwrap(),
            json["routing_draws"] == true,
        )
    };
    assert_eq!(bound("d_mod_k"), (0.25, false));
    assert_eq!(bound("random_up"), (1.0, true));
    let table = tailback()
        .args(["check", cfg, "--set", "routing.algorithm=\"random_up\""])
        .output()
        .unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("random routing     loads and hops are expectations"),
        "{text}"
    );
}

/// With congested-flow isolation, `check` sizes each port's CAM: on the forest's 648-node
/// tree with 2 congested-flow queues (2 input and 2 output lines) of 8 destinations each, a
/// line has 16 + 8 x 10 CAM cells and 35 SRAM cells.
#[test]
fn check_sizes_the_cam_of_isolating_switches() {
    let forest = FOREST;
    let json = stdout_json(
        &tailback()
            .args(["check", forest, "--format", "json"])
            .args(["--set", "fabric.queues=\"nfq_cfq\""])
            .output()
            .unwrap(),
    );
    let cam = &json["cam_per_port"];
    assert_eq!(cam["lines"], 4);
    assert_eq!(cam["cam_cells_per_line"], 96);
    assert_eq!(cam["cells"], 4 * (96 + 35));
    // Without isolation there is no CAM.
    let json = stdout_json(
        &tailback()
            .args(["check", forest, "--format", "json"])
            .output()
            .unwrap(),
    );
    assert!(json.get("cam_per_port").is_none());
}

#[test]
fn a_topology_file_is_found_beside_its_config_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let nets = dir.path().join("nets");
    std::fs::create_dir(&nets).unwrap();
    // A ring of four switches: shortest paths close a dependency cycle.
    write_config(
        &nets,
        "ring.topo",
        "switch a ports 3\nswitch b ports 3\nswitch c ports 3\nswitch d ports 3\n\
         node w a.0\nnode x b.0\nnode y c.0\nnode z d.0\n\
         link a.1 b.2\nlink b.1 c.2\nlink c.1 d.2\nlink d.1 a.2\n",
    );
    let config = write_config(
        &nets,
        "ring.toml",
        "[topology]\nkind = \"file\"\nfile = \"ring.topo\"\n",
    );
    // Run from elsewhere: the file is read relative to the config.
    let message = refused(tailback().current_dir(dir.path()).arg("check").arg(&config));
    assert!(
        message.contains("topology.file") && message.contains("cycle"),
        "{message}"
    );
    let warned = tailback()
        .current_dir(dir.path())
        .arg("check")
        .arg(&config)
        .args(["--set", "topology.deadlock_check=warn", "--format", "json"])
        .output()
        .unwrap();
    assert!(warned.status.success(), "{warned:?}");
    let json = stdout_json(&warned);
    assert_eq!(json["nodes"], 4);
    assert_eq!(json["deadlock_free"], false);
    // The cycle is named: one channel out of each of the ring's four switches.
    let cycle = json["deadlock_cycle"].as_array().unwrap();
    assert_eq!(cycle.len(), 4, "{cycle:?}");
}

fn sweep(config: &Path, out: &Path, jobs: &str, extra: &[&str]) -> std::process::Output {
    tailback()
        .arg("sweep")
        .arg(config)
        .args([
            "--vary",
            "traffic.rate=0.1:0.9:0.2",
            "--seeds",
            "2",
            "-j",
            jobs,
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn small_sweep_config(dir: &Path) -> std::path::PathBuf {
    write_config(dir, "sweep.toml", SMALL_TORUS)
}

/// The rows of a CSV file, each by column name.
fn read_csv(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|row| {
            let row = row.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(row.iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn sweep_writes_every_point_plots_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let config = small_sweep_config(dir.path());
    let out = dir.path().join("out");
    let first = sweep(&config, &out, "2", &[]);
    assert!(first.status.success(), "{first:?}");
    let table = String::from_utf8(first.stdout).unwrap();
    assert!(table.contains("saturation throughput"), "{table}");
    // 5 loads x 2 seeds, plus the CSV header.
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 11);
    assert!(csv.starts_with("traffic.rate,seed,offered,accepted"));
    assert!(csv.lines().next().unwrap().contains("saturation_cause"));
    for file in [
        "results.jsonl",
        "sweep.json",
        "curves.csv",
        "curves.json",
        "latency.svg",
        "latency.png",
        "latency.data.csv",
        "throughput.svg",
        "throughput.png",
        "throughput.data.csv",
    ] {
        assert!(out.join(file).is_file(), "{file} not written");
    }
    // Each run stores its whole configuration, defaults filled in.
    for row in results_without_timing(&out) {
        let rate = row["resolved_config"]["traffic"]["rate"].as_f64().unwrap();
        assert!(
            row["id"]
                .as_str()
                .unwrap()
                .contains(&format!("rate={rate}"))
        );
        assert!(row["resolved_config"]["router"]["vcs"].is_u64(), "{row}");
        // ... and its swept values and seed, a column each for data frames.
        assert_eq!(row["values"]["traffic.rate"].as_f64(), Some(rate));
        assert!(row["values"]["seed"].is_u64(), "{row}");
    }
    // A row per load with the mean and 95% confidence interval over the two seeds.
    let curves = read_csv(&out.join("curves.csv"));
    assert_eq!(curves.len(), 5);
    for row in &curves {
        assert_eq!(row["seeds"], "2");
        let (mean, ci) = (
            row["accepted_mean"].parse::<f64>().unwrap(),
            row["accepted_ci95"].parse::<f64>().unwrap(),
        );
        assert!(mean > 0.0 && ci >= 0.0 && ci < mean, "{row:?}");
    }
    // The 4x4 torus saturates below 0.9: that point is unstable, the first one is not, and the
    // plots carry the unstable point, marked.
    assert_eq!(curves[0]["saturated_seeds"], "0");
    assert_ne!(curves[4]["saturated_seeds"], "0");
    assert!(!curves[4]["saturation_cause"].is_empty());
    let plotted = read_csv(&out.join("latency.data.csv"));
    assert_eq!(plotted.len(), 5);
    assert_eq!(plotted[4]["marked"], "true");
    assert!(!plotted[4]["error"].is_empty());
    let line = table
        .lines()
        .find(|l| l.starts_with("saturation throughput"))
        .unwrap();
    assert!(
        line.contains("the highest stable point; unstable from offered"),
        "{line}"
    );
    let again = sweep(&config, &out, "2", &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8(again.stderr)
            .unwrap()
            .contains("--resume")
    );
}

#[test]
fn sweep_results_do_not_depend_on_the_number_of_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let config = small_sweep_config(dir.path());
    let (one, two) = (dir.path().join("j1"), dir.path().join("j2"));
    assert!(sweep(&config, &one, "1", &[]).status.success());
    assert!(sweep(&config, &two, "2", &[]).status.success());
    assert_eq!(results_without_timing(&one), results_without_timing(&two));
}

#[test]
fn an_interrupted_sweep_resumes_with_only_the_missing_points() {
    let dir = tempfile::tempdir().unwrap();
    let config = small_sweep_config(dir.path());
    let (full, cut) = (dir.path().join("full"), dir.path().join("cut"));
    assert!(sweep(&config, &full, "2", &[]).status.success());
    assert!(sweep(&config, &cut, "2", &[]).status.success());
    // Keep four finished points and a line cut short, as a kill during a write leaves them.
    let text = std::fs::read_to_string(cut.join("results.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    let partial = &text.lines().nth(4).unwrap()[..20];
    std::fs::write(cut.join("results.jsonl"), kept.join("\n") + "\n" + partial).unwrap();
    let resumed = sweep(&config, &cut, "2", &["--resume"]);
    assert!(resumed.status.success(), "{resumed:?}");
    assert!(
        String::from_utf8(resumed.stderr)
            .unwrap()
            .contains("4 of 10 points already done")
    );
    assert_eq!(results_without_timing(&full), results_without_timing(&cut));
    // A different sweep in the same directory is refused.
    refused(
        tailback()
            .arg("sweep")
            .arg(&config)
            .args(["--vary", "traffic.rate=0.2,0.4", "--resume", "--out"])
            .arg(&cut),
    );
}

/// Runs `tailback sweep` on a small config in `dir` with `args`, expects it refused (exit
/// status 2) before writing anything, and returns its error output.
fn refused_sweep(dir: &Path, args: &[&str]) -> String {
    let config = small_sweep_config(dir);
    let out = dir.join("out");
    let output = refused(
        tailback()
            .arg("sweep")
            .arg(&config)
            .args(args)
            .arg("--out")
            .arg(&out),
    );
    assert!(!out.join("results.jsonl").exists());
    output
}

#[test]
fn sweep_validates_every_point_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused_sweep(dir.path(), &["--vary", "router.vcs=0,1,4"]);
    // vcs = 0 is out of range; vcs = 1 is too few for the torus's two dateline classes.
    assert!(
        err.contains("router.vcs = 0") && err.contains("router.vcs = 1"),
        "{err}"
    );
    refused_sweep(dir.path(), &["--vary", "traffic.rate=0.5:0.1:0.1"]);
}

/// Seeds past the largest TOML integer are refused, not wrapped into a seed nobody gave.
#[test]
fn sweep_refuses_seeds_past_the_largest() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--set", "seed=9223372036854775807", "--seeds", "2"];
    let err = refused_sweep(
        dir.path(),
        &[&args[..], &["--vary", "traffic.rate=0.1"]].concat(),
    );
    assert!(
        err.contains("seed = 9223372036854775807") && err.contains("past the largest seed"),
        "{err}"
    );
}

/// A sweep's size is counted before its points are made: 10^9 points are refused at once,
/// naming the factors, unless --max-points allows them; -j 0 is refused and -j past the points
/// starts no more threads than points.
#[test]
fn sweep_plans_and_jobs_are_bounded_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused_sweep(
        dir.path(),
        &[
            "--vary",
            "traffic.rate=0:1:0.0001",
            "--vary",
            "seed=1:100000:1",
        ],
    );
    assert!(
        err.contains("1000100000 points")
            && err.contains("10001 values of traffic.rate x 100000 values of seed")
            && err.contains("--max-points"),
        "{err}"
    );
    let err = refused_sweep(
        dir.path(),
        &[
            "--vary",
            "traffic.rate=0.1,0.2,0.3",
            "--seeds",
            "2",
            "--max-points",
            "5",
        ],
    );
    assert!(err.contains("6 points") && err.contains("2 seeds"), "{err}");
    let err = refused_sweep(dir.path(), &["--vary", "traffic.rate=0.1", "-j", "0"]);
    assert!(err.contains("-j") || err.contains("jobs"), "{err}");

    let config = small_sweep_config(dir.path());
    let out = dir.path().join("many-jobs");
    let output = sweep(&config, &out, "100000", &[]);
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("more simulations at once than"), "{stderr}");
    assert_eq!(read_csv(&out.join("results.csv")).len(), 10);
}

/// `run` holds the output directory's lock while it writes: a second writer is refused (exit
/// status 1) and writes nothing; a sweep's directory is not overwritten without --force.
#[test]
fn run_takes_the_output_lock_and_keeps_out_of_a_sweeps_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(out.join(".tailback.lock"))
        .unwrap();
    lock.lock().unwrap();
    let output = tailback()
        .arg("run")
        .args(SHORT)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("being written by another tailback"),
        "{output:?}"
    );
    assert!(!out.join("summary.json").exists());
    lock.unlock().unwrap();
    let output = tailback()
        .arg("run")
        .args(SHORT)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");

    let config = small_sweep_config(dir.path());
    let swept = dir.path().join("swept");
    assert!(sweep(&config, &swept, "2", &[]).status.success());
    let err = refused(tailback().arg("run").args(SHORT).arg("--out").arg(&swept));
    assert!(err.contains("a sweep") && err.contains("--force"), "{err}");
    assert!(!swept.join("summary.json").exists());
}

/// Where a file is expected, a device, an empty path or an oversized file is refused naming the
/// key; nothing is read until memory runs out and no stand-in network is simulated. A config
/// may come from standard input as `-`.
#[test]
fn files_that_are_not_regular_or_too_large_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Arguments, and what the refusal must say.
    let cases: [(&[&str], [&str; 2]); 4] = [
        (&["/dev/zero"], ["config /dev/zero", "not a regular file"]),
        (
            &["--set", "topology.kind=file", "--set", "topology.file=\"\""],
            ["topology.file", "empty path"],
        ),
        (
            &[
                "--set",
                "topology.kind=file",
                "--set",
                "topology.file=\"/dev/zero\"",
            ],
            ["topology.file", "not a regular file"],
        ),
        (
            &[
                "--set",
                "traffic.process=\"trace\"",
                "--set",
                "traffic.trace_file=\"/dev/null\"",
            ],
            ["traffic.trace_file", "not a regular file"],
        ),
    ];
    for command in ["check", "run"] {
        for (args, said) in &cases {
            let err = refused(tailback().arg(command).args(*args));
            assert!(said.iter().all(|part| err.contains(part)), "{err}");
        }
    }
    let huge = dir.path().join("huge.toml");
    std::fs::write(&huge, "#".repeat((16 << 20) + 1)).unwrap();
    let err = refused(tailback().arg("check").arg(&huge));
    assert!(err.contains("larger than 16 MiB"), "{err}");
    let output = tailback()
        .args(["check", "-", "--format", "json"])
        .write_stdin("[topology]\nk = 4\n")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout_json(&output)["nodes"], 16);
}

#[test]
fn bench_reports_speed_of_a_reference_configuration() {
    let output = tailback()
        .args([
            "bench", "--only", "mesh8", "--repeat", "1", "--format", "json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let json = stdout_json(&output);
    let mesh = &json[0];
    assert_eq!(mesh["name"], "mesh8");
    for field in [
        "cycles_per_second",
        "node_cycles_per_second",
        "flit_hops_per_second",
    ] {
        assert!(mesh[field].as_f64().unwrap() > 0.0, "{field}");
    }
    let unknown = refused(tailback().args(["bench", "--only", "nope"]));
    assert!(unknown.contains("torus16"));
}

#[test]
fn a_bulk_synchronous_run_with_nifdy_reports_delivered_packets_and_pending_maps() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "bsp.toml",
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n\
         [router]\nvcs = 2\nvc_buffer_flits = 8\nlogical_networks = 2\n\
         [processor]\n[traffic]\nprocess = \"bsp\"\nload = \"light\"\n\
         [congestion]\nmechanism = \"nifdy\"\nack_flits = 2\n\
         [sim]\nwarmup_cycles = 0\nmeasure_cycles = 20000\n\
         [record]\nseries_window = 1000\npending_per_receiver = true\n",
    );
    let out = dir.path().join("out");
    let output = tailback()
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    for part in [
        "light bulk-synchronous",
        "NIFDY: o = 8, b = 16",
        "packets in the window",
    ] {
        assert!(text.contains(part), "{part:?} missing:\n{text}");
    }
    for file in ["pending.csv", "pending.png", "series.csv"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    // The directory holds a run now: a second run into it needs --force.
    let err = refused(tailback().arg("run").arg(&config).arg("--out").arg(&out));
    assert!(
        err.contains("earlier run") && err.contains("--force"),
        "{err}"
    );
    let json = tailback()
        .arg("run")
        .arg(&config)
        .args(["--force", "--out"])
        .arg(&out)
        .args(["--format", "json", "--smooth", "5"])
        .output()
        .unwrap();
    let summary = stdout_json(&json);
    assert!(
        summary["delivered_packets"].as_u64().unwrap() > 100,
        "{summary}"
    );
    assert_eq!(summary["cycles"], 20000);
    // The figure is smoothed over 5 windows; series.csv keeps the windows as they are.
    let raw: Vec<f64> = read_csv(&out.join("series.csv"))
        .iter()
        .map(|row| row["delivered"].parse().unwrap())
        .collect();
    let drawn: Vec<f64> = read_csv(&out.join("series.data.csv"))
        .iter()
        .filter(|row| row["panel"].starts_with("delivered"))
        .map(|row| row["y"].parse().unwrap())
        .collect();
    assert_eq!(raw.len(), drawn.len());
    let middle = raw.len() / 2;
    let mean = raw[middle - 2..=middle + 2].iter().sum::<f64>() / 5.0;
    assert!(
        (drawn[middle] - mean).abs() < 1e-9,
        "{drawn:?} against {raw:?}"
    );
}

#[test]
fn predict_prints_the_latency_and_names_saturated_channels() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "torus.toml",
        "[topology]\nk = 8\n[traffic]\nrate = 0.3\n",
    );
    let output = tailback()
        .arg("predict")
        .arg(&config)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let json = stdout_json(&output);
    let mean = json["latency"]["mean"].as_f64().unwrap();
    assert!(mean > json["latency"]["zero_load"].as_f64().unwrap());
    assert!(
        (json["max_link_rho"].as_f64().unwrap() - 0.3).abs() < 0.01,
        "{json}"
    );
    // A hot spot past its ejection channel's capacity: no latency, the channel named.
    let table = tailback()
        .arg("predict")
        .arg(&config)
        .args([
            "--set",
            "traffic.pattern=hotspot",
            "--set",
            "traffic.hotspot_nodes=[5]",
        ])
        .output()
        .unwrap();
    assert!(table.status.success(), "{table:?}");
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("no finite prediction"), "{text}");
    assert!(
        text.contains("the ejection channel of node 5 (rho"),
        "{text}"
    );
    // A closed-loop workload is refused (exit 2) with the reason.
    let refused = tailback()
        .arg("predict")
        .arg(&config)
        .args([
            "--set",
            "traffic.process=collective",
            "--set",
            "traffic.rate=0",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
}

/// A closed pipe ends `tailback` quietly (as SIGPIPE ends other tools), and any other failure
/// to write standard output ends it with a one-line error: never a panic.
#[cfg(unix)]
#[test]
fn output_failures_end_quietly_or_with_a_clear_error() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "torus.toml", "[topology]\nk = 8\nn = 2\n");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tailback"))
        .arg("check")
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the child writes anything.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    // SIGPIPE is 13 on Linux and the BSDs.
    assert!(
        output.status.success() || output.status.signal() == Some(13),
        "{:?}",
        output.status
    );

    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    if let Ok(full) = full {
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("tailback"))
            .arg("check")
            .arg(&config)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with("error: cannot write to standard output"),
            "{err}"
        );
        let full = || {
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap()
        };
        let status = |args: &[&str], stdout: bool, stderr: bool| {
            let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("tailback"));
            command.args(args).current_dir(dir.path());
            if stdout {
                command.stdout(full());
            }
            if stderr {
                command.stderr(full());
            }
            command.status().unwrap().code()
        };
        // The error cannot be printed, but its status still says what happened.
        assert_eq!(
            status(&["check", "/nonexistent.toml"], false, true),
            Some(2)
        );
        // Help that cannot be written is not a success.
        assert_eq!(status(&["--help"], true, false), Some(1));
        assert_eq!(status(&["run", "--help"], true, true), Some(1));
        // Neither output writable: a failure, not an abort.
        let run = [
            "run",
            "--set",
            "sim.warmup_cycles=10",
            "--set",
            "sim.measure_cycles=200",
        ];
        assert_eq!(status(&run, true, true), Some(1));
    }
}

/// `check` reads a replayed trace as `run` would: a garbage or truncated `.gz` trace is refused
/// naming the file, not called valid.
#[test]
fn check_refuses_a_trace_that_run_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("broken.trace.gz");
    std::fs::write(&trace, b"\x1f\x8b\x08\x00 not really gzip").unwrap();
    let text = format!(
        "[topology]\nk = 4\nn = 2\n[traffic]\nprocess = \"trace\"\ntrace_file = {:?}\n",
        trace.display().to_string()
    );
    let config = write_config(dir.path(), "replay.toml", &text);
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    for command in [&["check"][..], &["run", "--out", out]] {
        let output = tailback().args(command).arg(&config).output().unwrap();
        let err = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{command:?}: {err}");
        assert!(err.contains("traffic.trace_file"), "{command:?}: {err}");
    }
}

#[test]
fn runs_too_large_for_the_memory_allowed_are_refused_before_they_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = small_sweep_config(dir.path());
    let out = dir.path().join("run");
    // A trillion cycles: warned about with an estimate, then refused for memory, never run.
    let err = refused(
        tailback()
            .arg("run")
            .arg(&config)
            .args([
                "--set",
                "sim.measure_cycles=1000000000000",
                "--max-memory",
                "100K",
                "--out",
            ])
            .arg(&out),
    );
    assert!(
        err.contains("warning: a run simulates 1.000e12 cycles of 16 nodes"),
        "{err}"
    );
    assert!(err.contains("days"), "{err}");
    assert!(
        err.contains("this run needs about") && err.contains("--max-memory allows 102 kB"),
        "{err}"
    );
    assert!(!out.exists());
    // A sweep counts the runs it holds at once.
    let err = refused_sweep(
        dir.path(),
        &[
            "--vary",
            "traffic.rate=0.1,0.2",
            "-j",
            "2",
            "--max-memory",
            "300K",
        ],
    );
    assert!(err.contains("2 runs at once need about"), "{err}");
    let bad = refused(
        tailback()
            .arg("run")
            .arg(&config)
            .args(["--max-memory", "lots"]),
    );
    assert!(bad.contains("`lots` is not a size"));
}

#[test]
fn off_a_terminal_a_sweep_logs_plain_progress_lines() {
    let dir = tempfile::tempdir().unwrap();
    let config = small_sweep_config(dir.path());
    let output = tailback()
        .env("TAILBACK_LOG_SECONDS", "0")
        .arg("sweep")
        .arg(&config)
        .args(["--vary", "traffic.rate=0.1,0.2", "-j", "1", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("1 of 2 points done"), "{err}");
    assert!(err.contains("2 of 2 points done"), "{err}");
}

#[test]
fn unset_drops_a_key_so_a_config_can_switch_to_a_trace_and_the_trace_directory_is_made() {
    let dir = tempfile::tempdir().unwrap();
    // A trace written into a directory that does not exist yet.
    let trace = dir.path().join("traces").join("run.trace");
    let recorded = tailback()
        .arg("run")
        .args(SHORT)
        .arg("--trace-out")
        .arg(&trace)
        .arg("--out")
        .arg(dir.path().join("recorded"))
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{recorded:?}");
    assert!(trace.is_file());
    // A config with a pattern cannot replay a trace until the pattern is unset.
    let config = write_config(
        dir.path(),
        "pattern.toml",
        "[traffic]\npattern = \"transpose\"\nrate = 0.1\n",
    );
    let replay = |extra: &[&str]| {
        tailback()
            .arg("check")
            .arg(&config)
            .args(extra)
            .args(["--set", "traffic.process=trace", "--set"])
            .arg(format!("traffic.trace_file={}", trace.display()))
            .output()
            .unwrap()
    };
    let refused = replay(&[]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let unset = replay(&["--unset", "traffic.pattern", "--unset", "traffic.rate"]);
    assert!(unset.status.success(), "{unset:?}");
    let missing = replay(&["--unset", "traffic.burst"]);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8(missing.stderr).unwrap();
    assert!(
        err.contains("traffic.burst") && err.contains("cannot be unset"),
        "{err}"
    );
}

#[test]
fn check_without_a_config_describes_the_built_in_default() {
    let output = tailback().arg("check").output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("the built-in default: valid"), "{text}");
    assert!(text.contains("64 nodes"), "{text}");
}

#[test]
fn predict_cautions_past_the_utilisation_it_is_validated_for() {
    let predict = |rate: &str| {
        let output = tailback()
            .args(["predict", "--set"])
            .arg(format!("traffic.rate={rate}"))
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        stdout_json(&output)
    };
    assert!(predict("0.2").get("caution").is_none());
    let busy = predict("0.7");
    assert!(busy["max_link_rho"].as_f64().unwrap() > 0.5, "{busy}");
    assert!(
        busy["caution"].as_str().unwrap().contains("lower bound"),
        "{busy}"
    );
}
