//! Disha-style deadlock recovery (`routing.algorithm = "disha"`); the model and its
//! simplifications are described in `docs/deadlock-recovery.md`.
//!
//! A head waiting for an output VC longer than `routing.disha_timeout` cycles is presumed
//! deadlocked. One token circulates over the routers in index order, `routing.disha_token_hop`
//! cycles per router; a router holding the token that has a presumed-deadlocked head captures
//! it, and that packet leaves through the recovery lane: its flits leave the input VC one per
//! cycle (credits go back upstream as usual) and travel through the routers' deadlock buffers
//! along the DOR path, one router plus one link per hop, to the destination NIC. The token is
//! released when the tail arrives, so only one packet recovers at a time network-wide.

use super::{PortWork, RouterSet, Stage};
use crate::event::FlitArrival;
use crate::fabric::StepContext;
use crate::hooks::{BufferEvent, CongestionControl};
use crate::ids::RouterId;

/// The recovery token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// Circulating: at router `from` at cycle `since`, moving on every `hop` cycles.
    Free { since: u64, from: usize },
    /// Captured by the packet in the recovery lane.
    Held,
}

/// The packet being recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lane {
    /// Input VC slot it drains from.
    slot: usize,
    /// Destination node.
    dst: usize,
    /// Cycles from leaving the VC to reaching the destination NIC.
    delay: u64,
    /// Routers crossed on the way.
    hops: u32,
}

/// State of Disha recovery.
#[derive(Debug, Clone)]
pub(crate) struct Recovery {
    timeout: u32,
    token_hop: u64,
    /// Cycles per hop of the lane (one router plus one link) and to the NIC at the end.
    hop_delay: u64,
    ejection_delay: u64,
    token: Token,
    lane: Option<Lane>,
    /// Packets recovered so far.
    pub(crate) recoveries: u64,
}

impl Recovery {
    pub(crate) fn new(
        timeout: u32,
        token_hop: u32,
        link_latency: u32,
        ejection_latency: u32,
    ) -> Self {
        Recovery {
            timeout,
            token_hop: token_hop as u64,
            hop_delay: link_latency as u64 + 1,
            ejection_delay: ejection_latency as u64 + 1,
            token: Token::Free { since: 0, from: 0 },
            lane: None,
            recoveries: 0,
        }
    }

    /// Longest lane delay over `diameter` hops (for sizing the timing wheel).
    pub(crate) fn max_delay(&self, diameter: u32) -> u64 {
        diameter as u64 * self.hop_delay + self.ejection_delay
    }

    /// The router holding the free token at `now`, if the token is free and circulating.
    fn token_at(&self, now: u64, routers: usize) -> Option<usize> {
        match self.token {
            Token::Free { since, from } if now >= since => {
                Some((from + ((now - since) / self.token_hop) as usize) % routers)
            }
            _ => None,
        }
    }
}

impl RouterSet {
    /// End-of-cycle step of deadlock recovery: the router holding the free token captures a
    /// presumed-deadlocked head, if it has one.
    pub(super) fn recover_deadlocks<C: CongestionControl>(&mut self, cx: &StepContext<'_, C>) {
        let routers = self.first_port.len() - 1;
        let Some(recovery) = &self.recovery else {
            return;
        };
        let Some(router) = recovery.token_at(cx.now, routers) else {
            return;
        };
        let timeout = recovery.timeout;
        let (first, end) = (self.first_port(router), self.first_port(router + 1));
        let slots = self.slots;
        let blocked = (first..end).find_map(|port| {
            crate::bitset::bits32(self.ports[port].work.va_pending).find_map(|vc| {
                let state = &self.ivc[slots.port_vc(port, vc)];
                let waited = state.ready.waited(cx.now);
                (waited >= timeout as i64).then_some((port, vc))
            })
        });
        let Some((port, vc)) = blocked else {
            return;
        };
        let slot = slots.port_vc(port, vc);
        let dst = cx.packets.get(self.front(slot).packet()).dst as usize;
        let hops = cx.routing.distance(RouterId::new(router), dst);
        let recovery = self.recovery.as_mut().expect("checked above");
        recovery.token = Token::Held;
        recovery.recoveries += 1;
        recovery.lane = Some(Lane {
            slot,
            dst,
            delay: hops as u64 * recovery.hop_delay + recovery.ejection_delay,
            hops,
        });
        self.ivc[slot].stage = Stage::Recovering;
        let bit = 1 << vc;
        let work = &mut self.ports[port].work;
        work.va_pending &= !bit;
        work.recovering |= bit;
        self.mark_work(router, port - first);
    }

    /// Sends the front flit of recovering VC `vc` of global port `port` into the recovery lane.
    pub(super) fn send_recovering_flit<C: CongestionControl>(
        &mut self,
        port: usize,
        vc: usize,
        work: &mut PortWork,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slot = self.slots.port_vc(port, vc);
        let capacity = self.capacity;
        let state = &mut self.ivc[slot];
        let flit = self.buf[slot * capacity as usize + state.pop(capacity)];
        let left = state.len;
        let bit = 1u32 << vc;
        if left == 0 {
            work.recovering &= !bit;
        }
        let recovery = self
            .recovery
            .as_mut()
            .expect("recovering VCs exist only under Disha");
        let lane = recovery.lane.expect("a recovering VC has a lane");
        debug_assert_eq!(lane.slot, slot, "only one packet recovers at a time");
        cx.credits.schedule(
            now,
            self.timing.credit,
            self.ports[port].upstream + vc as u32,
        );
        cx.flits.schedule(
            now,
            lane.delay,
            FlitArrival {
                to: self.slots.recovery_slot(lane.dst) as u32,
                flit,
            },
        );
        if flit.is_head() {
            cx.packets.get_mut(flit.packet()).hops += lane.hops;
        }
        if flit.is_tail() {
            self.ivc[slot].stage = Stage::Idle;
            work.recovering &= !bit;
            if left > 0 {
                work.needs_route |= bit;
            }
            recovery.lane = None;
            recovery.token = Token::Free {
                since: now + lane.delay,
                from: (self.ports[port].router as usize + 1) % (self.first_port.len() - 1),
            };
        }
        if C::BUFFER_EVENTS {
            let router = self.ports[port].router as usize;
            let event = BufferEvent {
                router: RouterId::new(router),
                port: (port - self.first_port(router)) as u8,
                vc: vc as u8,
                occupancy: left as u32,
                capacity,
                out_port: None,
            };
            let (mut hook, control) = cx.hook();
            control.on_dequeue(&mut hook, event);
        }
    }
}
