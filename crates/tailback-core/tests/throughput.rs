//! Throughput against the channel-load bound: below saturation the network accepts what is
//! offered; at full offered load the run is reported saturated and no channel carries more than
//! it can.
//!
//! The channel-load bound `ideal_throughput = 1 / max_load` is the largest rate at which *every*
//! node can inject at once. It bounds the slowest node's accepted rate (if every node got more,
//! the busiest channel would carry more than one flit per cycle), and by symmetry the mean rate
//! under uniform traffic; it does not bound the mean rate under an unfair overload of a
//! permutation, where flows off the busiest channels (e.g. transpose's diagonal nodes, which
//! send to themselves) get far more than `1 / max_load`. For permutations the exact statement is
//! channel capacity: the flows crossing any channel add up to at most one flit per cycle.

mod common;

use std::sync::OnceLock;

use common::{checked_config, config};
use tailback_core::analysis::channel_load;
use tailback_core::routing::Routing;
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;
use tailback_core::topology::Topology;
use tailback_core::traffic::Destinations;

const TOPOLOGIES: [&str; 2] = ["torus", "mesh"];
const PATTERNS: [&str; 3] = ["uniform", "transpose", "tornado"];

fn text(kind: &str, pattern: &str, rate: f64) -> String {
    format!(
        "[topology]\nkind = \"{kind}\"\nk = 8\nn = 2\n\
         [traffic]\npattern = \"{pattern}\"\nrate = {rate}\n\
         [sim]\nwarmup_cycles = 2000\nmeasure_cycles = 5000\ndrain_cycles_max = 5000\n"
    )
}

struct Network {
    topology: Topology,
    routing: Routing,
    pattern: Destinations,
}

impl Network {
    fn new(cfg: &Spec) -> Network {
        let (topology, routing, pattern) = common::network(cfg);
        Network {
            topology,
            routing,
            pattern,
        }
    }

    /// The ideal throughput (flits/node/cycle) the busiest channel allows.
    fn bound(&self) -> f64 {
        channel_load(&self.topology, &self.routing, &self.pattern).ideal_throughput
    }

    /// Flits per cycle each channel carried, for a permutation pattern: the sum of the accepted
    /// rates of the flows routed through it (a flow's rate is its destination's accepted rate).
    fn carried_per_channel(&self, accepted_per_node: &[f64]) -> Vec<f64> {
        let mut carried = vec![0.0; self.topology.ports().len()];
        for src in 0..self.topology.node_count() {
            self.pattern.distribution(src as u32, |dst, p| {
                assert_eq!(p, 1.0, "only permutations have one flow per source");
                let rate = accepted_per_node[dst as usize];
                self.routing.walk(
                    &self.topology,
                    common::node(src),
                    common::node(dst as usize),
                    0,
                    |port, _| {
                        carried[port.index()] += rate;
                    },
                );
            });
        }
        carried
    }
}

/// One full-load run per (topology, pattern), shared by the tests below.
fn full_load_runs() -> &'static [(String, String, RunReport)] {
    static RUNS: OnceLock<Vec<(String, String, RunReport)>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let mut runs = Vec::new();
        for kind in TOPOLOGIES {
            for pattern in PATTERNS {
                let report = tailback_core::run(&config(&text(kind, pattern, 1.0))).unwrap();
                runs.push((kind.to_string(), pattern.to_string(), report));
            }
        }
        runs
    })
}

#[test]
fn below_saturation_accepted_equals_offered() {
    for kind in TOPOLOGIES {
        for pattern in PATTERNS {
            let bound = Network::new(&config(&text(kind, pattern, 1.0))).bound();
            let rate = 0.4 * bound;
            let s = tailback_core::run(&config(&text(kind, pattern, rate)))
                .unwrap()
                .summary;
            let case = format!("{kind} {pattern} at {rate:.3} (bound {bound:.3})");
            assert!(!s.saturated, "{case}: {:?}", s.saturation_reason);
            assert_eq!(s.packets_delivered, s.packets_measured, "{case}");
            // 64 nodes x 5000 cycles give thousands of packets: the offered rate is within a
            // few % of the configured one (Bernoulli noise) ...
            assert!(
                (s.offered - rate).abs() < 0.05 * rate,
                "{case}: offered {}",
                s.offered
            );
            // ... and accepted differs from offered only by the flits in flight at the window
            // edges (tens of cycles of traffic out of 5000): 2% is ample.
            assert!(
                (s.accepted - s.offered).abs() < 0.02 * s.offered,
                "{case}: accepted {} vs offered {}",
                s.accepted,
                s.offered
            );
        }
    }
}

