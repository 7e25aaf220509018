//! Dragonflies and HyperX on the VC routers: a lone packet's latency is the closed form over
//! the channels of its minimal route (found here from the wiring, not from the routing code),
//! every packet of an all-to-all exchange is delivered (no deadlock, flits conserved), the
//! analysed mean hops are exact, and bad shapes are refused by name.

mod common;

use common::{all_to_all, checked_config, config, drive_until_idle, node, refused};
use tailback_core::hooks::{CongestionControl, Context};
use tailback_core::ids::NodeId;
use tailback_core::packet::Packet;
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;
use tailback_core::topology::{Layout, Link, Topology};

/// Records each delivered packet with its delivery cycle.
#[derive(Default)]
struct Deliveries(Vec<(Packet, u64)>);

impl CongestionControl for Deliveries {
    fn on_delivered(&mut self, cx: &mut Context<'_>, _: NodeId, packet: &Packet) {
        let now = cx.now;
        self.0.push((*packet, now));
    }
}

/// A silent dragonfly with deep buffers and the default router pipeline (four stages of one
/// cycle), local channels 2 cycles long and global ones 7.
fn dragonfly(shape: &str) -> Spec {
    checked_config(&format!(
        "[topology]\nkind = \"dragonfly\"\n{shape}\nlocal_latency = 2\nglobal_latency = 7\n\
         [router]\nvc_buffer_flits = 64\n[traffic]\nrate = 0.0\n"
    ))
}

/// The channels (latency each) of the minimal route from `src` to `dst` on the dragonfly
/// `topology` with one global link per pair of groups, from the wiring: a local channel to the
/// router owning the global link to the destination's group (if not the source's), that link,
/// a local channel to the destination's router (if not the far end).
fn minimal_channels(topology: &Topology, src: usize, dst: usize) -> Vec<u32> {
    let Layout::Dragonfly(shape) = topology.layout() else {
        panic!("a dragonfly")
    };
    let router_of =
        |n: usize| topology.ports()[topology.injection_port(NodeId::new(n)).index()].router;
    let (from, to) = (router_of(src), router_of(dst));
    let (g, gd) = (shape.group(from.index()), shape.group(to.index()));
    let local = shape.local_latency();
    if from == to {
        return vec![];
    }
    if g == gd {
        return vec![local];
    }
    let (owner, far) = topology
        .ports()
        .iter()
        .find_map(|p| match p.output {
            Link::Router(q) => {
                let far = topology.ports()[q.index()].router;
                (shape.group(p.router.index()) == g && shape.group(far.index()) == gd)
                    .then_some((p.router, far))
            }
            _ => None,
        })
        .expect("a global link between every pair of groups");
    let mut channels = Vec::new();
    if owner != from {
        channels.push(local);
    }
    channels.push(shape.global_latency());
    if far != to {
        channels.push(local);
    }
    channels
}

/// Sends one packet through an empty network: its latency and the packet as delivered.
fn lone_packet(cfg: &Spec, src: usize, dst: usize, flits: u32) -> (u64, Packet) {
    let mut sim = Simulation::with_control(cfg, Deliveries::default()).unwrap();
    sim.offer(node(src), node(dst), flits).unwrap();
    drive_until_idle(&mut sim, 10_000);
    let (packet, at) = sim.control().0[0];
    (at - packet.created, packet)
}

