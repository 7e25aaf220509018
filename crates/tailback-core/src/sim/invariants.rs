//! The invariant checker (`sim.check_invariants`): after every cycle it verifies flit and credit
//! conservation per VC on every channel, flit conservation over the whole network, packet
//! accounting, output-VC ownership, and NIFDY's outstanding packets against the packets and acks in
//! flight. A violation is an engine bug, so it panics with a
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
    let ports = routers.ports.len();
    let nodes = nics.nics.len();
    let now = sim.now;

    // In-flight flits and credits per destination VC slot (routers, then NICs).
    let total_slots = slots.recovery_slot(nodes);
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
        if routers.ports[port].downstream == UNCONNECTED {
            continue;
        }
        for vc in 0..v {
            let ovc = slots.port_vc(port, vc);
            let far = routers.ports[port].downstream as usize + vc;
            let held = if slots.is_router(far) {
                routers.ivc[far].len as u64
            } else {
                nics.rx_held[far - slots.nic_base as usize] as u64
            };
            let total = routers.ovc[ovc].credits as u64 + credits_to[ovc] + flits_to[far] + held;
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
                + routers.ivc[ivc].len as u64;
            if total != cap {
                fail(format!(
                    "injection VC {vc} of node {node}: credits and flits add up to {total}, not {cap}"
                ));
            }
        }
    }
    // Flit conservation over the whole network.
    let held_by_nics: u64 = nics.nics.iter().map(|n| n.rx.len() as u64).sum();
    let inside = routers.buffered_flits() + flits_in_flight + held_by_nics;
    let delivered = sim.stats.delivered_flits;
    if nics.injected_flits != delivered + inside {
        fail(format!(
            "{} flits injected but {delivered} delivered and {inside} inside the network",
            nics.injected_flits
        ));
    }

    // Output VC ownership: each allocated output VC has exactly one active owner, recorded.
    let mut owners = vec![0u32; slots.nic_base as usize];
    for (ivc, state) in routers.ivc.iter().enumerate() {
        if state.stage == Stage::Active {
            let router = routers.router_of_port(slots.owner(ivc));
            let out = routers.first_port(router) + state.out_port as usize;
            let ovc = slots.port_vc(out, state.out_vc as usize);
            owners[ovc] += 1;
            if routers.ovc[ovc].owner as usize != ivc {
                fail(format!(
                    "output VC slot {ovc} does not record its owner {ivc}"
                ));
            }
        }
        if state.stage == Stage::Idle && state.len > 0 && !routers.front(ivc).is_head() {
            fail(format!(
                "input VC {ivc} is idle but its front flit is not a head"
            ));
        }
    }
    for port in 0..ports {
        for vc in 0..v {
            let free = routers.ports[port].out_free & (1 << vc) != 0;
            let owned = owners[slots.port_vc(port, vc)];
            if (free && owned != 0) || (!free && owned != 1) {
                fail(format!(
                    "output VC {vc} of port {port} is {} but has {owned} owners",
                    if free { "free" } else { "allocated" }
                ));
            }
        }
    }

    // Work masks say exactly which VCs can act, and routers with work are scheduled.
    for port in 0..ports {
        let work = routers.ports[port].work;
        let router = routers.router_of_port(port);
        for vc in 0..v {
            let ivc = slots.port_vc(port, vc);
            let state = routers.ivc[ivc];
            let bit = 1 << vc;
            let expect_route = state.stage == Stage::Idle && state.len > 0;
            let expect_va = state.stage == Stage::VcAlloc;
            let expect_recovery = state.stage == Stage::Recovering && state.len > 0;
            let expect_sa = state.stage == Stage::Active && state.len > 0 && {
                let out = routers.first_port(router) + state.out_port as usize;
                routers.ovc[slots.port_vc(out, state.out_vc as usize)].credits > 0
            };
            let actual = (
                work.needs_route & bit != 0,
                work.va_pending & bit != 0,
                work.sa_ready & bit != 0,
                work.recovering & bit != 0,
            );
            let expected = (expect_route, expect_va, expect_sa, expect_recovery);
            if actual != expected {
                fail(format!(
                    "input VC {vc} of port {port} ({:?}, {} flits): work masks (route, VA, SA, \
                     recovery) are {actual:?}, expected {expected:?}",
                    state.stage, state.len,
                ));
            }
        }
        if (work.needs_route | work.va_pending | work.sa_ready | work.recovering) != 0
            && !routers.is_scheduled(port)
        {
            fail(format!(
                "port {port} has work but its router is not scheduled"
            ));
        }
    }

    // Every buffered flit belongs to a live packet.
    for ivc in 0..routers.ivc.len() {
        for flit in routers.buffer_contents(ivc) {
            if !sim.packets.is_live(flit.packet()) {
                fail(format!(
                    "input VC {ivc} holds a flit of delivered packet {}",
                    flit.packet()
                ));
            }
        }
    }

    // NIFDY's tables agree with the packets and acks actually on their way.
    if let Some(nifdy) = &sim.nifdy
        && let Err(what) = nifdy.check(&sim.packets, nics)
    {
        fail(what);
    }
}
