//! Hooks that act: a mechanism written in this one file — a per-destination rate limiter —
//! sends real control packets through the outbox, holds one flow of a NIC while the others
//! send, and re-enables it from a timer, with no per-cycle polling.
//!
//! The limiter: every `every`-th packet a destination receives from a source, it sends that
//! source a one-flit control packet; the source then holds its flow to that destination for
//! `pause` cycles (a timer ends the hold).

mod common;

use std::collections::BTreeMap;

use common::{checked_config, config, node};
use tailback_core::hooks::{CongestionControl, Context, Flows};
use tailback_core::ids::NodeId;
use tailback_core::packet::{LogicalNetwork, Packet};
use tailback_core::sim::Simulation;
use tailback_core::traffic::Offered;
use tailback_core::view::NetworkView;

/// The per-destination rate limiter, with what the tests look at.
#[derive(Debug, Default)]
struct RateLimiter {
    every: u32,
    pause: u64,
    /// Packets received per (destination, source).
    received: BTreeMap<(u32, u32), u32>,
    /// Held flows: (source, destination) until a cycle.
    held: BTreeMap<(u32, u32), u64>,
    /// Control packets sent and received.
    sent: u64,
    arrived: u64,
    /// (source, destination, cycle) of every packet chosen from the flows.
    chosen: Vec<(u32, u32, u64)>,
    /// (source, destination, start, end) of every hold.
    holds: Vec<(u32, u32, u64, u64)>,
    /// (node, cycle) of every timer that fired.
    timers: Vec<(u32, u64)>,
    /// Calls of `next_packet` (blocked flows must not be asked again and again).
    choices: u64,
}

impl RateLimiter {
    fn new(every: u32, pause: u64) -> RateLimiter {
        RateLimiter {
            every,
            pause,
            ..RateLimiter::default()
        }
    }
}

impl CongestionControl for RateLimiter {
    const FLOWS: bool = true;

    fn next_packet(
        &mut self,
        cx: &mut Context<'_>,
        node: NodeId,
        flows: &mut Flows,
    ) -> Option<Offered> {
        self.choices += 1;
        let src = node.index() as u32;
        let dst = flows.oldest_where(|p| !self.held.contains_key(&(src, p.dst)))?;
        self.chosen.push((src, dst, cx.now));
        flows.pop(dst)
    }

    fn on_delivered(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        let count = self
            .received
            .entry((node.index() as u32, packet.src))
            .or_default();
        *count += 1;
        if (*count).is_multiple_of(self.every) {
            let source = NodeId::new(packet.src as usize);
            cx.outbox.send(
                node,
                source,
                1,
                LogicalNetwork::Request,
                node.index() as u32,
            );
            self.sent += 1;
        }
    }

    fn on_control(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        self.arrived += 1;
        let until = cx.now + self.pause;
        let flow = (node.index() as u32, packet.header);
        self.held.insert(flow, until);
        self.holds.push((flow.0, flow.1, cx.now, until));
        cx.timers.wake(node, until);
    }

    fn on_timer(&mut self, cx: &mut Context<'_>, _view: &NetworkView<'_>, node: NodeId) {
        self.timers.push((node.index() as u32, cx.now));
        let src = node.index() as u32;
        self.held
            .retain(|&(s, _), &mut until| s != src || until > cx.now);
    }
}

/// A 4x4 mesh with one VC class of 4 VCs, 4-flit packets, Bernoulli traffic at `rate`.
fn mesh(rate: f64) -> String {
    format!(
        "[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[router]\nvcs = 4\nvc_buffer_flits = 8\n\
         [traffic]\npattern = \"uniform\"\nrate = {rate}\npacket_flits = 4\n\
         [sim]\nwarmup_cycles = 0\nmeasure_cycles = 4000\ndrain_cycles_max = 4000\n"
    )
}

