//! Zero-load latency: a lone packet's latency equals the closed form of the router pipeline,
//!
//! `injection + (H + 1) * (routing + vc_alloc + switch_alloc + crossbar) + H * link + ejection
//! + (P - 1)`,
//!
//! for a packet of `P` flits crossing `H` router-to-router channels (the minimal DOR distance),
//! as long as VC buffers are deep enough that credits never stall the packet.

mod common;

use common::{checked_config, drive_until_idle, min_hops, node};
use tailback_core::hooks::{CongestionControl, Context};
use tailback_core::ids::NodeId;
use tailback_core::packet::Packet;
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;
use tailback_core::topology::Topology;

/// Router, channel and NIC delays, in cycles.
#[derive(Debug, Clone, Copy)]
struct Pipeline {
    routing: u32,
    vc_alloc: u32,
    switch_alloc: u32,
    crossbar: u32,
    link: u32,
    injection: u32,
    ejection: u32,
    credit: u32,
}

const PIPELINES: [Pipeline; 3] = [
    // Every router stage free (channels need at least one cycle).
    Pipeline {
        routing: 0,
        vc_alloc: 0,
        switch_alloc: 0,
        crossbar: 0,
        link: 1,
        injection: 1,
        ejection: 1,
        credit: 1,
    },
    // The defaults.
    Pipeline {
        routing: 1,
        vc_alloc: 1,
        switch_alloc: 1,
        crossbar: 1,
        link: 1,
        injection: 1,
        ejection: 1,
        credit: 1,
    },
    // Uneven stages and slow channels.
    Pipeline {
        routing: 2,
        vc_alloc: 0,
        switch_alloc: 1,
        crossbar: 2,
        link: 3,
        injection: 2,
        ejection: 4,
        credit: 2,
    },
];

const PACKET_LENGTHS: [u32; 4] = [1, 2, 9, 20];

impl Pipeline {
    /// The closed-form zero-load latency of a `flits`-flit packet over `hops` channels.
    fn latency(&self, hops: u32, flits: u32) -> u64 {
        let per_router = self.routing + self.vc_alloc + self.switch_alloc + self.crossbar;
        (self.injection + (hops + 1) * per_router + hops * self.link + self.ejection + flits - 1)
            as u64
    }
}

/// A silent network (rate 0) with deep buffers, checked every cycle.
fn zero_load_config(topology: &str, p: &Pipeline, router_extra: &str, buffer: u32) -> Spec {
    checked_config(&format!(
        "[topology]\n{topology}\nlink_latency = {}\n\
         [router]\nvc_buffer_flits = {buffer}\nrouting_delay = {}\nvc_alloc_delay = {}\n\
         switch_alloc_delay = {}\ncrossbar_delay = {}\ncredit_latency = {}\n{router_extra}\n\
         [nic]\ninjection_latency = {}\nejection_latency = {}\n\
         [traffic]\nrate = 0.0\n",
        p.link,
        p.routing,
        p.vc_alloc,
        p.switch_alloc,
        p.crossbar,
        p.credit,
        p.injection,
        p.ejection,
    ))
}

/// Records every delivered packet and the cycle of its delivery.
#[derive(Default)]
struct Deliveries(Vec<(Packet, u64)>);

impl CongestionControl for Deliveries {
    fn on_delivered(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        let now = cx.now;
        assert_eq!(
            node.index(),
            packet.dst as usize,
            "delivered to the wrong node"
        );
        self.0.push((*packet, now));
    }
}

/// Sends one packet through an otherwise empty network; returns its latency and hop count.
fn lone_packet(cfg: &Spec, src: usize, dst: usize, flits: u32) -> (u64, u32) {
    let mut sim = Simulation::with_control(cfg, Deliveries::default()).unwrap();
    sim.offer(node(src), node(dst), flits).unwrap();
    drive_until_idle(&mut sim, 10_000);
    let progress = sim.progress();
    assert_eq!(
        progress.delivered_flits, flits as u64,
        "flits lost or duplicated"
    );
    let delivered = &sim.control().0;
    assert_eq!(delivered.len(), 1, "exactly the one packet is delivered");
    let (packet, at) = delivered[0];
    assert_eq!(
        (packet.src as usize, packet.dst as usize, packet.flits),
        (src, dst, flits)
    );
    (at - packet.created, packet.hops)
}

