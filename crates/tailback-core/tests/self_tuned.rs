//! The self-tuned congestion control paper's claims (Thottethodi et al., HPCA 2001), on its own
//! network: `experiments/self-tuned/network.toml`, the configuration `tailback experiment run
//! self-tuned-*` uses, with the same 60,000-cycle runs. `docs/validation.md` has the full
//! curves and what does not reproduce.
//!
//! These are long simulations (about a minute in all in a release build), so they only run in
//! release builds; the debug test pass covers the same mechanisms on small networks
//! (`tests/invariants.rs`, `tests/determinism.rs`).

mod common;

use std::sync::OnceLock;

use common::config;
use tailback_core::config::{merge_tables, parse_assignment, parse_table, set_path};
use tailback_core::spec::Spec;
use tailback_core::stats::RunSummary;

const NETWORK: &str = include_str!("../../../experiments/self-tuned/network.toml");
const BURSTY: &str = include_str!("../../../experiments/self-tuned/bursty.toml");

/// Deadlock recovery (the paper's three VCs, fully adaptive).
const RECOVERY: &[&str] = &["routing.algorithm=disha"];
/// Deadlock avoidance: two DOR escape VCs plus the paper's two adaptive VCs.
const AVOIDANCE: &[&str] = &["routing.algorithm=duato", "router.vcs=4"];
const BASE: &str = "congestion.mechanism=none";
const TUNE: &str = "congestion.mechanism=self_tuned";

/// The paper's network with `overlay` (TOML text) merged in and `sets` applied.
fn paper_config(overlay: &str, sets: &[&str]) -> Spec {
    let mut table = parse_table(NETWORK, "network.toml").unwrap();
    merge_tables(&mut table, parse_table(overlay, "overlay").unwrap());
    for assignment in sets {
        let (key, value) = parse_assignment(assignment).unwrap();
        set_path(&mut table, &key, value).unwrap();
    }
    Spec::from_table(&table).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the configurations in parallel (two at a time on the CI machine).
fn run_all(configs: Vec<Spec>) -> Vec<RunSummary> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = configs
            .iter()
            .map(|cfg| scope.spawn(move || tailback_core::run(cfg).unwrap().summary))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Offered loads of the uniform-traffic runs: at saturation (the peak of every curve here),
/// then well past it.
const LOADS: [f64; 4] = [0.3, 0.4, 0.6, 0.8];

/// Accepted throughput at `LOADS` for each (deadlock configuration, mechanism), uniform
/// traffic, computed once.
fn uniform_curves() -> &'static [Vec<f64>; 4] {
    static CURVES: OnceLock<[Vec<f64>; 4]> = OnceLock::new();
    CURVES.get_or_init(|| {
        let variants = [
            (RECOVERY, BASE),
            (RECOVERY, TUNE),
            (AVOIDANCE, BASE),
            (AVOIDANCE, TUNE),
        ];
        let configs = variants
            .iter()
            .flat_map(|(deadlock, mechanism)| {
                LOADS.iter().map(move |load| {
                    let rate = format!("traffic.rate={load}");
                    let sets: Vec<&str> = deadlock
                        .iter()
                        .copied()
                        .chain([*mechanism, &rate])
                        .collect();
                    paper_config("", &sets)
                })
            })
            .collect();
        let accepted: Vec<f64> = run_all(configs).iter().map(|s| s.accepted).collect();
        let mut chunks = accepted.chunks(LOADS.len()).map(<[f64]>::to_vec);
        std::array::from_fn(|_| chunks.next().unwrap())
    })
}

fn peak(curve: &[f64]) -> f64 {
    curve.iter().copied().fold(0.0, f64::max)
}

fn mean_past_saturation(curve: &[f64]) -> f64 {
    curve[1..].iter().sum::<f64>() / (curve.len() - 1) as f64
}