#[test]
fn control_packets_are_real_traffic_and_every_one_arrives() {
    // Every node sends 60 packets to random destinations; the invariant checker runs every
    // cycle (flit and credit conservation with control packets in the network).
    let text = mesh(0.0).replace(
        "rate = 0",
        "process = \"collective\"\npackets_per_node = 60",
    );
    let cfg = checked_config(&text);
    let mut sim = Simulation::with_control(&cfg, RateLimiter::new(3, 40)).unwrap();
    while sim.progress().delivered_packets < 16 * 60 || sim.control().arrived < sim.control().sent {
        assert!(sim.now() < 50_000, "did not finish: {:?}", sim.progress());
        sim.step();
    }
    let limiter = sim.control();
    assert!(limiter.sent > 200, "only {} control packets", limiter.sent);
    // One control packet per `every` packets of a pair, each one flit, consumed by a NIC.
    let expected: u64 = limiter.received.values().map(|&n| u64::from(n / 3)).sum();
    assert_eq!(limiter.sent, expected);
    assert_eq!(limiter.arrived, limiter.sent);
    let p = sim.progress();
    assert_eq!(p.in_flight_packets, 0);
    assert_eq!(
        p.delivered_flits,
        16 * 60 * 4 + limiter.arrived,
        "the NICs consumed every workload flit and one flit per control packet"
    );
}

#[test]
fn a_held_flow_never_blocks_another_destination_and_a_timer_releases_it() {
    // Node 0 has 12 packets for node 1 and 12 for node 2 (interleaved); every packet node 1
    // receives holds the flow 0 -> 1 for 300 cycles, so packets to 2 must keep going.
    let cfg = config(&mesh(0.0));
    let pause = 300;
    let mut sim = Simulation::with_control(&cfg, RateLimiter::new(1, pause)).unwrap();
    for _ in 0..12 {
        sim.offer(node(0), node(1), 4).unwrap();
        sim.offer(node(0), node(2), 4).unwrap();
    }
    sim.run_until(12 * (pause + 100));
    let limiter = sim.control();
    let chosen = |dst: u32| -> Vec<u64> {
        limiter
            .chosen
            .iter()
            .filter(|&&(s, d, _)| s == 0 && d == dst)
            .map(|&(_, _, t)| t)
            .collect()
    };
    let (to1, to2) = (chosen(1), chosen(2));
    assert_eq!((to1.len(), to2.len()), (12, 12), "every packet was sent");
    let holds_of_1: Vec<(u64, u64)> = limiter
        .holds
        .iter()
        .filter(|&&(s, d, _, _)| (s, d) == (0, 1))
        .map(|&(_, _, start, end)| (start, end))
        .collect();
    assert_eq!(holds_of_1.len(), 12, "node 1 answered every packet");
    let held = |t: u64| holds_of_1.iter().any(|&(start, end)| start <= t && t < end);
    // Nothing leaves on a held flow; the flow to 2 keeps going while 0 -> 1 is held.
    assert!(
        to1.iter().all(|&t| !held(t)),
        "{to1:?} chosen in holds {holds_of_1:?}"
    );
    let while_held = to2.iter().filter(|&&t| held(t)).count();
    assert!(
        while_held >= 6,
        "only {while_held} packets to 2 left while 0 -> 1 was held ({to2:?}, {holds_of_1:?})"
    );
    // Each hold ends by its timer, at the cycle asked for.
    for &(_, _, _, end) in &limiter.holds {
        assert!(
            limiter.timers.contains(&(0, end)),
            "no timer fired at {end}: {:?}",
            limiter.timers
        );
    }
    // A NIC whose flows are all held sleeps: it is asked for a packet when a packet arrives,
    // a timer fires or its source queue empties, not every cycle of a hold.
    assert!(
        limiter.choices <= 2 * 24 + limiter.timers.len() as u64,
        "next_packet was called {} times",
        limiter.choices
    );
}

#[test]
fn runs_with_control_packets_and_timers_are_deterministic() {
    let cfg = config(&mesh(0.3));
    let run = || {
        let mut sim = Simulation::with_control(&cfg, RateLimiter::new(2, 25)).unwrap();
        sim.run_until(3000);
        let limiter = sim.control();
        (
            sim.progress(),
            limiter.sent,
            limiter.chosen.clone(),
            limiter.timers.clone(),
        )
    };
    assert_eq!(run(), run());
}
