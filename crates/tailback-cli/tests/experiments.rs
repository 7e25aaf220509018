//! End-to-end tests of `tailback experiment` and of the time-series and occupancy outputs of
//! `tailback run`.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;
use tailback_experiments::{Context, RunOptions};

fn tailback() -> Command {
    Command::cargo_bin("tailback").expect("the tailback binary is built")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs experiment `name` with `--quick` on two threads into `out`; returns its summary.
fn run_quick(name: &str, out: &Path) -> Value {
    let output = tailback()
        .args(["experiment", "run", name, "--quick", "-j", "2", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    read_json(&out.join("summary.json"))
}

/// The verdicts the rules give the quick run of `name` finished in `out`, which the quick run
/// itself withholds: the run analysed again in process from its stored runs (nothing reruns),
/// by comparison id, or by `what` where there is none.
fn verdicts(name: &str, out: &Path) -> BTreeMap<String, Option<bool>> {
    let experiment = tailback_experiments::all()
        .into_iter()
        .find(|e| e.name == name)
        .expect("the experiment exists");
    let ctx = Context {
        runs: RunOptions {
            out: out.to_path_buf(),
            threads: 2,
            resume: true,
            donors: Vec::new(),
            offline: false,
        },
        quick: true,
    };
    experiment
        .analyse(&ctx)
        .unwrap()
        .comparisons
        .into_iter()
        .map(|c| (c.id.clone().unwrap_or(c.what.clone()), c.verdict.agrees()))
        .collect()
}

/// Asserts that a quick run's summary judges nothing: no verdict anywhere, and every rule
/// (those of the comparisons a full run judges) stated.
fn assert_not_judged(summary: &Value) {
    assert_eq!(summary["quick"], true);
    for c in summary["comparisons"].as_array().unwrap() {
        assert!(c["agrees"].is_null(), "{c}");
        if let Some(rule) = c.get("rule") {
            assert!(!rule.as_str().unwrap().trim().is_empty(), "{c}");
        }
    }
}

/// The ids of a summary's comparisons (every judged one has one; lines shown for information
/// may have none).
fn comparison_ids(summary: &Value) -> Vec<&str> {
    summary["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| {
            let id = c["id"].as_str();
            assert!(
                id.is_some() || c["rule"].is_null(),
                "a judged comparison without an id: {c}"
            );
            id
        })
        .collect()
}

/// Asserts that a summary has a comparison with each of `expected` ids.
fn assert_compares(summary: &Value, expected: &[&str]) {
    let ids = comparison_ids(summary);
    for id in expected {
        assert!(ids.contains(id), "{id} missing from {ids:?}");
    }
}

#[test]
fn experiment_list_names_every_experiment_with_its_source() {
    let output = tailback().args(["experiment", "list"]).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for name in [
        "self-tuned-fig1",
        "self-tuned-fig3",
        "self-tuned-fig4",
        "self-tuned-fig5",
        "self-tuned-fig7",
        "self-tuned-tree",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} not listed:\n{text}"));
        assert!(
            line.contains("Thottethodi, Lebeck and Mukherjee, HPCA 2001"),
            "{line}"
        );
    }
    for name in [
        "entropy-fig6",
        "entropy-table2",
        "entropy-fig11",
        "entropy-fig12",
        "entropy-practical",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(name)
                && l.contains("Yokota, Ootsu and Ohkawa, IEICE Trans. 2016")),
            "{name} not listed:\n{text}"
        );
    }
    for name in ["nifdy-fig2", "nifdy-fig3", "nifdy-fig4", "nifdy-cshift"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && l.contains("Callahan and Goldstein, ISCA 1995")),
            "{name} not listed:\n{text}"
        );
    }
}

