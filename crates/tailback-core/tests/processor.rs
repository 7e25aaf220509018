//! The processor model: software overheads bound what a node sends and receives, polling
//! delays noticing an arrival, a full arrivals queue backs traffic up into the network, and
//! non-responsive periods (drawn from each node's own stream) slow everyone sending to them.

mod common;

use common::{checked_config, config, drive_until_idle, node};
use tailback_core::hooks::{CongestionControl, Context};
use tailback_core::ids::NodeId;
use tailback_core::packet::Packet;
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;

/// A 4x4 torus with the default router and a processor with these overheads.
fn with_processor(send: u32, receive: u32, poll: u32, extra: &str) -> Spec {
    checked_config(&format!(
        "[topology]\nk = 4\nn = 2\n[processor]\nsend_overhead = {send}\n\
         receive_overhead = {receive}\npoll_overhead = {poll}\n{extra}\n\
         [traffic]\nrate = 0.0\n"
    ))
}

/// Delivery cycles of packets.
#[derive(Default)]
struct Deliveries(Vec<(Packet, u64)>);

impl CongestionControl for Deliveries {
    fn on_delivered(&mut self, cx: &mut Context<'_>, _node: NodeId, packet: &Packet) {
        let now = cx.now;
        self.0.push((*packet, now));
    }
}

#[test]
fn a_lone_packet_pays_the_send_overhead_and_waits_for_the_receivers_poll() {
    // The network alone delivers a 4-flit packet 0 -> 5 (2 hops) in 19 cycles (the zero-load
    // closed form). With a processor the packet reaches the NIC `send` cycles later, and the
    // receiver, polling every `poll` cycles from cycle 0, takes it at the first poll end after
    // the tail arrived.
    let network_only = {
        let cfg = checked_config("[topology]\nk = 4\nn = 2\n[traffic]\nrate = 0.0\n");
        let mut sim = Simulation::with_control(&cfg, Deliveries::default()).unwrap();
        sim.offer(node(0), node(5), 4).unwrap();
        drive_until_idle(&mut sim, 1_000);
        sim.control().0[0].1
    };
    assert_eq!(network_only, 19);
    for (send, poll) in [(46, 22), (10, 7), (1, 1)] {
        let cfg = with_processor(send, 56, poll, "");
        let mut sim = Simulation::with_control(&cfg, Deliveries::default()).unwrap();
        sim.offer(node(0), node(5), 4).unwrap();
        drive_until_idle(&mut sim, 1_000);
        let at = sim.control().0[0].1;
        // The tail is in the arrivals queue at `send + 19`; polls end at multiples of `poll`.
        let ready = u64::from(send) + network_only + 1;
        let expected = ready.div_ceil(u64::from(poll)) * u64::from(poll);
        assert_eq!(at, expected, "send {send}, poll {poll}");
    }
}

#[test]
fn send_and_receive_overheads_bound_a_node_to_a_packet_per_overhead() {
    // Node 0 sends 40 packets to node 5: one every `send` cycles, received one every `receive`
    // cycles; the slower end sets the pace, up to the receiver's 5-cycle poll.
    for (send, receive) in [(46, 10), (10, 60)] {
        let cfg = with_processor(send, receive, 5, "");
        let mut sim = Simulation::with_control(&cfg, Deliveries::default()).unwrap();
        for _ in 0..40 {
            sim.offer(node(0), node(5), 4).unwrap();
        }
        drive_until_idle(&mut sim, 100_000);
        let times: Vec<u64> = sim.control().0.iter().map(|(_, at)| *at).collect();
        let pace = u64::from(send.max(receive));
        for pair in times.windows(2) {
            assert!(pair[1] - pair[0] + 5 >= pace, "{send}/{receive}: {times:?}");
        }
        let span = times[39] - times[0];
        assert!(
            (39 * pace - 5..=39 * pace + 40).contains(&span),
            "{send}/{receive}: {span} cycles for 39 gaps of {pace}"
        );
    }
}

#[test]
fn a_full_arrivals_queue_backs_packets_up_into_the_network() {
    // Fifteen nodes send 6 packets each to node 0, whose processor needs 200 cycles per packet
    // and queues at most one arrival: the rest wait in the network, so packets stay in flight
    // far longer than the network needs, and node 0 receives exactly one per 200 cycles.
    let cfg = with_processor(1, 200, 1, "arrivals_packets = 1");
    let mut sim = Simulation::with_control(&cfg, Deliveries::default()).unwrap();
    for src in 1..16 {
        for _ in 0..6 {
            sim.offer(node(src), node(0), 4).unwrap();
        }
    }
    sim.run_until(3_000);
    let progress = sim.progress();
    assert!(progress.in_flight_packets > 60, "{progress:?}");
    drive_until_idle(&mut sim, 50_000);
    let times: Vec<u64> = sim.control().0.iter().map(|(_, at)| *at).collect();
    assert_eq!(times.len(), 90);
    for pair in times.windows(2) {
        assert!(pair[1] - pair[0] >= 200, "{times:?}");
    }
}

#[test]
fn non_responsive_periods_slow_a_collective_and_repeat_with_the_seed() {
    let run = |rate: f64, seed: u64| {
        let cfg = config(&format!(
            "seed = {seed}\n[topology]\nk = 4\nn = 2\n\
             [processor]\nsend_overhead = 10\nreceive_overhead = 10\npoll_overhead = 5\n\
             nonresponsive_rate = {rate}\nnonresponsive_cycles = 300\n\
             [traffic]\nprocess = \"collective\"\npackets_per_node = 20\n"
        ));
        tailback_core::run(&cfg)
            .unwrap()
            .summary
            .duration_cycles
            .unwrap()
    };
    let responsive = run(0.0, 1);
    let sleepy = run(0.01, 1);
    assert!(sleepy > responsive * 3 / 2, "{sleepy} against {responsive}");
    assert_eq!(run(0.01, 1), sleepy);
    assert_ne!(run(0.01, 2), sleepy);
}
