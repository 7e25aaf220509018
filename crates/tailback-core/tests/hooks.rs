//! The congestion-control hooks fire exactly as documented: once per flit per buffer visited,
//! once per head per router crossed, once per packet injected and delivered; a mechanism's
//! marks travel with the packet; and a mechanism that holds packets back changes when packets
//! enter the network, never what the sources offer.

mod common;

use std::collections::HashMap;

use common::{checked_config, drive_until_idle, node};
use tailback_core::hooks::{BufferEvent, CongestionControl, Context, ForwardEvent};
use tailback_core::ids::NodeId;
use tailback_core::packet::Packet;
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;
use tailback_core::traffic::Offered;
use tailback_core::view::NetworkView;

/// A packet is identified by (source, injection cycle): a NIC starts at most one packet a cycle.
type PacketKey = (u32, u64);

/// The (router, output port) of every forward of a packet.
type Path = Vec<(usize, u8)>;

/// Counts every hook call and cross-checks them against each other.
#[derive(Default)]
struct Recorder {
    enqueues: u64,
    dequeues: u64,
    forwards: u64,
    injected: u64,
    delivered: u64,
    /// Expected totals derived from the delivered packets' hop counts.
    flit_router_visits: u64,
    head_router_visits: u64,
    /// Occupancy of every (router, port, VC) buffer as the events report it.
    occupancy: HashMap<(usize, u8, u8), u32>,
    /// (router, output port) of every forward of each packet in flight.
    paths: HashMap<PacketKey, Path>,
    /// Source, destination, routing draw and forward path of every delivered packet.
    delivered_paths: Vec<(usize, usize, u32, Path)>,
}

impl CongestionControl for Recorder {
    const BUFFER_EVENTS: bool = true;
    const FORWARD_EVENTS: bool = true;

    fn on_injected(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        let now = cx.now;
        assert_eq!((packet.src as usize, packet.injected), (node.index(), now));
        assert!(packet.created <= now && packet.hops == 0 && packet.marks == 0);
        self.injected += 1;
        assert!(self.paths.insert((packet.src, now), Vec::new()).is_none());
    }

    fn on_delivered(&mut self, _cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        assert_eq!(node.index(), packet.dst as usize);
        self.delivered += 1;
        let visits = packet.hops as u64 + 1;
        self.flit_router_visits += packet.flits as u64 * visits;
        self.head_router_visits += visits;
        // The mark set on every forward survives to delivery.
        assert_eq!(packet.marks as u64, visits, "marks lost on the way");
        let path = self
            .paths
            .remove(&(packet.src, packet.injected))
            .expect("injected first");
        self.delivered_paths.push((
            packet.src as usize,
            packet.dst as usize,
            packet.route_draw,
            path,
        ));
    }

    fn on_enqueue(&mut self, _cx: &mut Context<'_>, event: BufferEvent) {
        self.enqueues += 1;
        let held = self
            .occupancy
            .entry((event.router.index(), event.port, event.vc))
            .or_default();
        *held += 1;
        assert_eq!(event.occupancy, *held, "enqueue reports a wrong occupancy");
        assert!(
            event.occupancy <= event.capacity,
            "buffer overflow reported"
        );
    }

    fn on_dequeue(&mut self, _cx: &mut Context<'_>, event: BufferEvent) {
        self.dequeues += 1;
        let held = self
            .occupancy
            .entry((event.router.index(), event.port, event.vc))
            .or_default();
        assert!(*held > 0, "dequeue from an empty buffer");
        *held -= 1;
        assert_eq!(event.occupancy, *held, "dequeue reports a wrong occupancy");
    }

    fn on_forward(&mut self, _cx: &mut Context<'_>, event: ForwardEvent, packet: &mut Packet) {
        self.forwards += 1;
        packet.marks += 1;
        // The head has just taken a credit of the output VC, whose buffer is a VC buffer.
        assert!(
            event.out_credits < event.out_capacity && [4, 20].contains(&event.out_capacity),
            "output VC credits {} of {}",
            event.out_credits,
            event.out_capacity
        );
        self.paths
            .get_mut(&(packet.src, packet.injected))
            .expect("forwarded after injection")
            .push((event.router.index(), event.out_port));
    }
}