#[test]
fn the_cyclic_shift_experiment_draws_pending_packets_and_compares_with_barriers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cshift");
    let output = tailback()
        .args(["experiment", "run", "nifdy-cshift", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    for file in [
        "fig5-none-pending.png",
        "fig5-nifdy-pending.csv",
        "fig6.txt",
    ] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let summary = read_json(&out.join("summary.json"));
    assert_not_judged(&summary);
    let comparisons = summary["comparisons"].as_array().unwrap();
    let every_case = comparisons
        .iter()
        .find(|c| c["id"] == "cshift-complete")
        .unwrap();
    assert!(every_case["rule"].is_string(), "{every_case}");
    assert_eq!(
        verdicts("nifdy-cshift", &out)["cshift-complete"],
        Some(true)
    );
    // The pending packets: a header of the cycle and 32 nodes, then a row per window.
    let csv = std::fs::read_to_string(out.join("fig5-nifdy-pending.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert_eq!(header.split(',').count(), 33, "{header}");
    assert!(csv.lines().count() > 10);
}

#[test]
fn the_dragonfly_routing_experiment_measures_every_claim_on_a_small_dragonfly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dragonfly");
    let summary = run_quick("dragonfly-routing", &out);
    assert_not_judged(&summary);
    let ids = comparison_ids(&summary);
    assert_eq!(ids.len(), 8, "{ids:?}");
    // One seed: the orderings are shown, not judged; Valiant's throughput and the ratio are.
    let verdicts = verdicts("dragonfly-routing", &out);
    assert_eq!(
        verdicts.values().filter(|v| v.is_some()).count(),
        2,
        "{verdicts:?}"
    );
    assert!(out.join("throughput.txt").exists());
}

#[test]
fn the_congestion_tree_experiment_finds_the_root_where_the_thesis_puts_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trees");
    let summary = run_quick("ar-congestion-tree", &out);
    assert_not_judged(&summary);
    let ids = comparison_ids(&summary);
    assert_eq!(ids.len(), 8, "{ids:?}");
    // One seed: the orderings are shown, not judged; the roots' levels are, and agree.
    let verdicts = verdicts("ar-congestion-tree", &out);
    let judged: Vec<(&String, &Option<bool>)> =
        verdicts.iter().filter(|(_, v)| v.is_some()).collect();
    assert_eq!(judged.len(), 4, "{verdicts:?}");
    assert!(
        judged
            .iter()
            .all(|(id, v)| id.ends_with("-root") && **v == Some(true)),
        "{verdicts:?}"
    );
    for tree in ["k4n3", "clos648"] {
        for routing in ["deterministic", "adaptive"] {
            assert!(
                out.join(format!("{tree}-{routing}-port_vl_map.svg"))
                    .exists()
            );
        }
    }
    assert!(out.join("trees.txt").exists());
}

/// `cfq-arbitration` reruns the papers' runs under every policy: only the root-weighted ones
/// send Rate messages; on Paper V's two switches, where no input holds packets of both
/// classes for one output, every policy gives the same rates; on the 4-ary 3-tree the policy
/// is in effect.
#[test]
fn the_arbitration_experiment_reruns_the_papers_runs_under_every_policy() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("arbitration");
    let summary = run_quick("cfq-arbitration", &out);
    assert_not_judged(&summary);
    assert_eq!(comparison_ids(&summary).len(), 4);
    let text = std::fs::read_to_string(out.join("arbitration.csv")).unwrap();
    // setting, scheme, source run -> policy -> (victims, hot, least hot, rate messages)
    let mut runs: BTreeMap<(String, String, String), BTreeMap<String, Vec<String>>> =
        BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        runs.entry((f[0].into(), f[1].into(), f[3].into()))
            .or_default()
            .insert(f[2].into(), f[4..].iter().map(|x| x.to_string()).collect());
    }
    // 3 settings x 2 schemes, one seed.
    assert_eq!(runs.len(), 6, "{runs:?}");
    let mut case4_differs = false;
    for ((setting, _, _), policies) in &runs {
        assert_eq!(policies.len(), 5);
        for (policy, values) in policies {
            let rates: u64 = values[3].parse().unwrap();
            assert_eq!(
                rates > 0,
                policy.starts_with("root_weighted"),
                "{policy}: {values:?}"
            );
        }
        let rates = |p: &str| &policies[p][..3];
        for policy in policies.keys() {
            if setting == "case1" {
                assert_eq!(rates(policy), rates("ready_order"), "{policy}");
            } else if setting == "case4" && rates(policy) != rates("ready_order") {
                case4_differs = true;
            }
        }
    }
    assert!(case4_differs);
}

