//! The invariant checker (`sim.check_invariants`): after every cycle it verifies flit and credit
//! conservation per VC on every channel, flit conservation over the whole network, packet
//! accounting, and output-VC ownership. A violation is an engine bug, so it panics with a
//! description. (Buffer overflow, delivery to the wrong node, out-of-order or missing flits and
//! double delivery are checked on every run, not only here.)

use super::Simulation;
use crate::hooks::CongestionControl;
use crate::router::{Stage, UNCONNECTED};

pub(super) fn check<C: CongestionControl>(sim: &Simulation<C>) {
    let routers = &sim.routers;
    let nics = &sim.nics;
    let slots = routers.slots;
    let v = routers.vcs;
    let cap = routers.capacity as u64;
    let ports = routers.downstream.len();
    let nodes = nics.queue.len();
    let now = sim.now;

    // In-flight flits and credits per destination VC slot (routers, then NICs).
    let total_slots = slots.nic_vc(nodes, 0);
    let mut flits_to = vec![0u64; total_slots];
    let mut credits_to = vec![0u64; total_slots];
    for arrival in sim.flit_wheel.iter() {
        flits_to[arrival.to as usize] += 1;
    }
    for &to in sim.credit_wheel.iter() {
        credits_to[to as usize] += 1;
    }
    let flits_in_flight = sim.flit_wheel.pending() as u64;

    let fail = |what: String| panic!("invariant violated at cycle {now}: {what}");

    // Credit conservation on every channel VC:
    // upstream credits + flits on the way + downstream occupancy + credits on the way = capacity.
    for port in 0..ports {
        if routers.downstream[port] == UNCONNECTED {
            continue;
        }
        for vc in 0..v {
            let ovc = slots.port_vc(port, vc);
            let far = routers.downstream[port] as usize + vc;
            let held = if slots.is_router(far) {
                routers.buf_len[far] as u64
            } else {
                nics.rx_held[far - slots.nic_base as usize] as u64
            };
            let total = routers.credits[ovc] as u64 + credits_to[ovc] + flits_to[far] + held;
            if total != cap {
                fail(format!(
                    "output VC {vc} of port {port}: credits, in-flight flits, buffered flits and \
                     returning credits add up to {total}, not {cap}"
                ));
            }
        }
    }
    for node in 0..nodes {
        for vc in 0..v {
            let ivc = nics.terminal_slot(node, vc);
            let nic = slots.nic_vc(node, vc);
            let total = nics.inj_credits[nics.local(node, vc)] as u64
                + credits_to[nic]
                + flits_to[ivc]
                + routers.buf_len[ivc] as u64;
            if total != cap {
                fail(format!(
                    "injection VC {vc} of node {node}: credits and flits add up to {total}, not {cap}"
                ));
            }
        }
    }
    // Flit conservation over the whole network.
    let held_by_nics: u64 = nics.rx_held.iter().map(|&h| h as u64).sum();
    let inside = routers.buffered_flits() + flits_in_flight + held_by_nics;
    let delivered = sim.stats.delivered_flits;
    if nics.injected_flits != delivered + inside {
        fail(format!(
            "{} flits injected but {delivered} delivered and {inside} inside the network",
            nics.injected_flits
        ));
    }

    // Output VC ownership: each allocated output VC has exactly one active owner.
    let mut owners = vec![0u32; slots.nic_base as usize];
    for (ivc, state) in routers.ivc.iter().enumerate() {
        if state.stage == Stage::Active {
            let router = routers.router_of_port(slots.owner(ivc));
            let out = routers.first_port(router) + state.out_port as usize;
            owners[slots.port_vc(out, state.out_vc as usize)] += 1;
        }
        if state.stage == Stage::Idle && routers.buf_len[ivc] > 0 && !routers.front(ivc).is_head() {
            fail(format!("input VC {ivc} is idle but its front flit is not a head"));
        }
    }
    for port in 0..ports {
        for vc in 0..v {
            let free = routers.out_free[port] & (1 << vc) != 0;
            let owned = owners[slots.port_vc(port, vc)];
            if (free && owned != 0) || (!free && owned != 1) {
                fail(format!(
                    "output VC {vc} of port {port} is {} but has {owned} owners",
                    if free { "free" } else { "allocated" }
                ));
            }
        }
    }

    // Every buffered flit belongs to a live packet.
    for ivc in 0..routers.buf_len.len() {
        for flit in routers.buffer_contents(ivc) {
            if !sim.packets.is_live(flit.packet()) {
                fail(format!("input VC {ivc} holds a flit of delivered packet {}", flit.packet()));
            }
        }
    }
}
