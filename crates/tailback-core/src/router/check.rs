//! The routers' self-check (`sim.check_invariants`): flit and credit conservation on every
//! output VC, output-VC ownership, work masks that say exactly which VCs can act, and buffered
//! flits of live packets only.

use super::{RouterSet, Stage, UNCONNECTED};
use crate::fabric::{Channels, InFlight};
use crate::packet::PacketSlab;

impl RouterSet {
    /// Checks the routers' bookkeeping; describes the first violation.
    pub(super) fn check_bookkeeping(
        &self,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
        packets: &PacketSlab,
    ) -> Result<(), String> {
        self.check_credits(in_flight, nic_held)?;
        self.check_ownership()?;
        self.check_work()?;
        // Every buffered flit belongs to a live packet.
        for ivc in 0..self.ivc.len() {
            for flit in self.buffer_contents(ivc) {
                if !packets.is_live(flit.packet()) {
                    return Err(format!(
                        "input VC {ivc} holds a flit of delivered packet {}",
                        flit.packet()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Credit conservation on every channel VC.
    fn check_credits(
        &self,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
    ) -> Result<(), String> {
        let channels = Channels {
            slots: self.slots,
            ports: self.ports.len(),
            vcs: self.vcs,
            capacity: self.capacity,
        };
        channels.check_credits(
            |port| {
                let far = self.ports[port].downstream;
                (far != UNCONNECTED).then_some(far as usize)
            },
            |_| false,
            |slot| u64::from(self.ovc[slot].credits),
            |slot| u64::from(self.ivc[slot].len),
            in_flight,
            nic_held,
        )
    }

    /// Each allocated output VC has exactly one active owner, recorded; idle VCs hold heads.
    fn check_ownership(&self) -> Result<(), String> {
        let slots = self.slots;
        let mut owners = vec![0u32; slots.nic_base as usize];
        for (ivc, state) in self.ivc.iter().enumerate() {
            if state.stage == Stage::Active {
                let router = self.router_of_port(slots.owner(ivc));
                let out = self.first_port(router) + state.out_port as usize;
                let ovc = slots.port_vc(out, state.out_vc as usize);
                owners[ovc] += 1;
                if self.ovc[ovc].owner as usize != ivc {
                    return Err(format!(
                        "output VC slot {ovc} does not record its owner {ivc}"
                    ));
                }
            }
            if state.stage == Stage::Idle && state.len > 0 && !self.front(ivc).is_head() {
                return Err(format!(
                    "input VC {ivc} is idle but its front flit is not a head"
                ));
            }
        }
        for port in 0..self.ports.len() {
            for vc in 0..self.vcs {
                let free = self.ports[port].out_free & (1 << vc) != 0;
                let owned = owners[slots.port_vc(port, vc)];
                if (free && owned != 0) || (!free && owned != 1) {
                    return Err(format!(
                        "output VC {vc} of port {port} is {} but has {owned} owners",
                        if free { "free" } else { "allocated" }
                    ));
                }
            }
        }
        Ok(())
    }

    /// Work masks say exactly which VCs can act, and routers with work are scheduled.
    fn check_work(&self) -> Result<(), String> {
        let slots = self.slots;
        for port in 0..self.ports.len() {
            let work = self.ports[port].work;
            let router = self.router_of_port(port);
            for vc in 0..self.vcs {
                let state = self.ivc[slots.port_vc(port, vc)];
                let bit = 1 << vc;
                let expect_sa = state.stage == Stage::Active && state.len > 0 && {
                    let out = self.first_port(router) + state.out_port as usize;
                    self.ovc[slots.port_vc(out, state.out_vc as usize)].credits > 0
                };
                let actual = (
                    work.needs_route & bit != 0,
                    work.va_pending & bit != 0,
                    work.sa_ready & bit != 0,
                    work.recovering & bit != 0,
                );
                let expected = (
                    state.stage == Stage::Idle && state.len > 0,
                    state.stage == Stage::VcAlloc,
                    expect_sa,
                    state.stage == Stage::Recovering && state.len > 0,
                );
                if actual != expected {
                    return Err(format!(
                        "input VC {vc} of port {port} ({:?}, {} flits): work masks (route, VA, \
                         SA, recovery) are {actual:?}, expected {expected:?}",
                        state.stage, state.len,
                    ));
                }
            }
            let scheduled = self.active.contains(router)
                && self.work_ports[router] & (1 << (port - self.first_port(router))) != 0;
            if work.any() && !scheduled {
                return Err(format!(
                    "port {port} has work but its router is not scheduled"
                ));
            }
        }
        Ok(())
    }

    /// The flits currently in the input VC in `slot`, front first.
    fn buffer_contents(&self, slot: usize) -> impl Iterator<Item = crate::flit::Flit> + '_ {
        let cap = self.capacity as usize;
        let state = self.ivc[slot];
        (0..state.len as usize).map(move |i| self.buf[slot * cap + (state.head as usize + i) % cap])
    }
}