/// `ar-ibcc` runs Paper IV's forest and a dragonfly under both routings with CC off and on:
/// only CC runs mark, and marking only unchosen hops (ours) marks fewer packets under adaptive
/// routing.
#[test]
fn the_adaptive_throttling_experiment_marks_only_with_cc_and_fewer_when_sparing_choices() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ibcc");
    let summary = run_quick("ar-ibcc", &out);
    assert_not_judged(&summary);
    // The forest's claim, and the dragonfly's two.
    assert_eq!(comparison_ids(&summary).len(), 3);
    let text = std::fs::read_to_string(out.join("throttling.csv")).unwrap();
    // (study, cell) -> (receive rate of the other nodes, marks)
    let runs: BTreeMap<(String, String), (f64, u64)> = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let key = (f[0].to_string(), f[1].to_string());
            (key, (f[4].parse().unwrap(), f[8].parse().unwrap()))
        })
        .collect();
    assert_eq!(runs.len(), 10, "{runs:?}");
    for study in ["p60", "dragonfly-4"] {
        let marks = |cell: &str| runs[&(study.to_string(), cell.to_string())].1;
        assert_eq!((marks("det-off"), marks("ada-off")), (0, 0), "{study}");
        assert!(marks("det-cc") > 0 && marks("ada-cc") > 0, "{study}");
        assert!(
            marks("ada-unchosen") > 0 && marks("ada-unchosen") < marks("ada-cc"),
            "{study}: {runs:?}"
        );
    }
    // Under the group shift at 4 times minimal routing's bound, UGAL-L's detours carry what
    // MIN cannot.
    let others = |cell: &str| runs[&("dragonfly-4".to_string(), cell.to_string())].0;
    assert!(others("ada-off") > 2.0 * others("det-off"), "{runs:?}");
}

/// `ar-isolation` runs FBICM and CCFIT (HFDI and EcoCC on Paper VI's pattern) under
/// deterministic routing, adaptive routing as it is and our two ways of routing a known tree's
/// packets, beside no isolation, on trees and on a dragonfly: isolation claims lines only where
/// it is on, and keeping trees' packets on known trees leaves fewer claims refused than letting
/// them spread.
#[test]
fn the_isolation_experiment_claims_lines_only_with_isolation_and_fewer_refused_on_known_trees() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("isolation");
    let summary = run_quick("ar-isolation", &out);
    assert_not_judged(&summary);
    // Four settings, two isolating schemes; on the dragonfly also what each adds.
    assert_eq!(comparison_ids(&summary).len(), 4 * 2 + 2);
    let text = std::fs::read_to_string(out.join("isolation.csv")).unwrap();
    // (setting, scheme, routing) -> claims refused
    let refused: BTreeMap<(String, String, String), u64> = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let key = (f[0].to_string(), f[1].to_string(), f[2].to_string());
            (key, f[6].parse().unwrap())
        })
        .collect();
    assert_eq!(refused.len(), 4 * 12, "{refused:?}");
    let of = |setting: &str, scheme: &str, routing: &str| {
        refused[&(setting.to_string(), scheme.to_string(), routing.to_string())]
    };
    for (setting, schemes) in [
        ("case4", ["fbicm", "ccfit"]),
        ("pattern2", ["hfdi", "ecocc"]),
        ("p60", ["fbicm", "ccfit"]),
        ("dragonfly-4", ["fbicm", "ccfit"]),
    ] {
        assert_eq!(
            (of(setting, "none", "det"), of(setting, "none", "naive")),
            (0, 0)
        );
        for scheme in schemes {
            let naive = of(setting, scheme, "naive");
            assert!(naive > 0, "{setting} {scheme}: {refused:?}");
            for ours in ["follow", "gather"] {
                assert!(
                    of(setting, scheme, ours) < naive,
                    "{setting} {scheme} {ours}: {refused:?}"
                );
            }
        }
    }
}

