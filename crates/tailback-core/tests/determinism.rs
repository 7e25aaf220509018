//! Reproducibility: a run is a function of its config and seed; the offered traffic is a
//! function of the seed and the traffic settings only.

mod common;

use common::{checked_config, comparable};
use tailback_core::config::{AllocatorKind, Config, Switching, TieBreak};
use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;

/// A small torus under moderate or heavy load (`extra` adds or overrides sections).
fn base_text(rate: f64, extra: &str) -> String {
    format!(
        "[topology]\nk = 4\nn = 2\n\
         [traffic]\nrate = {rate}\npacket_flits = 4\n{extra}\n\
         [sim]\nwarmup_cycles = 300\nmeasure_cycles = 1000\ndrain_cycles_max = 2000\n"
    )
}

fn with_seed(text: &str, seed: u64) -> Spec {
    checked_config(&format!("seed = {seed}\n{text}"))
}

fn run(cfg: &Spec) -> RunReport {
    tailback_core::run(cfg).unwrap()
}

fn assert_same_reports(a: &RunReport, b: &RunReport, what: &str) {
    assert_eq!(
        comparable(&a.summary),
        comparable(&b.summary),
        "{what}: summaries differ"
    );
    assert_eq!(a.latency_cdf, b.latency_cdf, "{what}: latency CDFs differ");
    assert_eq!(
        a.accepted_per_node, b.accepted_per_node,
        "{what}: per-node throughput differs"
    );
}

const TRAFFIC_VARIANTS: [&str; 3] = [
    "pattern = \"uniform\"",
    "pattern = \"random_permutation\"\nprocess = \"periodic\"\njitter = 0.5",
    "pattern = \"hotspot\"\nhotspot_nodes = [5]\nhotspot_fraction = 0.3",
];

#[test]
fn same_config_and_seed_give_identical_reports() {
    for traffic in TRAFFIC_VARIANTS {
        // Below and beyond saturation (the latter exercises the drain cap).
        for rate in [0.3, 0.9] {
            let cfg = with_seed(&base_text(rate, traffic), 7);
            let first = run(&cfg);
            assert!(first.summary.packets_delivered > 0);
            assert_same_reports(&first, &run(&cfg), &format!("{traffic} at {rate}"));
        }
    }
}

#[test]
fn invariant_checking_does_not_change_results() {
    for traffic in TRAFFIC_VARIANTS {
        let checked = with_seed(&base_text(0.5, traffic), 3);
        let unchecked = checked.edited(|c| c.sim.check_invariants = false).unwrap();
        assert_same_reports(&run(&checked), &run(&unchecked), traffic);
    }
}

#[test]
fn different_seeds_give_different_results() {
    for traffic in TRAFFIC_VARIANTS {
        let text = base_text(0.3, traffic);
        let (a, b) = (run(&with_seed(&text, 1)), run(&with_seed(&text, 2)));
        assert_ne!(comparable(&a.summary), comparable(&b.summary), "{traffic}");
        assert_ne!(a.accepted_per_node, b.accepted_per_node, "{traffic}");
        assert_ne!(a.latency_cdf, b.latency_cdf, "{traffic}");
    }
}

/// A change to the network only (router, routing, channels, NIC ejection).
type NetworkChange = fn(&mut Config);

const NETWORK_CHANGES: [(&str, NetworkChange); 8] = [
    ("none", |_| {}),
    ("2 VCs", |c| c.router.vcs = 2),
    ("8 VCs of 2 flits", |c| {
        c.router.vcs = 8;
        c.router.vc_buffer_flits = 2;
    }),
    ("virtual cut-through, 16-flit buffers", |c| {
        c.router.vc_buffer_flits = 16;
        c.router.switching = Switching::VirtualCutThrough;
    }),
    ("iSLIP x3", |c| {
        c.router.allocator = AllocatorKind::Islip;
        c.router.islip_iterations = Some(3);
    }),
    ("slow pipeline and channels", |c| {
        c.router.routing_delay = 0;
        c.router.vc_alloc_delay = 2;
        c.router.credit_latency = 4;
        c.topology.link_latency = 3;
    }),
    ("datelines, positive ties", |c| {
        c.routing.datelines = Some(vec![vec![0, 2]; 2]);
        c.routing.tie_break = Some(TieBreak::Positive);
    }),
    ("half-rate ejection", |c| c.nic.ejection_rate = 0.5),
];