fn drained_run(cfg: &Spec, scripted: &[(usize, usize, u32)]) -> Simulation<Recorder> {
    let mut sim = Simulation::with_control(cfg, Recorder::default()).unwrap();
    for &(src, dst, flits) in scripted {
        sim.offer(node(src), node(dst), flits).unwrap();
    }
    sim.run_until(2_000);
    // Sources keep creating packets, but at this load the network empties every few cycles.
    drive_until_idle(&mut sim, 5_000);
    sim
}

fn hook_counts_config(topology: &str, router: &str) -> Spec {
    checked_config(&format!(
        "[topology]\n{topology}\n[router]\n{router}\n\
         [traffic]\nrate = 0.1\npacket_flits = 4\n"
    ))
}

const NETWORKS: [(&str, &str); 2] = [
    (
        "k = 4\nn = 2",
        "switching = \"wormhole\"\nvc_buffer_flits = 4",
    ),
    (
        "kind = \"mesh\"\ndims = [3, 4]",
        "switching = \"virtual_cut_through\"\nvc_buffer_flits = 20\nallocator = \"islip\"",
    ),
];

#[test]
fn hooks_fire_once_per_flit_per_router_visited() {
    for (topology, router) in NETWORKS {
        // Besides the 4-flit workload: a 1-flit packet, one to itself, and one longer than a
        // wormhole buffer.
        let cfg = hook_counts_config(topology, router);
        let sim = drained_run(&cfg, &[(0, 5, 1), (3, 3, 7), (1, 10, 20)]);
        let (rec, progress) = (sim.control(), sim.progress());
        let case = format!("{topology} / {router}");
        assert!(
            rec.delivered > 300,
            "{case}: too little traffic ({})",
            rec.delivered
        );
        assert_eq!(
            rec.injected, progress.created_packets,
            "{case}: on_injected"
        );
        assert_eq!(
            rec.delivered, progress.created_packets,
            "{case}: on_delivered"
        );
        assert_eq!(
            progress.delivered_packets, progress.created_packets,
            "{case}"
        );
        assert_eq!(rec.enqueues, rec.flit_router_visits, "{case}: on_enqueue");
        assert_eq!(rec.dequeues, rec.flit_router_visits, "{case}: on_dequeue");
        assert_eq!(rec.forwards, rec.head_router_visits, "{case}: on_forward");
        assert!(
            rec.occupancy.values().all(|&held| held == 0),
            "{case}: buffers not empty"
        );
        // Router-to-router hops are the forwards minus the final ejection of each packet.
        assert_eq!(
            progress.flit_hops,
            rec.flit_router_visits - progress.delivered_flits
        );
    }
}

#[test]
fn forward_events_follow_the_routing_function() {
    // Besides the deterministic networks: drawn ties on a torus and drawn up ports on a fat
    // tree, where every hop must follow the packet's own draw.
    let drawing = [
        (
            "k = 4\nn = 2\n[routing]\ntie_break = \"random\"",
            NETWORKS[0].1,
        ),
        (
            "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"random_up\"",
            NETWORKS[0].1,
        ),
    ];
    for (topology, router) in NETWORKS.into_iter().chain(drawing) {
        let cfg = hook_counts_config(topology, router);
        let sim = drained_run(&cfg, &[]);
        let topo = sim.topology();
        let mut draws = std::collections::BTreeSet::new();
        for (src, dst, draw, path) in &sim.control().delivered_paths {
            let mut expected = Vec::new();
            sim.routing()
                .walk(topo, node(*src), node(*dst), *draw, |port, _| {
                    let p = topo.ports()[port.index()];
                    expected.push((p.router.index(), p.local));
                });
            assert_eq!(path, &expected, "{topology}: packet {src} -> {dst}");
            draws.insert(*draw);
        }
        let drawn = sim.routing().draws();
        assert_eq!(
            draws.len() > 100,
            drawn,
            "{topology}: draws only where routing draws"
        );
    }
}