#[test]
fn the_entropy_staircase_experiment_agrees_and_writes_its_series() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fig11");
    let summary = run_quick("entropy-fig11", &out);
    let steps: Vec<&Value> = summary["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["what"].as_str().unwrap().starts_with("start-up steps"))
        .collect();
    assert_eq!(steps.len(), 6);
    // noth has no paper value; the five throttled models are judged by the paper's step
    // counts, and match them.
    assert_not_judged(&summary);
    assert_eq!(steps.iter().filter(|c| c["rule"].is_string()).count(), 5);
    let verdicts = verdicts("entropy-fig11", &out);
    assert_eq!(
        steps
            .iter()
            .filter(|c| c["id"]
                .as_str()
                .is_some_and(|id| verdicts[id] == Some(true)))
            .count(),
        5,
        "{verdicts:?}"
    );
    assert!(out.join("fig11b-start-up.png").is_file());
    // Each run's series has the engine's columns, then its mechanism's gauges (none for noth).
    let header = |file: &std::path::Path| {
        let csv = std::fs::read_to_string(file).unwrap();
        csv.lines().next().unwrap().to_string()
    };
    let mut throttled = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("series-shfl-") && name.ends_with(".csv")) {
            continue;
        }
        if name == "series-shfl-noth.csv" {
            assert!(header(&path).ends_with(",latency"), "{name}");
        } else {
            assert!(
                header(&path)
                    .ends_with(",latency,threshold,estimate,valid_per_router,throttled_nodes"),
                "{name}"
            );
            throttled += 1;
        }
    }
    assert_eq!(throttled, 5);
}

#[test]
fn a_quick_experiment_writes_its_table_summary_and_plots_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fig4");
    let run = |extra: &[&str]| {
        tailback()
            .args([
                "experiment",
                "run",
                "self-tuned-fig4",
                "--quick",
                "-j",
                "2",
                "--out",
            ])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&[]);
    assert!(first.status.success(), "{first:?}");
    let table = String::from_utf8(first.stdout).unwrap();
    assert!(table.contains("quick mode"), "{table}");
    // The header names the paper's values, ours, the verdict and the rule.
    let header = table
        .lines()
        .find(|l| l.contains("paper") && l.contains("ours"))
        .unwrap_or_else(|| panic!("no header:\n{table}"));
    assert!(
        header.contains("verdict") && header.trim_end().ends_with("rule"),
        "{header}"
    );
    assert!(
        table.contains("local-maximum") || table.contains("avoidance"),
        "{table}"
    );
    // A quick run judges nothing, but shows the values; this ordering has one seed, so even
    // a full run shows it for information.
    let ordering = table
        .lines()
        .find(|l| l.starts_with("mean delivered throughput after warm-up"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        ordering.contains("with local-maximum avoidance") && ordering.contains("not judged"),
        "{ordering}"
    );
    assert!(
        !table.contains("agrees") && !table.contains("DIFFERS"),
        "{table}"
    );
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["experiment"], "self-tuned-fig4");
    assert_not_judged(&summary);
    let comparisons = summary["comparisons"].as_array().unwrap();
    assert!(!comparisons.is_empty());
    for c in comparisons {
        assert!(c["paper"].is_string() && c["ours"].is_string(), "{c}");
    }
    let files = summary["files"].as_array().unwrap();
    assert!(files.iter().any(|f| f.as_str().unwrap().ends_with(".png")));
    for file in files {
        assert!(
            Path::new(file.as_str().unwrap()).is_file(),
            "{file} missing"
        );
    }
    // The finished runs are kept: a second run refuses to overwrite them, and a resumed one
    // reruns nothing and reaches the same comparison.
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8(again.stderr)
            .unwrap()
            .contains("--resume")
    );
    let resumed = run(&["--resume"]);
    assert!(resumed.status.success(), "{resumed:?}");
    assert!(
        String::from_utf8(resumed.stderr)
            .unwrap()
            .contains("2 of 2 points already done")
    );
    let resumed_summary = read_json(&out.join("summary.json"));
    assert_eq!(resumed_summary["comparisons"], summary["comparisons"]);
}