#[test]
fn full_load_runs_are_flagged_saturated() {
    for (kind, pattern, report) in full_load_runs() {
        let s = &report.summary;
        assert!(
            s.saturated,
            "{kind} {pattern}: accepted {} not flagged saturated",
            s.accepted
        );
        assert!(s.saturation_reason.is_some(), "{kind} {pattern}");
        assert!(
            s.packets_delivered < s.packets_measured,
            "{kind} {pattern}: drained at full load"
        );
    }
}

// In the three tests below, accepted rates are counted at destinations during the window, so
// they include flits that crossed a channel just before the window opened and miss some that
// cross just before it closes; in steady state the two nearly cancel (tens of flits out of the
// thousands a 5000-cycle window carries): 1%.

#[test]
fn full_load_slowest_node_stays_within_channel_load_bound() {
    for (kind, pattern, report) in full_load_runs() {
        let bound = Network::new(&config(&text(kind, pattern, 1.0))).bound();
        let slowest = report.summary.accepted_per_node.min;
        assert!(
            slowest <= bound * 1.01,
            "{kind} {pattern}: every node accepted at least {slowest}, above the bound {bound}"
        );
    }
}

#[test]
fn full_load_uniform_accepted_stays_within_channel_load_bound() {
    for (kind, pattern, report) in full_load_runs().iter().filter(|r| r.1 == "uniform") {
        let bound = Network::new(&config(&text(kind, pattern, 1.0))).bound();
        let accepted = report.summary.accepted;
        assert!(
            accepted <= bound * 1.01,
            "{kind} {pattern}: accepted {accepted} exceeds the channel-load bound {bound}"
        );
    }
}

#[test]
fn full_load_permutation_flows_never_exceed_channel_capacity() {
    for (kind, pattern, report) in full_load_runs().iter().filter(|r| r.1 != "uniform") {
        let network = Network::new(&config(&text(kind, pattern, 1.0)));
        let carried = network.carried_per_channel(&report.accepted_per_node);
        let (busiest, load) = carried
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, 0.0),
                |best, (i, c)| if c > best.1 { (i, c) } else { best },
            );
        assert!(
            load <= 1.01,
            "{kind} {pattern}: port {busiest} carried {load} flits/cycle (capacity 1)"
        );
    }
}

#[test]
fn flooded_receiver_accepts_exactly_its_ejection_rate() {
    // Every node sends everything to node 5, whose NIC (like every NIC) consumes at most
    // `ejection_rate` flits per cycle with a token bucket holding one flit's worth: over a window
    // of W cycles it consumes between r*W - 1 and r*W + 1 flits while its buffers stay full.
    const WINDOW: f64 = 4000.0;
    for rate in [0.25, 1.0 / 3.0, 0.4, 0.5, 0.6, 0.8, 0.9] {
        let cfg = checked_config(&format!(
            "[topology]\nk = 4\nn = 2\n[nic]\nejection_rate = {rate}\n\
             [traffic]\npattern = \"hotspot\"\nhotspot_nodes = [5]\nhotspot_fraction = 1.0\n\
             rate = 0.5\n\
             [sim]\nwarmup_cycles = 1000\nmeasure_cycles = {WINDOW}\ndrain_cycles_max = 0\n"
        ));
        let report = tailback_core::run(&cfg).unwrap();
        let hot = report.accepted_per_node[5];
        assert!(
            (hot - rate).abs() <= 1.0 / WINDOW + 1e-9,
            "ejection rate {rate}: the flooded node accepted {hot}"
        );
        let busiest = report.summary.accepted_per_node.max;
        assert!(
            busiest <= rate + 1.0 / WINDOW + 1e-9,
            "ejection rate {rate}: {busiest}"
        );
    }
}