#[test]
#[cfg_attr(debug_assertions, ignore = "long simulations: release builds only")]
fn base_collapses_past_saturation_in_both_deadlock_configurations() {
    let [recovery, _, avoidance, _] = uniform_curves();
    // Measured: recovery falls from 0.300 to 0.004 (only the recovery lane still moves
    // packets), avoidance from 0.300 to 0.17 (the escape channels limit it).
    for (name, curve) in [("recovery", recovery), ("avoidance", avoidance)] {
        let share = mean_past_saturation(curve) / peak(curve);
        assert!(
            share < 0.75,
            "Base, {name}: {curve:?} keeps {share:.2} of its peak"
        );
    }
    assert!(
        mean_past_saturation(recovery) < mean_past_saturation(avoidance),
        "recovery should fall lower (one recovery at a time): {recovery:?} vs {avoidance:?}"
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "long simulations: release builds only")]
fn tune_keeps_throughput_near_its_peak_past_saturation() {
    let [_, recovery, _, avoidance] = uniform_curves();
    // Deadlock recovery: every load past saturation within 15% of the peak (measured: 0.30 to
    // 0.31 at every load up to 0.8).
    for &accepted in &recovery[1..] {
        assert!(
            accepted >= 0.85 * peak(recovery),
            "Tune, recovery: {recovery:?}"
        );
    }
    // Deadlock avoidance: within 15% on average. At some loads the tuner creeps into
    // saturation for long stretches (its best-period record is set by throughput spikes at
    // high thresholds), so single loads reach down to 70% of the peak; see docs/validation.md.
    let share = mean_past_saturation(avoidance) / peak(avoidance);
    assert!(
        share >= 0.85,
        "Tune, avoidance: {avoidance:?} keeps {share:.2} of its peak"
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "long simulations: release builds only")]
fn the_threshold_that_avoids_saturation_depends_on_the_pattern() {
    // The paper's point: networks saturate at different buffer occupancies under different
    // patterns, so no static threshold suits all. Here a threshold of 250 full buffers costs
    // butterfly traffic throughput that 50 keeps, while uniform traffic does at least as well
    // with 250 as with 50. (The paper's stronger results, 250 collapsing under butterfly and 50
    // visibly over-throttling uniform traffic, do not reproduce; see docs/validation.md.)
    let run = |pattern: &str, threshold: u32| {
        let sets = [
            "routing.algorithm=disha".to_string(),
            TUNE.to_string(),
            format!("congestion.static_threshold={threshold}"),
            format!("traffic.pattern={pattern}"),
            "traffic.rate=0.8".to_string(),
        ];
        paper_config("", &sets.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let runs = run_all(vec![
        run("butterfly", 50),
        run("butterfly", 250),
        run("uniform", 50),
        run("uniform", 250),
    ]);
    let [b50, b250, u50, u250] = [0, 1, 2, 3].map(|i| runs[i].accepted);
    // Measured: butterfly 0.132 with 50, 0.116 with 250; uniform 0.314 with 50, 0.325 with 250.
    assert!(
        b250 < 0.95 * b50,
        "butterfly: 250 gives {b250}, 50 gives {b50}"
    );
    assert!(u250 >= u50, "uniform: 250 gives {u250}, 50 gives {u50}");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "long simulations: release builds only")]
fn under_bursty_load_tune_latency_is_a_fraction_of_base() {
    let variants = [
        (RECOVERY, BASE),
        (RECOVERY, TUNE),
        (AVOIDANCE, BASE),
        (AVOIDANCE, TUNE),
    ];
    let runs = run_all(
        variants
            .iter()
            .map(|(deadlock, mechanism)| {
                let sets: Vec<&str> = deadlock.iter().copied().chain([*mechanism]).collect();
                paper_config(BURSTY, &sets)
            })
            .collect(),
    );
    let latency = |i: usize| runs[i].latency.mean.unwrap();
    // The paper: recovery Base 2838, Tune 161 cycles (6%); avoidance Base 520, Tune 163 (31%).
    // Measured: 17,293 and 267 (2%); 771 and 275 (36%). Half of Base's leaves a wide margin
    // and still asks for a large gain.
    for (name, base, tune) in [("recovery", 0, 1), ("avoidance", 2, 3)] {
        assert!(
            latency(tune) < 0.5 * latency(base),
            "{name}: Tune {} vs Base {} cycles",
            latency(tune),
            latency(base)
        );
    }
}

#[test]
fn paper_configurations_are_valid() {
    // Cheap enough for debug builds: the files the experiments and the tests above use parse.
    for sets in [RECOVERY, AVOIDANCE] {
        let cfg = paper_config(BURSTY, sets);
        assert_eq!(cfg.node_count(), 256);
        assert!(cfg.nic.source_queue_packets.is_some());
    }
    let cfg = config(NETWORK);
    assert_eq!((cfg.router.vcs, cfg.traffic.packet_flits), (3, 16));
}