/// Source/destination pairs covering every hop count from 0 to the largest one reachable from
/// each of a few sources (a corner, a middle node and the last node).
fn pairs_covering_all_distances(cfg: &Spec) -> Vec<(usize, usize, u32)> {
    let topo = Topology::from_config(cfg);
    let shape = topo.cube().expect("a k-ary n-cube");
    let n = shape.nodes();
    let mut pairs = Vec::new();
    for src in [0, n / 2 + 1, n - 1] {
        let farthest = (0..n).map(|d| min_hops(shape, src, d)).max().unwrap();
        for h in 0..=farthest {
            let dst = (0..n).find(|&d| min_hops(shape, src, d) == h).unwrap();
            pairs.push((src, dst, h));
        }
    }
    pairs
}

fn check_closed_form(topology: &str, router_extra: &str, pipelines: &[Pipeline]) {
    for p in pipelines {
        let cfg = zero_load_config(topology, p, router_extra, 64);
        let pairs = pairs_covering_all_distances(&cfg);
        for &(src, dst, h) in &pairs {
            for flits in PACKET_LENGTHS {
                let (latency, hops) = lone_packet(&cfg, src, dst, flits);
                assert_eq!(
                    (latency, hops),
                    (p.latency(h, flits), h),
                    "(latency, hops) of a {flits}-flit packet {src} -> {dst} on {topology} \
                     {router_extra} with {p:?}"
                );
            }
        }
    }
}

#[test]
fn lone_packet_latency_matches_closed_form_on_8x8_torus() {
    check_closed_form("kind = \"torus\"\nk = 8\nn = 2", "", &PIPELINES);
}

#[test]
fn lone_packet_latency_matches_closed_form_on_4x4x4_mesh() {
    check_closed_form("kind = \"mesh\"\nk = 4\nn = 3", "", &PIPELINES);
}

#[test]
fn lone_packet_latency_matches_closed_form_on_odd_radix_5x3_torus() {
    check_closed_form("kind = \"torus\"\ndims = [5, 3]", "", &PIPELINES);
}

#[test]
fn lone_packet_latency_matches_closed_form_on_ring_of_7() {
    check_closed_form("kind = \"torus\"\ndims = [7]", "", &PIPELINES);
}

#[test]
fn lone_packet_latency_is_independent_of_switching_and_allocator() {
    let torus = "kind = \"torus\"\nk = 8\nn = 2";
    check_closed_form(torus, "switching = \"virtual_cut_through\"", &PIPELINES);
    check_closed_form(
        torus,
        "allocator = \"islip\"\nislip_iterations = 2",
        &PIPELINES,
    );
}

#[test]
fn worked_example_node_0_to_36_on_default_torus_takes_50_cycles() {
    let cfg = zero_load_config("k = 8", &PIPELINES[1], "", 64);
    assert_eq!(lone_packet(&cfg, 0, 36, 5), (50, 8));
}

#[test]
fn wormhole_packet_longer_than_vc_buffer_is_delivered_intact() {
    // 20 flits through 4-flit buffers: the packet spans several routers and stalls on credits,
    // so only a lower bound on its latency holds.
    let torus = "kind = \"torus\"\nk = 8\nn = 2";
    for p in &PIPELINES {
        let cfg = zero_load_config(torus, p, "switching = \"wormhole\"", 4);
        for &(src, dst, h) in &pairs_covering_all_distances(&cfg) {
            let (latency, hops) = lone_packet(&cfg, src, dst, 20);
            assert_eq!(hops, h, "{src} -> {dst} with {p:?}");
            assert!(
                latency >= p.latency(h, 20),
                "{src} -> {dst}: {latency} cycles is faster than the unstalled pipeline"
            );
        }
    }
}

