//! Closed-loop workloads (`traffic.process = "bsp"` and `"cshift"`): nodes send as fast as their
//! processors can; each node's sequence of destinations is the same on every network and
//! network interface; barriers keep phases apart; a cyclic shift ends when its last packet
//! arrives; the metric is the packets delivered in the window.

mod common;

use common::{checked_config, comparable, config};
use tailback_core::hooks::{CongestionControl, Context};
use tailback_core::ids::NodeId;
use tailback_core::packet::{LogicalNetwork, Packet};
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;

const PROCESSOR: &str = "[processor]\nsend_overhead = 6\nreceive_overhead = 8\npoll_overhead = 3\n";

/// A 16-node network (`topology`) with two logical networks running `traffic`.
fn program(topology: &str, traffic: &str, extra: &str) -> String {
    format!(
        "{topology}\n[router]\nvcs = 4\nvc_buffer_flits = 8\nlogical_networks = 2\n\
         [nic]\nsource_queue_packets = 2\n{PROCESSOR}\
         [traffic]\npacket_flits = 8\n{traffic}\n{extra}"
    )
}

/// Every workload packet as its head leaves the NIC: (source, destination, creation cycle).
#[derive(Default)]
struct Injections(Vec<(u32, u32, u64)>);

impl CongestionControl for Injections {
    fn on_injected(&mut self, _cx: &mut Context<'_>, _node: NodeId, packet: &Packet) {
        if packet.network == LogicalNetwork::Request {
            self.0.push((packet.src, packet.dst, packet.created));
        }
    }
}

fn injections(cfg: &Spec, cycles: u64) -> Vec<(u32, u32, u64)> {
    let mut sim = Simulation::with_control(cfg, Injections::default()).unwrap();
    sim.run_until(cycles);
    sim.control().0.clone()
}

/// Each node's destinations in the order it created its packets.
fn destinations_by_source(injected: &[(u32, u32, u64)], nodes: usize) -> Vec<Vec<u32>> {
    let mut by_source = vec![Vec::new(); nodes];
    let mut sorted = injected.to_vec();
    sorted.sort_by_key(|&(src, _, created)| (src, created));
    for (src, dst, _) in sorted {
        by_source[src as usize].push(dst);
    }
    by_source
}

#[test]
fn each_node_offers_the_same_destinations_on_every_network_and_interface() {
    let bsp = "process = \"bsp\"\nphase_packets = [5, 15]\nbarrier_cycles = 10";
    let runs: Vec<Vec<Vec<u32>>> = [
        ("[topology]\nk = 4\nn = 2", ""),
        ("[topology]\nkind = \"mesh\"\nk = 4\nn = 2", ""),
        ("[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2", ""),
        (
            "[topology]\nkind = \"butterfly\"\nk = 4\nn = 2",
            "[congestion]\nmechanism = \"nifdy_buffers_only\"",
        ),
    ]
    .iter()
    .map(|(topology, extra)| {
        let cfg = config(&program(topology, bsp, extra));
        destinations_by_source(&injections(&cfg, 20_000), 16)
    })
    .collect();
    for node in 0..16 {
        let shortest = runs.iter().map(|r| r[node].len()).min().unwrap();
        assert!(shortest > 30, "node {node} sent only {shortest} packets");
        for run in &runs[1..] {
            assert_eq!(
                run[node][..shortest],
                runs[0][node][..shortest],
                "node {node}'s destinations differ"
            );
        }
    }
}

/// The cyclic-shift phase of a packet: (destination - source) mod nodes.
fn shift_phase(src: u32, dst: u32, nodes: u32) -> u32 {
    (dst + nodes - src) % nodes
}

#[test]
fn a_cyclic_shift_delivers_every_packet_and_barriers_keep_its_phases_apart() {
    let topology = "[topology]\nkind = \"mesh\"\nk = 4\nn = 2";
    for barriers in [true, false] {
        let traffic = format!("process = \"cshift\"\nphase_packets = 6\nbarriers = {barriers}");
        let cfg = checked_config(&program(
            topology,
            &traffic,
            "[sim]\ndrain_cycles_max = 100000",
        ));
        let report = tailback_core::run(&cfg).unwrap();
        assert_eq!(report.summary.delivered_packets, 16 * 15 * 6);
        let duration = report.summary.duration_cycles.expect("the shift completes");
        assert_eq!(report.summary.cycles, duration);

        let injected = injections(&cfg, duration);
        assert_eq!(injected.len(), 16 * 15 * 6);
        // Creation span of each phase.
        let mut span = vec![(u64::MAX, 0u64); 16];
        for &(src, dst, created) in &injected {
            let s = &mut span[shift_phase(src, dst, 16) as usize];
            *s = (s.0.min(created), s.1.max(created));
        }
        let overlaps = (1..15).filter(|&p| span[p + 1].0 <= span[p].1).count();
        if barriers {
            assert_eq!(
                overlaps, 0,
                "a phase started before the previous one ended: {span:?}"
            );
        } else {
            assert!(
                overlaps > 0,
                "without barriers nodes drift into later phases"
            );
        }
    }
}

#[test]
fn the_metric_counts_packets_delivered_in_the_window() {
    let topology = "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2";
    let traffic = "process = \"bsp\"\nload = \"light\"";
    let with_window = |warmup: u64| {
        let sim = format!("[sim]\nwarmup_cycles = {warmup}\nmeasure_cycles = 30000");
        tailback_core::run(&config(&program(topology, traffic, &sim)))
            .unwrap()
            .summary
    };
    let whole = with_window(0);
    let later = with_window(10_000);
    assert_eq!(
        whole.cycles, 30_000,
        "bulk-synchronous runs end with the window"
    );
    assert_eq!(later.cycles, 40_000);
    assert!(whole.delivered_packets > 1000);
    // The same workload, the window shifted by 10,000 cycles: the counts differ but stay close.
    let ratio = later.delivered_packets as f64 / whole.delivered_packets as f64;
    assert!((0.8..1.2).contains(&ratio), "ratio {ratio}");
}

#[test]
fn a_nifdy_program_run_is_deterministic() {
    let cfg = config(&program(
        "[topology]\nkind = \"multibutterfly\"\nk = 4\nn = 2",
        "process = \"bsp\"",
        "[congestion]\nmechanism = \"nifdy\"\n[sim]\nwarmup_cycles = 0\nmeasure_cycles = 20000",
    ));
    let a = tailback_core::run(&cfg).unwrap().summary;
    let b = tailback_core::run(&cfg).unwrap().summary;
    assert_eq!(comparable(&a), comparable(&b));
}
