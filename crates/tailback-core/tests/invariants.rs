//! Random small networks (every routing algorithm and congestion mechanism) under random
//! workloads, with the engine's per-cycle invariant checker on: no run panics (conservation of
//! flits and credits, VC ownership, work bookkeeping, in-order complete delivery), every
//! measured packet of a run that drains is delivered, and a run is reproducible.

mod common;

use common::comparable;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestCaseError, TestRunner};
use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;

/// Patterns that the network with radices `dims` can host.
fn patterns_for(dims: &[u32]) -> Vec<&'static str> {
    let nodes: u32 = dims.iter().product();
    let mut patterns = vec![
        "uniform",
        "tornado",
        "neighbor",
        "random_permutation",
        "hotspot",
    ];
    if nodes.is_power_of_two() {
        patterns.extend([
            "bit_complement",
            "bit_reverse",
            "bit_rotation",
            "perfect_shuffle",
            "butterfly",
        ]);
    }
    if dims.len().is_multiple_of(2) && dims.iter().all(|&k| k == dims[0]) {
        patterns.push("transpose");
    }
    if nodes.is_multiple_of(2) {
        patterns.push("random_pair");
    }
    patterns
}

/// The `[traffic]` lines of pattern number `pick` (modulo the patterns that fit), with the
/// pattern's own keys drawn from `salt`.
fn traffic_pattern(dims: &[u32], pick: usize, salt: u32) -> String {
    let patterns = patterns_for(dims);
    let pattern = patterns[pick % patterns.len()];
    let nodes: u32 = dims.iter().product();
    match pattern {
        "uniform" => format!(
            "pattern = \"uniform\"\ninclude_self = {}\n",
            salt.is_multiple_of(2)
        ),
        "hotspot" => {
            let hot: Vec<u32> = (0..1 + salt % 3)
                .map(|i| (salt / 3 + 7 * i) % nodes)
                .collect();
            format!(
                "pattern = \"hotspot\"\nhotspot_nodes = {hot:?}\nhotspot_fraction = {}\n",
                (salt % 11) as f64 / 10.0
            )
        }
        other => format!("pattern = \"{other}\"\n"),
    }
}

/// The `[congestion]` lines of a mechanism number, side-band choice and static threshold.
fn congestion_section((mechanism, ideal, threshold): (u32, bool, u32)) -> String {
    let sideband = if ideal { "ideal" } else { "dimensionwise" };
    match mechanism {
        0 => "mechanism = \"none\"\n".into(),
        1 => "mechanism = \"alo\"\n".into(),
        2 => format!("mechanism = \"self_tuned\"\nsideband = \"{sideband}\"\n"),
        _ => format!(
            "mechanism = \"self_tuned\"\nsideband = \"{sideband}\"\nstatic_threshold = {threshold}\n"
        ),
    }
}

/// The TOML text of a random small, valid configuration.
fn config_text() -> impl Strategy<Value = String> {
    let shape = (any::<bool>(), prop::collection::vec(2u32..=6, 1..=3));
    let router = (
        (0u32..=3, 1u32..=8, any::<bool>(), 0u32..=3),
        [0u32..=2, 0u32..=2, 0u32..=2, 0u32..=2],
        (1u32..=3, 1u32..=3),
    );
    let routing = (0u32..=2, any::<bool>(), 0u32..=2, 1u32..=16);
    let congestion = (0u32..=3, any::<bool>(), 0u32..=40);
    let nic = prop_oneof![Just(1.0), (0.0f64..0.8).prop_map(|x| 1.0 - x)];
    let traffic = (
        any::<usize>(),
        any::<u32>(),
        1u32..=10,
        any::<bool>(),
        0.0f64..=1.0,
        0.0f64..=1.0,
    );
    let seed = 0u64..=i64::MAX as u64;
    (shape, router, routing, congestion, nic, traffic, seed).prop_map(
        |((torus, dims), router, routing, congestion, ejection_rate, traffic, seed)| {
            let ((extra_vcs, buffer, cut_through, allocator), delays, (link, credit)) = router;
            let (scheme, balanced, algorithm, timeout) = routing;
            let (pick, salt, packet, periodic, rate, jitter) = traffic;
            let n = dims.len() as u32;
            // Mesh: no datelines, one class. Torus: the wrap scheme (two classes) or one
            // dateline per ring (one class more per dimension crossed). Duato adds adaptive
            // VCs to the escape classes; Disha needs one VC.
            let datelines = torus && scheme == 2;
            let classes = if !torus { 1 } else if datelines { 1 + n } else { 2 };
            let (algorithm, needed) = match algorithm {
                0 => ("algorithm = \"dor\"\n".to_string(), classes),
                1 => ("algorithm = \"duato\"\n".to_string(), classes + 1),
                _ => (format!("algorithm = \"disha\"\ndisha_timeout = {timeout}\n"), 1),
            };
            let vcs = (needed + extra_vcs).min(needed.max(4));
            // Virtual cut-through needs whole packets to fit in a buffer.
            let packet = if cut_through { 1 + (packet - 1) % buffer } else { packet };
            let allocator = match allocator {
                0 | 1 => "allocator = \"separable\"".to_string(),
                iterations => format!("allocator = \"islip\"\nislip_iterations = {}", iterations - 1),
            };
            format!(
                "seed = {seed}\n\
                 [topology]\nkind = \"{}\"\ndims = {dims:?}\nlink_latency = {link}\n\
                 [router]\nvcs = {vcs}\nvc_buffer_flits = {buffer}\nswitching = \"{}\"\n{allocator}\n\
                 routing_delay = {}\nvc_alloc_delay = {}\nswitch_alloc_delay = {}\n\
                 crossbar_delay = {}\ncredit_latency = {credit}\n\
                 [routing]\ntie_break = \"{}\"\n{}{algorithm}\
                 [congestion]\n{}\
                 [nic]\nejection_rate = {ejection_rate}\n\
                 [traffic]\n{}{}rate = {rate}\npacket_flits = {packet}\n{}\
                 [sim]\nwarmup_cycles = 100\nmeasure_cycles = 400\ndrain_cycles_max = 3000\n\
                 check_invariants = true\n",
                if torus { "torus" } else { "mesh" },
                if cut_through { "virtual_cut_through" } else { "wormhole" },
                delays[0],
                delays[1],
                delays[2],
                delays[3],
                if balanced { "balanced" } else { "positive" },
                if datelines { "datelines = [0]\n" } else { "" },
                congestion_section(congestion),
                traffic_pattern(&dims, pick, salt),
                if salt % 5 == 0 { "self_packets = \"skip\"\n" } else { "" },
                if periodic {
                    format!("process = \"periodic\"\njitter = {jitter}\n")
                } else {
                    String::new()
                },
            )
        },
    )
}