#[test]
fn offer_refuses_packets_the_network_cannot_carry() {
    use tailback_core::sim::OfferError;
    let cfg = zero_load_config(
        "k = 4",
        &PIPELINES[1],
        "switching = \"virtual_cut_through\"",
        8,
    );
    let mut sim = Simulation::new(&cfg).unwrap();
    assert!(matches!(
        sim.offer(node(0), node(16), 1),
        Err(OfferError::NoSuchNode { .. })
    ));
    assert!(matches!(
        sim.offer(node(16), node(0), 1),
        Err(OfferError::NoSuchNode { .. })
    ));
    assert_eq!(sim.offer(node(0), node(1), 0), Err(OfferError::EmptyPacket));
    assert_eq!(
        sim.offer(node(0), node(1), 9),
        Err(OfferError::LongerThanBuffer {
            flits: 9,
            buffer: 8
        })
    );
    assert_eq!(
        sim.progress().created_packets,
        0,
        "refused packets are not created"
    );
    sim.offer(node(0), node(1), 8).unwrap();
    assert_eq!(sim.progress().queued_packets, 1);
}

#[test]
fn slow_channels_space_the_flits_by_the_slowest_period_on_the_path() {
    // A channel taking P cycles per flit spaces the flits behind it P cycles apart. With no
    // router stage delays the faster channels after it keep that spacing, so the closed form's
    // `flits - 1` becomes `(flits - 1) * P` for the slowest P on the path (node channels always,
    // router links when the packet leaves its router). With routing and VC-allocation delays
    // the flits behind the head close up while the head is routed at each later router, so
    // the latency lies between the unpaced closed form and that bound.
    let torus = "kind = \"torus\"\nk = 4\nn = 2";
    for (link, nic) in [(2, 1), (1, 3), (3, 2)] {
        for (i, p) in PIPELINES.iter().enumerate() {
            let cfg = zero_load_config(torus, p, "", 64)
                .edited(|c| {
                    c.topology.link_period = link;
                    c.nic.link_period = nic;
                })
                .unwrap();
            for &(src, dst, h) in &pairs_covering_all_distances(&cfg) {
                let slowest = if h > 0 { link.max(nic) } else { nic };
                for flits in PACKET_LENGTHS {
                    let bound = p.latency(h, flits) + u64::from((flits - 1) * (slowest - 1));
                    let (latency, hops) = lone_packet(&cfg, src, dst, flits);
                    let what = format!("{flits} flits {src} -> {dst}, periods {link}/{nic}, {p:?}");
                    assert_eq!(hops, h, "{what}");
                    if i == 0 {
                        assert_eq!(latency, bound, "{what}");
                    } else {
                        assert!(
                            (p.latency(h, flits)..=bound).contains(&latency),
                            "{what}: {latency} cycles, bound {bound}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn store_and_forward_waits_for_the_whole_packet_at_every_router() {
    // Each of the H + 1 routers on the path holds the head until the tail has arrived, P - 1
    // cycles later at one flit per cycle: the wormhole closed form plus (H + 1)(P - 1).
    let torus = "kind = \"torus\"\nk = 8\nn = 2";
    for p in &PIPELINES {
        let cfg = zero_load_config(torus, p, "switching = \"store_and_forward\"", 64);
        for &(src, dst, h) in &pairs_covering_all_distances(&cfg) {
            for flits in PACKET_LENGTHS {
                let expected = p.latency(h, flits) + u64::from((h + 1) * (flits - 1));
                assert_eq!(
                    lone_packet(&cfg, src, dst, flits),
                    (expected, h),
                    "{flits} flits {src} -> {dst}, {p:?}"
                );
            }
        }
    }
}