/// Lets packets start injection only in even cycles.
#[derive(Default)]
struct EvenCycles {
    odd_injections: u64,
}

impl CongestionControl for EvenCycles {
    fn may_start_injection(
        &mut self,
        cx: &mut Context<'_>,
        _: &NetworkView<'_>,
        _: NodeId,
        _: &Offered,
    ) -> bool {
        let now = cx.now;
        now.is_multiple_of(2)
    }

    fn on_injected(&mut self, cx: &mut Context<'_>, _node: NodeId, _packet: &Packet) {
        let now = cx.now;
        self.odd_injections += now % 2;
    }
}

#[test]
fn throttling_injection_delays_packets_but_not_offered_traffic() {
    let cfg = checked_config(
        "[topology]\nk = 4\nn = 2\n[traffic]\nrate = 0.2\npacket_flits = 4\n\
         [sim]\nwarmup_cycles = 500\nmeasure_cycles = 3000\ndrain_cycles_max = 2000\n",
    );
    let free = Simulation::new(&cfg).unwrap().run().summary;
    let mut sim = Simulation::with_control(&cfg, EvenCycles::default()).unwrap();
    sim.run_until(cfg.sim.warmup_cycles + cfg.sim.measure_cycles);
    assert_eq!(
        sim.control().odd_injections,
        0,
        "a packet started in an odd cycle"
    );
    let throttled = Simulation::with_control(&cfg, EvenCycles::default())
        .unwrap()
        .run()
        .summary;
    assert!(!free.saturated && !throttled.saturated);
    assert_eq!(throttled.offered, free.offered);
    assert_eq!(throttled.offered_per_node, free.offered_per_node);
    assert_eq!(throttled.packets_measured, free.packets_measured);
    let (q_free, q_throttled) = (
        free.source_queue_latency.mean.unwrap(),
        throttled.source_queue_latency.mean.unwrap(),
    );
    // At this load most packets find their NIC idle; about half of them arrive in an odd cycle
    // and wait one more, so the mean grows by roughly half a cycle: require a quarter.
    assert!(
        q_throttled > q_free + 0.25,
        "source-queue latency {q_throttled} with throttling vs {q_free} without"
    );
}

/// Refuses every injection before cycle `open`; records when it was asked and when the packet
/// left.
struct ClosedUntil {
    open: u64,
    asked: Vec<u64>,
    injected: Vec<u64>,
}

impl CongestionControl for ClosedUntil {
    fn may_start_injection(
        &mut self,
        cx: &mut Context<'_>,
        _: &NetworkView<'_>,
        _: NodeId,
        _: &Offered,
    ) -> bool {
        let now = cx.now;
        self.asked.push(now);
        now >= self.open
    }

    fn on_injected(&mut self, cx: &mut Context<'_>, _node: NodeId, _packet: &Packet) {
        let now = cx.now;
        self.injected.push(now);
    }
}

#[test]
fn held_packet_is_offered_to_the_mechanism_every_cycle_until_released() {
    // With and without the invariant checker: without it the engine skips idle cycles, which
    // must never include a cycle in which a held packet waits.
    for check_invariants in [true, false] {
        let cfg = checked_config("[topology]\nk = 4\nn = 2\n[traffic]\nrate = 0.0\n")
            .edited(|c| c.sim.check_invariants = check_invariants)
            .unwrap();
        let mechanism = ClosedUntil {
            open: 40,
            asked: Vec::new(),
            injected: Vec::new(),
        };
        let mut sim = Simulation::with_control(&cfg, mechanism).unwrap();
        sim.run_until(10);
        sim.offer(node(0), node(5), 3).unwrap();
        sim.run_until(200);
        let progress = sim.progress();
        assert_eq!(
            (progress.delivered_packets, progress.in_flight_packets),
            (1, 0)
        );
        let control = sim.control();
        assert_eq!(
            control.asked,
            (10..=40).collect::<Vec<_>>(),
            "checker {check_invariants}"
        );
        assert_eq!(control.injected, vec![40]);
    }
}