#[test]
fn generator_produces_mostly_valid_configs() {
    let mut runner = TestRunner::deterministic();
    let strategy = config_text();
    let samples = 500;
    let mut invalid = Vec::new();
    for _ in 0..samples {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        if let Err(e) = Spec::from_toml_str(&text, "<generated>") {
            invalid.push(format!("{e}\n{text}"));
        }
    }
    // The generator is built to respect every validation rule; allow a few rejects in case a
    // rule is stricter than it knows, but not enough to starve the property test below.
    assert!(
        invalid.len() * 20 <= samples,
        "{} of {samples} invalid, e.g. {}",
        invalid.len(),
        invalid[0]
    );
}

/// The summary, latency CDF and per-node throughput of a report agree with each other.
fn check_report_consistency(cfg: &Spec, report: &RunReport) -> Result<(), TestCaseError> {
    let s = &report.summary;
    prop_assert_eq!(s.saturated, s.saturation_reason.is_some());
    let drain_cap_hit = s
        .saturation_reason
        .as_deref()
        .is_some_and(|reason| reason.starts_with("did not drain"));
    // Only hitting the drain cap leaves measured packets undelivered.
    if drain_cap_hit {
        prop_assert!(s.packets_delivered < s.packets_measured);
    } else {
        prop_assert_eq!(s.packets_delivered, s.packets_measured);
    }
    prop_assert!(s.cycles >= cfg.sim.warmup_cycles + cfg.sim.measure_cycles);
    let delivered = s.packets_delivered > 0;
    for present in [
        s.latency.mean.is_some(),
        s.latency.p50.is_some(),
        s.network_latency.mean.is_some(),
        s.source_queue_latency.mean.is_some(),
        s.hops.mean.is_some(),
        !report.latency_cdf.is_empty(),
    ] {
        prop_assert_eq!(present, delivered);
    }
    if delivered {
        let (mean, network, queue) = (
            s.latency.mean.unwrap(),
            s.network_latency.mean.unwrap(),
            s.source_queue_latency.mean.unwrap(),
        );
        // Creation to delivery = creation to injection + injection to delivery, packet by packet.
        prop_assert!((mean - (network + queue)).abs() <= 1e-9 * mean.max(1.0));
        let (p50, p99, max) = (
            s.latency.p50.unwrap(),
            s.latency.p99.unwrap(),
            s.latency.max.unwrap(),
        );
        prop_assert!(p50 <= p99 && p99 <= max && mean <= max as f64);
        let cdf = &report.latency_cdf;
        prop_assert!(cdf.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        prop_assert_eq!(cdf.last().unwrap().1, 1.0);
    }
    // Per-node throughput is consistent with its mean and spread.
    let per_node = &report.accepted_per_node;
    prop_assert_eq!(per_node.len(), cfg.node_count());
    let mean = per_node.iter().sum::<f64>() / per_node.len() as f64;
    prop_assert!((mean - s.accepted).abs() <= 1e-9);
    prop_assert_eq!(
        per_node.iter().copied().fold(f64::INFINITY, f64::min),
        s.accepted_per_node.min
    );
    prop_assert_eq!(
        per_node.iter().copied().fold(0.0, f64::max),
        s.accepted_per_node.max
    );
    prop_assert!(s.offered_per_node.min <= s.offered && s.offered <= s.offered_per_node.max);
    // A node consumes at most its ejection rate (the token bucket holds one flit's worth).
    let window = cfg.sim.measure_cycles as f64;
    prop_assert!(s.accepted_per_node.max <= cfg.nic.ejection_rate + 1.0 / window + 1e-9);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_small_networks_keep_invariants_deliver_and_repeat(text in config_text()) {
        let cfg = Spec::from_toml_str(&text, "<generated>");
        prop_assume!(cfg.is_ok());
        let cfg = cfg.unwrap();
        // Runs with check_invariants: a violated invariant panics, failing the case.
        let first = tailback_core::run(&cfg).unwrap();
        check_report_consistency(&cfg, &first)?;
        let second = tailback_core::run(&cfg).unwrap();
        prop_assert_eq!(comparable(&second.summary), comparable(&first.summary));
        prop_assert_eq!(&second.latency_cdf, &first.latency_cdf);
        prop_assert_eq!(&second.accepted_per_node, &first.accepted_per_node);
    }
}
