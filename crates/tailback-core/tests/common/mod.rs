//! Helpers shared by the integration tests (each test file uses a subset of them).
#![allow(dead_code)]

use tailback_core::analysis::{ChannelLoad, channel_load};
use tailback_core::config::Config;
use tailback_core::hooks::CongestionControl;
use tailback_core::ids::NodeId;
use tailback_core::routing::Routing;
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;
use tailback_core::stats::RunSummary;
use tailback_core::topology::{CubeShape, Topology};
use tailback_core::traffic::Destinations;

/// Parses and validates a TOML config, panicking with every reported problem.
pub fn config(text: &str) -> Spec {
    Spec::from_toml_str(text, "<test>").unwrap_or_else(|e| panic!("{e}\n--- config ---\n{text}"))
}

/// Like [`config`], with the per-cycle invariant checker switched on.
pub fn checked_config(text: &str) -> Spec {
    config(text)
        .edited(|c| c.sim.check_invariants = true)
        .unwrap()
}

/// Steps `sim` until no packet is in flight or queued, failing after `max_cycles` more cycles.
/// Returns the number of cycles stepped.
pub fn drive_until_idle<C: CongestionControl>(sim: &mut Simulation<C>, max_cycles: u64) -> u64 {
    let start = sim.now();
    loop {
        let p = sim.progress();
        if p.in_flight_packets == 0 && p.queued_packets == 0 {
            return sim.now() - start;
        }
        assert!(
            sim.now() - start < max_cycles,
            "network not idle after {max_cycles} cycles: {p:?}"
        );
        sim.step();
    }
}

/// Offers every node a packet of `flits` flits to every other node at once, runs until the
/// network is empty (at most `max_cycles`) and returns the flits delivered.
pub fn all_to_all(cfg: &Spec, flits: u32, max_cycles: u64) -> u64 {
    let mut sim = Simulation::new(cfg).unwrap();
    let nodes = cfg.node_count();
    for src in 0..nodes {
        for dst in (0..nodes).filter(|&d| d != src) {
            sim.offer(node(src), node(dst), flits).unwrap();
        }
    }
    drive_until_idle(&mut sim, max_cycles);
    sim.progress().delivered_flits
}

/// A summary with the wall-clock fields (the only legitimately varying ones) zeroed.
pub fn comparable(summary: &RunSummary) -> RunSummary {
    RunSummary {
        wall_seconds: 0.0,
        node_cycles_per_second: 0.0,
        ..summary.clone()
    }
}

/// Minimal distance between nodes `a` and `b` along dimension `d`: the ring distance
/// min(|delta|, k - |delta|) on a torus, |delta| on a mesh.
pub fn dim_distance(shape: &CubeShape, a: usize, b: usize, d: usize) -> u32 {
    let (x, y) = (shape.coord(a, d), shape.coord(b, d));
    let delta = x.abs_diff(y);
    if shape.wraps() {
        delta.min(shape.dims()[d] - delta)
    } else {
        delta
    }
}

/// Minimal (dimension-order) hop count between nodes `a` and `b`.
pub fn min_hops(shape: &CubeShape, a: usize, b: usize) -> u32 {
    (0..shape.n()).map(|d| dim_distance(shape, a, b, d)).sum()
}

/// Shorthand for a node id.
pub fn node(i: usize) -> NodeId {
    NodeId::new(i)
}

/// The network, routing function and destination pattern a (valid) config describes.
pub fn network(cfg: &Config) -> (Topology, Routing, Destinations) {
    let topology = Topology::from_config(cfg);
    let routing = Routing::from_config(cfg, &topology);
    let pattern = Destinations::new(&cfg.traffic, topology.addresses(), cfg.seed);
    (topology, routing, pattern)
}

/// The static channel-load analysis of a (valid) config's network and pattern.
pub fn analysed_channel_load(cfg: &Config) -> ChannelLoad {
    let (topology, routing, pattern) = network(cfg);
    channel_load(&topology, &routing, &pattern)
}

/// The config of TOML `text` with the `key=value` assignments applied.
pub fn with_sets(text: &str, sets: &[&str]) -> Spec {
    let mut table = tailback_core::config::parse_table(text, "<test>").unwrap();
    for assignment in sets {
        let (key, value) = tailback_core::config::parse_assignment(assignment).unwrap();
        tailback_core::config::set_path(&mut table, &key, value).unwrap();
    }
    Spec::from_table(&table).unwrap_or_else(|e| panic!("{e}"))
}

/// The problems validation reports for `text`, which it must refuse.
pub fn refusals(text: &str) -> Vec<tailback_core::config::ConfigIssue> {
    match Spec::from_toml_str(text, "<test>") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(tailback_core::config::ConfigError::Invalid(issues)) => issues,
        Err(other) => panic!("not a validation error: {other}"),
    }
}

/// Asserts that validation refuses `text` at `path` with a message naming each of `words`.
pub fn refused(text: &str, path: &str, words: &[&str]) {
    let all = refusals(text);
    let issue = all
        .iter()
        .find(|i| i.path == path)
        .unwrap_or_else(|| panic!("no problem at {path}: {all:#?}"));
    for w in words {
        assert!(issue.message.contains(w), "{issue:?} should mention {w:?}");
    }
}
