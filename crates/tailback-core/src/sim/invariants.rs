//! The invariant checker (`sim.check_invariants`): after every cycle it verifies flit and credit
//! conservation per VC on every injection channel, flit conservation over the whole network,
//! the fabric's own bookkeeping ([`Fabric::check`]: conservation on every switch output VC,
//! ownership, scheduling), and the mechanism's own state against the packets in flight
//! (NIFDY's outstanding packets against the packets and acks on their way). A violation is an engine bug, so it panics with a description. (Buffer overflow,
//! delivery to the wrong node, out-of-order or missing flits and double delivery are checked
//! on every run, not only here.)

use super::Simulation;
use crate::fabric::{Fabric, InFlight};
use crate::hooks::{CongestionControl, Inspection};
use crate::ids::NodeId;

pub(super) fn check<C: CongestionControl, F: Fabric>(sim: &Simulation<C, F>) {
    let fabric = &sim.fabric;
    let nics = &sim.nics;
    let slots = nics.slots();
    let v = fabric.vcs();
    let cap = u64::from(fabric.buffer_credits());
    let nodes = nics.nics.len();
    let now = sim.now;

    // In-flight flits and credits per destination VC slot (routers, NICs, recovery lane).
    let total_slots = slots.recovery_slot(nodes);
    let mut in_flight = InFlight {
        flits_to: vec![0; total_slots],
        credits_to: vec![0; total_slots],
        frames_to: vec![0; total_slots],
    };
    // A train on its way carries its whole packet.
    let mut flits_in_flight = 0;
    for arrival in sim.flit_wheel.iter() {
        let flits = if F::trains() {
            u64::from(sim.packets.get(arrival.flit.packet()).flits)
        } else {
            1
        };
        in_flight.flits_to[arrival.to as usize] += flits;
        flits_in_flight += flits;
    }
    for &to in sim.credit_wheel.iter() {
        in_flight.credits_to[to as usize] += 1;
    }
    for batch in sim.credit_batches.iter() {
        in_flight.credits_to[batch.to as usize] += u64::from(batch.count);
    }
    for frame in sim.frames.iter() {
        in_flight.frames_to[frame.to as usize] += 1;
    }

    let fail = |what: String| panic!("invariant violated at cycle {now}: {what}");

    // Credit conservation on every injection channel VC; on lanes paced by priority flow
    // control, the adapter paused exactly when its switch's last frame (after those on their
    // way) was a PAUSE.
    for node in 0..nodes {
        let port = sim.topology.injection_port(NodeId::new(node));
        for vc in 0..v {
            let ivc = nics.terminal_slot(node, vc);
            let nic = slots.nic_vc(node, vc);
            if nics.pauses.paces(vc) {
                let ahead = in_flight.frames_to[nic] % 2 == 1;
                let paused = nics.pauses.clocks.paused(nics.local(node, vc));
                if (paused != ahead) != fabric.xoff_sent(ivc) {
                    fail(format!(
                        "injection VC {vc} of node {node}: paused {paused} with {} frames on \
                         their way disagrees with its switch's last frame",
                        in_flight.frames_to[nic]
                    ));
                }
                continue;
            }
            let total = u64::from(nics.inj_credits[nics.local(node, vc)])
                + in_flight.credits_to[nic]
                + in_flight.flits_to[ivc]
                + u64::from(fabric.input_occupancy(port, vc));
            if total != cap {
                fail(format!(
                    "injection VC {vc} of node {node}: credits and flits add up to {total}, not {cap}"
                ));
            }
        }
    }
    // Flit conservation over the whole network.
    let held_by_nics: u64 = (0..nodes)
        .map(|node| nics.nics[node].rx.len() as u64 + nics.train_blocks_held(node))
        .sum();
    let inside =
        fabric.buffered_flits() + flits_in_flight + held_by_nics - fabric.departing_flits();
    let delivered = sim.stats.delivered_flits;
    let entered = nics.injected_flits + fabric.originated_flits();
    if entered != delivered + inside {
        fail(format!(
            "{} flits injected and {} sent by switches, but {delivered} delivered and {inside} \
             inside the network",
            nics.injected_flits,
            fabric.originated_flits()
        ));
    }

    let nic_held = |slot: usize| u64::from(nics.rx_held[slot]);
    if let Err(what) = fabric.check(now, &in_flight, &nic_held, &sim.packets) {
        fail(what);
    }

    // The mechanism's own state agrees with the packets on their way.
    let state = Inspection {
        packets: &sim.packets,
        nics,
    };
    if let Err(what) = sim.control.check(&state) {
        fail(what);
    }
}