#[test]
fn network_parameters_do_not_change_offered_traffic() {
    // Per network change: whether it changed the mean latency under some traffic, which shows
    // the variants are really different networks (under a permutation some are not: delivery
    // times are set by a saturated bottleneck channel, whatever the buffers or allocator).
    let mut changed_latency = [false; NETWORK_CHANGES.len()];
    for traffic in TRAFFIC_VARIANTS {
        // Heavy enough that the networks differ in what they deliver.
        let base = with_seed(&base_text(0.7, traffic), 11);
        let reports: Vec<RunReport> = NETWORK_CHANGES
            .iter()
            .map(|(name, change)| {
                let cfg = base
                    .edited(change)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                run(&cfg)
            })
            .collect();
        let reference = &reports[0].summary;
        for (i, ((name, _), report)) in NETWORK_CHANGES.iter().zip(&reports).enumerate() {
            let s = &report.summary;
            let case = format!("{traffic} with {name}");
            assert_eq!(s.offered, reference.offered, "{case}");
            assert_eq!(s.offered_per_node, reference.offered_per_node, "{case}");
            assert_eq!(s.packets_measured, reference.packets_measured, "{case}");
            changed_latency[i] |= s.latency.mean != reference.latency.mean;
        }
    }
    for ((name, _), changed) in NETWORK_CHANGES.iter().zip(changed_latency).skip(1) {
        assert!(
            changed,
            "{name} changed no latency: not a different network?"
        );
    }
}

/// Routing algorithms and congestion mechanisms (sections added to a heavy uniform load).
const MECHANISMS: [(&str, &str); 7] = [
    ("none", ""),
    ("duato", "[routing]\nalgorithm = \"duato\"\n"),
    (
        "disha",
        "[routing]\nalgorithm = \"disha\"\ndisha_timeout = 4\n",
    ),
    ("alo", "[congestion]\nmechanism = \"alo\"\n"),
    ("self-tuned", "[congestion]\nmechanism = \"self_tuned\"\n"),
    (
        "self-tuned, ideal side-band, last snapshot",
        "[congestion]\nmechanism = \"self_tuned\"\nsideband = \"ideal\"\nestimate = \"last\"\n",
    ),
    (
        "static threshold",
        "[congestion]\nmechanism = \"self_tuned\"\nstatic_threshold = 4\n",
    ),
];

#[test]
fn every_mechanism_is_deterministic_and_sees_the_same_offered_traffic() {
    let reports: Vec<RunReport> = MECHANISMS
        .iter()
        .map(|(name, sections)| {
            let cfg = with_seed(
                &base_text(0.9, &format!("pattern = \"uniform\"\n{sections}")),
                5,
            );
            let first = run(&cfg);
            assert_same_reports(&first, &run(&cfg), name);
            first
        })
        .collect();
    let reference = &reports[0].summary;
    for ((name, _), report) in MECHANISMS.iter().zip(&reports).skip(1) {
        let s = &report.summary;
        assert_eq!(s.offered, reference.offered, "{name}");
        assert_eq!(s.offered_per_node, reference.offered_per_node, "{name}");
        assert_eq!(s.packets_measured, reference.packets_measured, "{name}");
        assert_ne!(s.latency.mean, reference.latency.mean, "{name}: no effect?");
    }
}

/// On the buffered fabric, routings that weigh the switches' queues and change lanes hop by
/// hop — UGAL-L on a dragonfly with InfiniBand congestion control marking where packets
/// queue, UGAL-L and DAL on a HyperX, adaptive up ports on a tree — repeat exactly, and see the
/// offered traffic of deterministic routing on the same network.
#[test]
fn adaptive_routing_on_the_buffered_fabric_is_deterministic() {
    let buffered = "[router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 16\n";
    let cases = [
        (
            "kind = \"dragonfly\"\np = 1\na = 3\nh = 1",
            &["min", "ugal_l"][..],
            "vcs = 3\n[fabric]\nkind = \"buffered\"\nlink = \"qdr\"\n[nic]\nqueues = \"per_destination\"\n\
             [congestion]\nmechanism = \"ib_cc\"\n",
        ),
        (
            "kind = \"hyperx\"\ndims = [3, 3]\nterminals = 1",
            &["dor", "ugal_l", "dal"],
            "vcs = 4\n[fabric]\nkind = \"buffered\"\n",
        ),
        (
            "kind = \"kary_ntree\"\nk = 2\nn = 3",
            &["d_mod_k", "adaptive_up"],
            "vcs = 2\n[fabric]\nkind = \"buffered\"\n",
        ),
    ];
    for (topology, algorithms, rest) in cases {
        let reports: Vec<RunReport> = algorithms
            .iter()
            .map(|algorithm| {
                let cfg = with_seed(
                    &format!(
                        "[topology]\n{topology}\n[routing]\nalgorithm = \"{algorithm}\"\n\
                         {buffered}{rest}[traffic]\nrate = 0.7\npacket_flits = 4\n\
                         [sim]\nwarmup_cycles = 300\nmeasure_cycles = 1000\n\
                         drain_cycles_max = 20000\n"
                    ),
                    11,
                );
                let first = run(&cfg);
                assert!(first.summary.packets_delivered > 0, "{algorithm}");
                assert_same_reports(&first, &run(&cfg), algorithm);
                first
            })
            .collect();
        let fixed = &reports[0].summary;
        for adaptive in reports[1..].iter().map(|r| &r.summary) {
            assert_eq!(fixed.offered, adaptive.offered, "{topology}");
            assert_eq!(
                fixed.packets_measured, adaptive.packets_measured,
                "{topology}"
            );
        }
    }
}
