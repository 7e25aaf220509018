//! Notifications a switch sends: a mechanism's [`Notice`] for the source of a packet leaving a
//! Port VL becomes a control packet that the switch routes to that source like any packet (its
//! route starts at the switch, as if a node attached there had sent it; on switches without
//! nodes the routing needs no source). It waits, first in first out, in a list of its own at
//! the output its route leaves by (chosen as a packet's at that switch would be), and goes before the input pools' packets there once the
//! switch's latency has passed and the lane downstream has credits for it: the switch's own
//! port into its crossbar, served first. It takes the lane kept for control packets if there is
//! one (served first at every later output too), else the first lane. It never waits in an
//! input pool of the switch that sends it, so it takes no room there and returns no credits
//! upstream; from the next switch on it is an ordinary packet.

use super::step::{Choice, PortWeights};
use super::{BufferedSwitches, NONE, Queue, QueueScheme, Resident};
use crate::fabric::StepContext;
use crate::hooks::{CongestionControl, Notice};
use crate::ids::{NodeId, RouterId};
use crate::packet::{LogicalNetwork, Packet};
use crate::routing::Head;

/// The input VC slot of a packet an output sends that a switch originated
/// ([`Port::stream_from`](super::Port)).
pub(super) const FROM_SWITCH: u32 = NONE - 1;

impl<S: QueueScheme> BufferedSwitches<S> {
    /// Switch `router` sends `notice`: the packet is routed here and waits at its output.
    pub(super) fn originate<C: CongestionControl>(
        &mut self,
        router: usize,
        notice: Notice,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let home = self.home_nodes[router];
        let src = if home == NONE {
            notice.to
        } else {
            NodeId::new(home as usize)
        };
        let head = Head::new(src, notice.to, 0);
        let mut weights = PortWeights {
            switches: self,
            tree_dst: None,
        };
        let route = cx.routing.route(RouterId::new(router), &head, &mut weights);
        let sl = self.priority_lane.unwrap_or(0) as u8;
        let first = self.first_port[router] as usize;
        let candidates = route.adaptive_ports;
        let out = if self.adaptive && candidates != 0 {
            self.least_occupied(first, candidates, route.escape.class, sl, 0)
        } else {
            route.escape.port
        };
        let out_vl = self
            .lanes
            .lane(first + out as usize, route.escape.class, sl);
        let mut packet = Packet::new(
            notice.about.index() as u32,
            notice.to.index() as u32,
            now,
            now,
            notice.blocks,
            false,
            LogicalNetwork::Request,
        );
        (packet.control, packet.header, packet.sl) = (true, notice.bits, sl);
        packet.class = route.escape.class;
        let id = cx.packets.insert(packet);
        let resident = self.residents.insert(Resident {
            packet: id,
            blocks: notice.blocks,
            arrived: now,
            ready: now + self.latency,
            dst: notice.to.index() as u32,
            out,
            out_vl,
            chosen: false,
            queue: NONE,
            next: NONE,
        });
        let o = first + out as usize;
        let list = &mut self.ports[o].notices;
        if list.tail == NONE {
            *list = Queue {
                head: resident,
                tail: resident,
            };
        } else {
            let last = list.tail;
            list.tail = resident;
            self.residents[last as usize].next = resident;
        }
        if self.ports[o].stream == NONE {
            self.active.insert(o);
        }
    }

    /// Idle output `out` starts its first notice if it may, else picks among the input pools'
    /// packets ([`choose`](Self::choose)); what it found otherwise, merged with its notices.
    pub(super) fn choose_or_notice(&mut self, out: usize, now: u64) -> Choice {
        if self.ports[out].notices.head == NONE {
            return self.choose(out, now);
        }
        if self.notice_choice(out, now) == Some(Choice::Started) {
            self.start_notice(out);
            return Choice::Started;
        }
        match self.choose(out, now) {
            Choice::Started => Choice::Started,
            outcome => self.with_notices(out, now, outcome),
        }
    }

    /// Whether idle output `out` may start its first notice now (`Started`), when it may
    /// (`NotYet`), or that it waits for credits or room downstream (`Blocked`); `None` without
    /// notices. A notice waiting for credits records the credits it needs.
    pub(super) fn notice_choice(&self, out: usize, now: u64) -> Option<Choice> {
        let head = self.ports[out].notices.head;
        if head == NONE {
            return None;
        }
        let r = &self.residents[head as usize];
        let downstream = self.ports[out].downstream as usize + r.out_vl as usize;
        let credits = self.slots.port_vc(out, r.out_vl as usize);
        Some(if r.ready > now {
            Choice::NotYet(r.ready)
        } else if self.held_back(credits, r.blocks) || !self.has_room(downstream, r.dst, r.blocks) {
            Choice::Blocked
        } else {
            Choice::Started
        })
    }

    /// Merges what idle output `out` found among the input pools' packets (`outcome`, not a
    /// start) with its notices: it sleeps until the earlier of the two is due, and a notice
    /// blocked on credits is woken by them.
    pub(super) fn with_notices(&self, out: usize, now: u64, outcome: Choice) -> Choice {
        match (self.notice_choice(out, now), outcome) {
            (Some(Choice::NotYet(at)), Choice::NotYet(other)) => Choice::NotYet(at.min(other)),
            (Some(Choice::NotYet(at)), _) => Choice::NotYet(at),
            (Some(Choice::Blocked), _) => {
                let r = &self.residents[self.ports[out].notices.head as usize];
                let wanted = &self.wanted[self.slots.port_vc(out, r.out_vl as usize)];
                wanted.set(wanted.get().min(r.blocks));
                outcome
            }
            _ => outcome,
        }
    }

    /// Output `out` starts its first notice (one [`notice_choice`](Self::notice_choice) found
    /// startable); it reserves room downstream where queues have their own.
    pub(super) fn start_notice(&mut self, out: usize) {
        let port = &mut self.ports[out];
        let head = port.notices.head;
        let r = self.residents[head as usize];
        port.notices.head = r.next;
        if r.next == NONE {
            port.notices.tail = NONE;
        }
        port.stream = head;
        port.stream_from = FROM_SWITCH;
        let downstream = port.downstream as usize + r.out_vl as usize;
        if S::OWN_ROOM && self.slots.is_router(downstream) {
            self.reserved[downstream * self.nodes + r.dst as usize] += r.blocks;
        }
        self.originated_blocks += u64::from(r.blocks);
    }
}