#[test]
fn a_lone_packet_takes_the_closed_form_latency_of_its_minimal_route() {
    for shape in [
        "p = 1\na = 3\nh = 1",
        "p = 2\na = 4\nh = 2\narrangement = \"palmtree\"",
    ] {
        let cfg = dragonfly(shape);
        let topology = Topology::from_config(&cfg);
        let nodes = topology.node_count();
        // Injection 1, four router stages per router, ejection 1, serialization.
        for src in [0, nodes / 2, nodes - 1] {
            for dst in 0..nodes {
                let channels = minimal_channels(&topology, src, dst);
                let hops = channels.len() as u64;
                let link: u64 = channels.iter().map(|&c| u64::from(c)).sum();
                for flits in [1, 5] {
                    let (latency, packet) = lone_packet(&cfg, src, dst, flits);
                    let expected = 1 + 4 * (hops + 1) + link + 1 + u64::from(flits) - 1;
                    assert_eq!(
                        (
                            latency,
                            u64::from(packet.hops),
                            u64::from(packet.link_cycles)
                        ),
                        (expected, hops, link),
                        "{flits}-flit packet {src} -> {dst} on {shape}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_packet_of_an_all_to_all_exchange_arrives() {
    let shapes = [
        // Every pair of groups one link; palm tree; drawn.
        "kind = \"dragonfly\"\np = 2\na = 4\nh = 2",
        "kind = \"dragonfly\"\np = 2\na = 4\nh = 2\narrangement = \"palmtree\"",
        "kind = \"dragonfly\"\np = 2\na = 4\nh = 2\narrangement = \"random\"",
        // Fewer groups: parallel global links, chosen per packet.
        "kind = \"dragonfly\"\np = 1\na = 4\nh = 2\ngroups = 4\nglobal_latency = 5",
        "kind = \"hyperx\"\ndims = [3, 4]\nterminals = 2",
        "kind = \"hyperx\"\ndims = [2, 3, 2]\nterminals = 1\ntrunking = [2, 1, 3]",
    ];
    for shape in shapes {
        let cfg = checked_config(&format!(
            "[topology]\n{shape}\n[router]\nvcs = 2\nvc_buffer_flits = 4\n[traffic]\nrate = 0.0\n"
        ));
        let nodes = cfg.node_count() as u64;
        assert_eq!(
            all_to_all(&cfg, 3, 200_000),
            nodes * (nodes - 1) * 3,
            "{shape}"
        );
    }
}

/// Mean router-to-router hops over every ordered pair of distinct nodes, walking each route
/// with each routing draw that matters.
fn walked_mean_hops(cfg: &Spec) -> f64 {
    let topology = Topology::from_config(cfg);
    let routing = tailback_core::routing::Routing::from_config(cfg, &topology);
    let nodes = topology.node_count();
    let mut total = 0.0;
    for src in 0..nodes {
        for dst in (0..nodes).filter(|&d| d != src) {
            routing.draws_between(node(src), node(dst), |draw, p| {
                let mut hops = 0;
                routing.walk(&topology, node(src), node(dst), draw, |port, _| {
                    hops += u32::from(matches!(
                        topology.ports()[port.index()].output,
                        Link::Router(_)
                    ));
                });
                total += p * f64::from(hops);
            });
        }
    }
    total / (nodes * (nodes - 1)) as f64
}

#[test]
fn the_analysed_mean_hops_under_uniform_traffic_are_exact() {
    for shape in [
        "kind = \"dragonfly\"\np = 2\na = 4\nh = 2",
        "kind = \"dragonfly\"\np = 1\na = 4\nh = 2\ngroups = 3",
        "kind = \"hyperx\"\ndims = [4, 4]\nterminals = 2\ntrunking = [1, 2]",
    ] {
        let cfg = config(&format!(
            "[topology]\n{shape}\n[traffic]\npattern = \"uniform\"\n"
        ));
        let load = common::analysed_channel_load(&cfg);
        let walked = walked_mean_hops(&cfg);
        assert!(
            (load.mean_hops - walked).abs() < 1e-9,
            "{shape}: analysed {} against walked {walked}",
            load.mean_hops
        );
    }
    // HyperX 4x4 with two nodes per switch: of the 31 other nodes, 1 is on the same switch,
    // 12 one hop away, 18 two hops: 48/31.
    let cfg = config("[topology]\nkind = \"hyperx\"\ndims = [4, 4]\nterminals = 2\n");
    assert!((walked_mean_hops(&cfg) - 48.0 / 31.0).abs() < 1e-12);
}

#[test]
fn the_random_arrangement_is_drawn_from_the_seed() {
    let wiring = |seed: u64| {
        let cfg = config(&format!(
            "seed = {seed}\n[topology]\nkind = \"dragonfly\"\np = 1\na = 4\nh = 2\n\
             arrangement = \"random\"\n"
        ));
        let topology = Topology::from_config(&cfg);
        topology
            .ports()
            .iter()
            .map(|p| p.output)
            .collect::<Vec<_>>()
    };
    assert_eq!(wiring(1), wiring(1));
    assert_ne!(wiring(1), wiring(2));
}

#[test]
fn shapes_routers_cannot_build_are_refused_by_name() {
    let df = "[topology]\nkind = \"dragonfly\"\n";
    refused(
        &format!("{df}p = 16\na = 40\nh = 16\n"),
        "topology.a",
        &["71 ports", "at most 64"],
    );
    refused(
        &format!("{df}a = 4\nh = 2\ngroups = 10\n"),
        "topology.groups",
        &["at most a·h + 1 = 9"],
    );
    refused(
        &format!("{df}link_latency = 3\n"),
        "topology.link_latency",
        &["local_latency", "global_latency"],
    );
    refused(
        &format!("{df}[router]\nvcs = 1\n"),
        "router.vcs",
        &["needs at least 2", "global hop"],
    );
    refused(
        &format!("{df}[routing]\nalgorithm = \"dor\"\n"),
        "routing.algorithm",
        &["\"min\""],
    );
    let hx = "[topology]\nkind = \"hyperx\"\n";
    refused(
        &format!("{hx}dims = [16, 16, 16, 16, 16]\n"),
        "topology.dims",
        &["ports per switch", "at most 64"],
    );
    refused(
        &format!("{hx}dims = [4, 4]\ntrunking = [2]\n"),
        "topology.trunking",
        &["1 links per dimension for 2 dimensions"],
    );
    refused(
        &format!("{hx}[routing]\ntie_break = \"random\"\n"),
        "routing.tie_break",
        &["has no rings"],
    );
    // Dragonfly keys on another kind are named as such.
    refused(
        "[topology]\nkind = \"torus\"\nglobal_latency = 3\n",
        "topology.global_latency",
        &["only applies to topology.kind = \"dragonfly\""],
    );
}

#[test]
fn credits_cross_a_dragonfly_channel_in_its_own_latency() {
    let cfg = dragonfly("p = 1\na = 2\nh = 1");
    let topology = Topology::from_config(&cfg);
    for (i, port) in topology.ports().iter().enumerate() {
        let delay = topology.credit_delay(tailback_core::ids::PortId::new(i), 1);
        match port.input {
            Link::Router(up) => {
                assert_eq!(delay, topology.ports()[up.index()].output_latency);
            }
            _ => assert_eq!(delay, 1),
        }
    }
    assert_eq!(topology.max_credit_delay(1), 7);
}

#[test]
fn adversarial_shifts_meet_their_closed_form_bounds_under_minimal_routing() {
    // Group shift on a dragonfly with one link per pair of groups: a group's a·p nodes share
    // the one global link to the next group, λ ≤ 1 / (a·p).
    for (p, a, h) in [(2, 4, 2), (1, 3, 2), (4, 8, 4)] {
        let cfg = config(&format!(
            "[topology]\nkind = \"dragonfly\"\np = {p}\na = {a}\nh = {h}\n\
             [traffic]\npattern = \"group_shift\"\n"
        ));
        let load = common::analysed_channel_load(&cfg);
        let bound = 1.0 / f64::from(a * p);
        assert!(
            (load.ideal_throughput - bound).abs() < 1e-12,
            "p = {p}, a = {a}, h = {h}: {} against {bound}",
            load.ideal_throughput
        );
    }
    // HyperX shift: a switch's T nodes share the K links to the next switch in dimension 0,
    // λ ≤ K / T (at most the injection rate).
    for (terminals, trunk) in [(2, 1), (4, 2), (2, 2), (1, 1)] {
        let cfg = config(&format!(
            "[topology]\nkind = \"hyperx\"\ndims = [4, 3]\nterminals = {terminals}\n\
             trunking = [{trunk}, 1]\n[traffic]\npattern = \"hyperx_shift\"\n"
        ));
        let load = common::analysed_channel_load(&cfg);
        let bound = (f64::from(trunk) / f64::from(terminals)).min(1.0);
        assert!(
            (load.ideal_throughput - bound).abs() < 1e-12,
            "T = {terminals}, K = {trunk}: {} against {bound}",
            load.ideal_throughput
        );
    }
}

#[test]
fn the_shift_patterns_send_where_they_say() {
    let (topology, _, pattern) = common::network(&config(
        "[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\n[traffic]\npattern = \"group_shift\"\n",
    ));
    let Layout::Dragonfly(shape) = topology.layout() else {
        panic!("a dragonfly")
    };
    let group = |n: u32| shape.group(n as usize / 2);
    for src in 0..topology.node_count() as u32 {
        let mut total = 0.0;
        pattern.distribution(src, |dst, p| {
            assert_eq!(group(dst), (group(src) + 1) % shape.groups());
            total += p;
        });
        assert!((total - 1.0).abs() < 1e-12);
    }
    let (topology, _, pattern) = common::network(&config(
        "[topology]\nkind = \"hyperx\"\ndims = [3, 2]\nterminals = 2\n[traffic]\npattern = \"hyperx_shift\"\n",
    ));
    let Layout::HyperX(shape) = topology.layout() else {
        panic!("a HyperX")
    };
    for src in 0..topology.node_count() as u32 {
        pattern.distribution(src, |dst, p| {
            let (s, d) = (src as usize / 2, dst as usize / 2);
            assert_eq!(p, 1.0);
            assert_eq!(dst % 2, src % 2, "the same terminal index");
            assert_eq!(shape.grid().coord(d, 0), (shape.grid().coord(s, 0) + 1) % 3);
            assert_eq!(shape.grid().coord(d, 1), shape.grid().coord(s, 1));
        });
    }
    // Each shift only on its own family.
    refused(
        "[topology]\nkind = \"torus\"\n[traffic]\npattern = \"group_shift\"\n",
        "traffic.pattern",
        &["dragonfly"],
    );
    refused(
        "[topology]\nkind = \"dragonfly\"\n[traffic]\npattern = \"hyperx_shift\"\n",
        "traffic.pattern",
        &["HyperX"],
    );
    refused(
        "[topology]\nkind = \"dragonfly\"\np = 3\na = 4\nh = 2\n[traffic]\npattern = \"bit_reverse\"\n",
        "traffic.pattern",
        &["power-of-two"],
    );
}

#[test]
fn check_and_predict_count_each_channel_at_its_own_latency() {
    use tailback_core::analysis::ZeroLoad;
    use tailback_core::predict::{PredictOptions, predict};
    let cfg = config(
        "[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\nlocal_latency = 3\n\
         global_latency = 20\n[traffic]\npattern = \"uniform\"\nrate = 0.01\n",
    );
    let (topology, _, _) = common::network(&cfg);
    let load = common::analysed_channel_load(&cfg);
    // Of the 71 other nodes, 1 is on the same router, 6 one local hop away; the 64 in other
    // groups cross one global link, and a local one at each end unless the link starts or ends
    // on the router itself (probability 1/4 each): 2 · 3/4 local hops.
    let link_cycles = (6.0 * 3.0 + 64.0 * (20.0 + 1.5 * 3.0)) / 71.0;
    assert!((load.mean_link_cycles - link_cycles).abs() < 1e-9);
    let zero = ZeroLoad::new(&cfg, &topology).latency_over(load.mean_hops, link_cycles, 8);
    let p = predict(&cfg, &PredictOptions::new(false)).unwrap();
    assert!(
        (p.latency.zero_load - zero).abs() < 1e-9,
        "predicted {} against {zero}",
        p.latency.zero_load
    );
}

#[test]
fn the_closed_form_bounds_of_a_hyperx_are_exact() {
    for (shape, pattern) in [
        ("dims = [4, 3]\nterminals = 2", "uniform"),
        (
            "dims = [3, 4, 2]\nterminals = 3\ntrunking = [2, 1, 3]",
            "uniform",
        ),
        (
            "dims = [4, 3]\nterminals = 4\ntrunking = [2, 1]",
            "hyperx_shift",
        ),
        (
            "dims = [2, 5]\nterminals = 2\ntrunking = [3, 1]",
            "hyperx_shift",
        ),
        ("dims = [3, 2, 2]\nterminals = 1", "hyperx_shift"),
    ] {
        for (algorithm, include_self) in [("dor", false), ("valiant", false), ("valiant", true)] {
            let self_line = if pattern == "uniform" {
                format!("include_self = {include_self}\n")
            } else {
                String::new()
            };
            let cfg = config(&format!(
                "[topology]\nkind = \"hyperx\"\n{shape}\n[routing]\nalgorithm = \"{algorithm}\"\n\
                 [traffic]\npattern = \"{pattern}\"\n{self_line}"
            ));
            let (topology, routing, destinations) = common::network(&cfg);
            let loads = tailback_core::analysis::port_loads(&topology, &routing, &destinations);
            let busiest = topology
                .ports()
                .iter()
                .zip(loads)
                .filter(|(port, _)| matches!(port.output, Link::Router(_)))
                .map(|(_, load)| load)
                .fold(0.0, f64::max);
            let forms = tailback_core::analysis::closed_forms(
                &topology,
                cfg.traffic.pattern,
                include_self && pattern == "uniform",
            );
            let form = &forms[usize::from(algorithm == "valiant")];
            assert!(
                (form.value - 1.0 / busiest).abs() < 1e-9 * form.value,
                "{shape}, {pattern}, {algorithm} (self {include_self}): {} ({}) against walked {}",
                form.value,
                form.formula,
                1.0 / busiest
            );
        }
    }
}