#[test]
fn a_quick_run_writes_to_its_own_folder_which_a_full_run_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let output = tailback()
        .current_dir(dir.path())
        .args(["experiment", "run", "self-tuned-fig4", "--quick", "-j", "2"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let quick = dir
        .path()
        .join("tailback-out/experiments/self-tuned-fig4-quick");
    assert!(quick.join("summary.json").is_file());
    assert!(
        !dir.path()
            .join("tailback-out/experiments/self-tuned-fig4")
            .exists()
    );
    // A full run pointed at it is refused before anything runs, naming the file.
    for extra in [&["--resume"][..], &[]] {
        let full = tailback()
            .current_dir(dir.path())
            .args(["experiment", "run", "self-tuned-fig4", "-j", "2", "--out"])
            .arg(&quick)
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(full.status.code(), Some(2), "{full:?}");
        let stderr = String::from_utf8(full.stderr).unwrap();
        assert!(
            stderr.contains("summary.json")
                && stderr.contains("quick run")
                && stderr.contains("--out"),
            "{stderr}"
        );
    }
    // The quick run resumes there.
    let again = tailback()
        .current_dir(dir.path())
        .args([
            "experiment",
            "run",
            "self-tuned-fig4",
            "--quick",
            "-j",
            "2",
            "--resume",
        ])
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
}

#[test]
fn the_tree_experiment_draws_occupancy_maps_of_both_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tree");
    let output = tailback()
        .args(["experiment", "run", "self-tuned-tree", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    for run in ["base", "tune"] {
        for cycle in [250, 1000, 5000] {
            let map = out.join(format!("tree-{run}-occupancy_{cycle}.png"));
            assert!(map.is_file(), "{} missing", map.display());
        }
    }
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("routers over 25% full at cycle 1000"),
        "{text}"
    );
}

#[test]
fn unknown_experiments_are_refused_with_the_list() {
    let output = tailback()
        .args(["experiment", "run", "fig99"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("fig99") && stderr.contains("self-tuned-fig3"),
        "{stderr}"
    );
}

#[test]
fn a_recorded_run_writes_its_time_series_and_occupancy_maps() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = tailback()
        .args([
            "run",
            "--set",
            "sim.warmup_cycles=200",
            "--set",
            "sim.measure_cycles=1000",
            "--set",
            "congestion.mechanism=self_tuned",
            "--set",
            "record.series_window=100",
            "--set",
            "record.occupancy_at=[150, 600]",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let csv = std::fs::read_to_string(out.join("series.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "cycle,offered,delivered,delivered_hot,in_flight_packets,queued_packets,full_buffers,\
         throttled_fraction,deadlock_recoveries,latency,threshold,estimate"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // One row per 100-cycle window of the 1,200 measured-and-warm-up cycles (at least).
    assert!(rows.len() >= 12, "{} rows", rows.len());
    let cycles: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(&cycles[..3], &[100, 200, 300]);
    // Self-tuned throttling has a threshold.
    assert!(rows.iter().all(|r| !r[10].is_empty()));
    for file in [
        "series.svg",
        "series.png",
        "occupancy_150.png",
        "occupancy_600.svg",
    ] {
        assert!(out.join(file).is_file(), "{file} not written");
    }
}

#[test]
fn every_experiment_runs_quick_and_writes_its_comparisons() {
    let list = tailback().args(["experiment", "list"]).output().unwrap();
    let text = String::from_utf8(list.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.len() >= 17, "{text}");
    // Sibling output directories named as by default: Table 2 reuses the Fig. 6 search's runs.
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        let out = dir.path().join(format!("{name}-quick"));
        let output = tailback()
            .args(["experiment", "run", name, "--quick", "-j", "2", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {output:?}");
        let summary = read_json(&out.join("summary.json"));
        assert_eq!(summary["experiment"], name);
        assert_not_judged(&summary);
        let comparisons = summary["comparisons"].as_array().unwrap();
        assert!(!comparisons.is_empty(), "{name}: no comparisons");
        if comparisons.iter().any(|c| c.get("rule").is_some()) {
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(stdout.contains("not judged"), "{name}: {stdout}");
        }
        for c in comparisons {
            assert!(
                c["what"].is_string() && c["ours"].is_string(),
                "{name}: {c}"
            );
        }
    }
}

/// Three hosts sending to one on the buffered 4-ary 2-tree: `tailback run` writes the
/// congested Port VLs and the map of every Port VL's load, which agree.
#[test]
fn a_run_on_buffered_switches_maps_its_congestion_tree() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tree.toml");
    std::fs::write(
        &config,
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n\
         [router]\nvcs = 1\nvc_buffer_flits = 32\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\n\
         [traffic]\nprocess = \"flows\"\npacket_flits = 4\n\
         flows = [{ src = 4, dst = 0 }, { src = 8, dst = 0 }, { src = 12, dst = 0 }]\n\
         [sim]\nwarmup_cycles = 2000\nmeasure_cycles = 2000\ndrain_cycles_max = 0\n\
         [record]\ncongested_port_vls = true\n",
    )
    .unwrap();
    let out = dir.path().join("run");
    let output = tailback()
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let rows = |file: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        text.lines()
            .skip(1)
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let congested = rows("congested_port_vls.csv");
    // d_mod_k: the three flows meet at one top switch's port down to the hot host's leaf.
    assert!(!congested.is_empty());
    let full: Vec<Vec<String>> = rows("port_vl_map.csv")
        .into_iter()
        .filter(|r| r[3] == "1.0")
        .map(|r| r[..3].to_vec())
        .collect();
    assert_eq!(full, congested);
    // The heat map's data: a cell per switch (8) and port (8); the top switches have 4.
    let cells = rows("port_vl_map.data.csv");
    assert_eq!(cells.len(), 64);
    assert_eq!(cells.iter().filter(|c| c[2].is_empty()).count(), 16);
    for file in [
        "port_vl_map.svg",
        "port_vl_map.png",
        "port_vl_queued.svg",
        "port_vl_queued.png",
    ] {
        assert!(out.join(file).is_file(), "{file} not written");
    }
}

/// The InfiniBand testbed scenario with congestion control off, quick: every comparison has a
/// stable id and numbers where the paper gives one, and agrees; the per-flow files are
/// written in Gbit/s.
#[test]
fn the_infiniband_testbed_experiment_compares_numbers_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s1");
    let summary = run_quick("ib-testbed-s1-nocc", &out);
    assert_compares(
        &summary,
        &[
            "s1-f1-alone",
            "s1-three-f1",
            "s1-five-f1",
            "s1-five-f4",
            "s1-share-h6",
        ],
    );
    assert_not_judged(&summary);
    for c in summary["comparisons"].as_array().unwrap() {
        assert!(c["paper_value"].is_f64() && c["ours_value"].is_f64(), "{c}");
        assert!(c["rule"].is_string(), "{c}");
    }
    for (id, agrees) in verdicts("ib-testbed-s1-nocc", &out) {
        assert_eq!(agrees, Some(true), "{id}");
    }
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert!(flows.starts_with("src,dst,accepted,gbps"), "{flows}");
}

#[test]
fn the_isolation_experiments_compare_five_schemes_and_draw_each() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fairness");
    let summary = run_quick("ccfit-fairness", &out);
    assert_compares(
        &summary,
        &["case1-1q-victim", "case1-ccfit-fair", "case1-ith-dip"],
    );
    // 1Q's victim is head-of-line blocked even in the short run; isolation frees it.
    let comparison = |id: &str| {
        summary["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone()
    };
    assert_not_judged(&summary);
    assert_eq!(
        verdicts("ccfit-fairness", &out)["case1-1q-victim"],
        Some(true)
    );
    assert!(
        comparison("case1-ccfit-victim")["ours_value"]
            .as_f64()
            .unwrap()
            > 2.2
    );
    for scheme in ["1q", "ith", "fbicm", "ccfit", "voqnet"] {
        assert!(
            out.join(format!("case1-{scheme}.svg")).is_file(),
            "{scheme}"
        );
    }
    assert!(out.join("case1.csv").is_file());
    let out = dir.path().join("trees");
    let summary = run_quick("ccfit-fig8", &out);
    assert_compares(
        &summary,
        &[
            "fig8-t1-voqnet-ccfit",
            "fig8-t1-ccfit-fbicm",
            "fig8-t4-ccfit-fbicm",
            "fig8-t4-ith-swing",
            "fig8-ith-better-with-4",
        ],
    );
    // One row per tree count, scheme and seed (--quick: 1 and 4 trees, one seed).
    let table = std::fs::read_to_string(out.join("trees.csv")).unwrap();
    assert_eq!(table.lines().count(), 1 + 2 * 5, "{table}");
    assert!(out.join("fig8-t1.png").is_file() && out.join("trees-series.csv").is_file());
}

#[test]
fn the_ecocc_experiments_judge_every_case_and_write_their_data() {
    let dir = tempfile::tempdir().unwrap();
    // --quick: 64 nodes, patterns #1 and #2, one seed.
    let out = dir.path().join("fig7");
    let summary = run_quick("ecocc-fig7", &out);
    assert_compares(
        &summary,
        &[
            "fig7-n3-p1-isolation",
            "fig7-n3-p1-order",
            "fig7-n3-p2-order",
            "fig7-n3-p2-hpqs",
        ],
    );
    let table = std::fs::read_to_string(out.join("fig7.csv")).unwrap();
    assert_eq!(table.lines().count(), 1 + 2 * 5, "{table}");
    assert!(out.join("fig7-n3-p2.png").is_file() && out.join("hpqs-n3.svg").is_file());
    // Table 3: both switches' gains over the four rows, and their orderings.
    let out = dir.path().join("table3");
    let summary = run_quick("ecocc-table3", &out);
    assert_compares(
        &summary,
        &[
            "table3-spread-n3-ecocc-over-1vl",
            "table3-spread-n3-ecocc-over-voqnet",
            "table3-spread-n3-ccfit-over-fbicm",
            "table3-spread-n3-voq-order-hfdi-ecocc",
            "table3-spread-n3-single-order-fbicm-ccfit",
        ],
    );
    let gains = std::fs::read_to_string(out.join("table3-gains.csv")).unwrap();
    assert_eq!(gains.lines().count(), 1 + 2 * 4, "{gains}");
    // The traces: the stand-ins written as traces, every application and scenario judged.
    let out = dir.path().join("traces");
    let summary = run_quick("ecocc-traces", &out);
    // mpifft's spread per scenario; for beff-natring and ptrans, the paper's ten statements.
    assert_eq!(comparison_ids(&summary).len(), 3 + 2 * 10);
    for app in ["mpifft", "beff-natring", "ptrans"] {
        let trace = std::fs::read_to_string(out.join(format!("{app}.trace"))).unwrap();
        assert!(trace.contains("\n# synthetic stand-in"), "{app}");
    }
    let times = std::fs::read_to_string(out.join("fig8.csv")).unwrap();
    assert_eq!(times.lines().count(), 1 + 3 * 3 * 5, "{times}");
    // Alone, every scheme finishes the stand-ins.
    for line in times.lines().filter(|l| l.contains(",sc1,")) {
        assert!(!line.contains(",,"), "{line}");
    }
}