#[test]
fn throughput_configurations_keep_engine_invariants() {
    // The runs above are too long to check every cycle; check the same networks and loads over
    // a 1000-cycle prefix (long enough to fill the network at full load).
    for kind in TOPOLOGIES {
        for pattern in PATTERNS {
            let bound = Network::new(&config(&text(kind, pattern, 1.0))).bound();
            for rate in [0.4 * bound, 1.0] {
                let cfg = checked_config(&text(kind, pattern, rate));
                let mut sim = Simulation::new(&cfg).unwrap();
                sim.run_until(1000);
                assert!(
                    sim.progress().delivered_flits > 0,
                    "{kind} {pattern} at {rate}"
                );
            }
        }
    }
}

#[test]
fn bounded_source_queues_refuse_what_they_cannot_hold() {
    // Twice the uniform bound of an 8x8 torus: unbounded queues grow without limit, bounded
    // ones stay within their size and refuse the rest.
    let base = text("torus", "uniform", 2.0);
    for limit in [1u32, 4] {
        let cfg = checked_config(&format!("{base}[nic]\nsource_queue_packets = {limit}\n"));
        let nodes = cfg.node_count() as u64;
        let mut sim = Simulation::new(&cfg).unwrap();
        for cycle in (500..=12_000).step_by(500) {
            sim.run_until(cycle);
            let queued = sim.progress().queued_packets;
            assert!(
                queued <= nodes * limit as u64,
                "limit {limit}: {queued} queued"
            );
        }
        let report = tailback_core::run(&cfg).unwrap();
        let s = &report.summary;
        // Offered counts every attempt; the network takes at most its capacity, the queues hold
        // a bounded amount, so most of the overload is refused.
        assert!((s.offered - 2.0).abs() < 0.05, "offered {}", s.offered);
        let window_flits = (s.offered * nodes as f64 * 5000.0) as u64;
        let queued_flits = (s.packets_measured + s.packets_refused) * 8;
        assert!(
            queued_flits.abs_diff(window_flits) <= 8 * nodes,
            "{queued_flits} vs {window_flits}"
        );
        assert!(s.packets_refused > s.packets_measured, "{s:?}");
        // Every packet that got in is delivered, and waited only for the packets ahead of it:
        // at most `limit` plus the one being injected, each taking 8 flits / accepted rate on
        // average (measured: 12 and 60 cycles against bounds of 32 and 80).
        assert_eq!(s.packets_delivered, s.packets_measured);
        let waited = s.source_queue_latency.mean.unwrap();
        let bound = (limit + 1) as f64 * 8.0 / s.accepted;
        assert!(
            waited < bound,
            "limit {limit}: waited {waited} (bound {bound})"
        );
    }
    let unbounded = tailback_core::run(&config(&base)).unwrap().summary;
    assert_eq!(unbounded.packets_refused, 0);
}

#[test]
fn slow_channels_cap_throughput_at_one_flit_per_period() {
    // Node channels taking 4 cycles per flit let a node inject (and eject) at most a quarter
    // flit per cycle, however much it is offered (bit complement: every node receives from one
    // source, so ejection never binds first).
    const WINDOW: f64 = 6000.0;
    let cfg = checked_config(&format!(
        "[topology]\nk = 4\nn = 2\n[nic]\nlink_period = 4\n\
         [traffic]\npattern = \"bit_complement\"\nrate = 0.9\n\
         [sim]\nwarmup_cycles = 2000\nmeasure_cycles = {WINDOW}\ndrain_cycles_max = 0\n"
    ));
    let per_node = tailback_core::run(&cfg).unwrap().summary.accepted_per_node;
    assert!(per_node.max <= 0.25 + 2.0 / WINDOW, "{per_node:?}");
    assert!(per_node.min > 0.24, "{per_node:?}");
    // Router links taking 2 cycles per flit halve the channel-load bound of uniform traffic on
    // the 8x8 torus (0.984 flits/node/cycle).
    let uniform = config(&text("torus", "uniform", 1.0));
    let bound = Network::new(&uniform).bound();
    let full = tailback_core::run(&uniform).unwrap().summary.accepted;
    let paced = uniform.edited(|c| c.topology.link_period = 2).unwrap();
    let half = tailback_core::run(&paced).unwrap().summary.accepted;
    assert!(
        half <= bound / 2.0 + 0.01,
        "{half} against a bound of {bound} / 2"
    );
    assert!(half < 0.7 * full, "paced {half} against {full}");
}
