//! The buffered switches' self-check (`sim.check_invariants`): block and credit conservation on
//! every channel VL, packets started only when their blocks can leave back to back, pools that
//! hold exactly their residents' blocks, well-formed queues and ready lists, reservations
//! within each destination's room, CAM lines that count their congested-flow queues, and requests, streams and read ports that say exactly what
//! the queues hold.

use super::cam::Claim;
use super::notices::FROM_SWITCH;
use super::step::Choice;
use super::{BufferedSwitches, NONE, QueueScheme};
use crate::fabric::{Channels, InFlight};
use crate::packet::PacketSlab;

impl<S: QueueScheme> BufferedSwitches<S> {
    /// Checks the switches' bookkeeping; describes the first violation.
    pub(super) fn check_bookkeeping(
        &self,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
        packets: &PacketSlab,
    ) -> Result<(), String> {
        let channels = Channels {
            slots: self.slots,
            ports: self.ports.len(),
            vcs: self.vls,
            capacity: self.capacity,
        };
        channels.check_credits(
            |port| {
                let far = self.ports[port].downstream;
                (far != NONE).then_some(far as usize)
            },
            |slot| !self.counts_credits(slot),
            |slot| u64::from(self.credits[slot]),
            |slot| u64::from(self.pools[slot]),
            in_flight,
            nic_held,
        )?;
        self.check_pauses(in_flight)?;
        if self.early_starts > 0 {
            return Err(format!(
                "{} packets started before all their blocks could arrive in time",
                self.early_starts
            ));
        }
        self.check_queues(packets)?;
        if S::OWN_ROOM {
            self.check_room()?;
        }
        if S::ISOLATION {
            self.check_cams()?;
        } else if self.watched {
            self.check_port_vl_counts()?;
        }
        self.check_outputs()
    }

    /// Under priority flow control each paced sender's state, after the frames on their way to
    /// it, is the last its pool sent: paused exactly when the pool's last frame was a PAUSE
    /// (frames alternate, so an odd number on their way flips it); pools hold at most their
    /// capacity (checked at every arrival).
    fn check_pauses(&self, in_flight: &InFlight) -> Result<(), String> {
        let Some(pfc) = &self.pfc else {
            return Ok(());
        };
        for slot in 0..self.slots.nic_base as usize {
            if !pfc.paces_out(slot) {
                continue;
            }
            let far = self.ports[self.slots.owner(slot)].downstream as usize + self.slots.vc(slot);
            let ahead = in_flight.frames_to[slot] % 2 == 1;
            if (pfc.paused(slot) != ahead) != pfc.xoff_sent(far) {
                return Err(format!(
                    "output VC slot {slot}: paused {}, {} frames on their way, but its pool's \
                     last frame was {}",
                    pfc.paused(slot),
                    in_flight.frames_to[slot],
                    if pfc.xoff_sent(far) {
                        "a PAUSE"
                    } else {
                        "a RESUME or none"
                    }
                ));
            }
        }
        Ok(())
    }

    /// The Port VL counts say what the queues hold: per input pool, output and lane the blocks
    /// of the queued packets not yet started, per Port VL their sum and the pools holding some.
    fn check_port_vl_counts(&self) -> Result<(), String> {
        let mut queued = vec![0u32; self.queued_for.len()];
        let streamed = self.streamed();
        for slot in 0..self.slots.nic_base as usize {
            for queue in 0..self.queues_per_pool {
                let mut at = self.queues[self.queue_index(slot, queue)].head;
                while at != NONE {
                    let r = &self.residents[at as usize];
                    if !streamed[at as usize] {
                        queued[self.queued_index(slot, r.out, r.out_vl)] += r.blocks;
                    }
                    at = r.next;
                }
            }
        }
        if let Some(i) = (0..queued.len()).find(|&i| queued[i] != self.queued_for[i]) {
            return Err(format!(
                "Port VL count {i} (input pool, output, lane): {} blocks counted, {} queued",
                self.queued_for[i], queued[i]
            ));
        }
        let (mut blocks, mut inputs) = (
            vec![0u32; self.credits.len()],
            vec![0u32; self.credits.len()],
        );
        for slot in 0..self.slots.nic_base as usize {
            let port = &self.ports[self.slots.owner(slot)];
            for out in 0..self.max_ports as u8 {
                for lane in 0..self.vls as u8 {
                    let held = queued[self.queued_index(slot, out, lane)];
                    if held > 0 && (self.lanes_change() || lane as usize == self.slots.vc(slot)) {
                        let out_slot = self
                            .slots
                            .port_vc(port.first as usize + out as usize, lane as usize);
                        blocks[out_slot] += held;
                        inputs[out_slot] += 1;
                    }
                }
            }
        }
        for slot in 0..blocks.len() {
            if (blocks[slot], inputs[slot])
                != (self.port_vl_blocks[slot], self.port_vl_inputs[slot])
            {
                return Err(format!(
                    "output VC slot {slot}: {} blocks from {} inputs counted, {} from {} queued",
                    self.port_vl_blocks[slot],
                    self.port_vl_inputs[slot],
                    blocks[slot],
                    inputs[slot]
                ));
            }
        }
        Ok(())
    }

    /// No idle output sleeps while it could start a packet at the end of cycle `now`: whatever
    /// made one eligible woke it (its look leaves the credits it waits for unchanged).
    pub(super) fn check_sleepers(&self, now: u64) -> Result<(), String> {
        for (out, port) in self.ports.iter().enumerate() {
            if port.stream != NONE || now < port.free_at || self.active.contains(out) {
                continue;
            }
            if self.notice_choice(out, now) == Some(Choice::Started) {
                return Err(format!(
                    "output port {out} sleeps at cycle {now} although its notice could start"
                ));
            }
            if port.requested_vls == 0 {
                continue;
            }
            let wanted: Vec<u32> = (0..self.vls)
                .map(|vl| self.wanted[self.slots.port_vc(out, vl)].get())
                .collect();
            let pick = self.candidate(out, now, 0);
            for (vl, &w) in wanted.iter().enumerate() {
                self.wanted[self.slots.port_vc(out, vl)].set(w);
            }
            if let Ok(pick) = pick {
                return Err(format!(
                    "output port {out} sleeps at cycle {now} although the head packet of queue \
                     {} at its local input {} could start on VL {}",
                    pick.queue, pick.local, pick.vl
                ));
            }
        }
        Ok(())
    }

    /// Each CAM line counts exactly the blocks its queue holds; a free line has told upstream
    /// nothing and, unless it is a virtual output queue's, an empty queue; every resident of a
    /// line's queue goes to the line's output.
    fn check_cams(&self) -> Result<(), String> {
        let cams = &self.cams;
        for slot in 0..self.slots.nic_base as usize {
            for l in 0..cams.per_pool {
                let line = &cams.lines[cams.at(slot, l)];
                let normal = l < cams.first_isolating;
                let q = if S::NORMAL_VOQS { l } else { 1 + l };
                let queue = self.queues[self.queue_index(slot, q)];
                let (mut at, mut held) = (queue.head, 0u32);
                while at != NONE {
                    let r = &self.residents[at as usize];
                    // A virtual output queue holds its output's packets; a line's queue those
                    // of its output and lane.
                    let fits = if normal {
                        r.out as usize == l
                    } else {
                        line.claim.exit() == Some((r.out, r.out_vl))
                    };
                    if !fits {
                        return Err(format!(
                            "input VC slot {slot} CFQ {l} ({:?}) holds a packet for output {} \
                             lane {}",
                            line.claim, r.out, r.out_vl
                        ));
                    }
                    held += r.blocks;
                    at = r.next;
                }
                if held != line.blocks {
                    return Err(format!(
                        "input VC slot {slot} CAM line {l} counts {} blocks, its CFQ holds {held}",
                        line.blocks
                    ));
                }
                if line.claim == Claim::Free
                    && (line.told || line.stopping || (held > 0 && !normal))
                {
                    return Err(format!(
                        "input VC slot {slot} CAM line {l} is free but {line:?}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every pool holds exactly the blocks of its queued residents (a packet's, from the arrival
    /// of its head until its last block has left), which belong to live packets; queues are
    /// well linked.
    fn check_queues(&self, packets: &PacketSlab) -> Result<(), String> {
        let slots = self.slots;
        for slot in 0..slots.nic_base as usize {
            let mut held = 0u64;
            for queue in 0..self.queues_per_pool {
                let ends = self.queues[self.queue_index(slot, queue)];
                let (mut at, mut last) = (ends.head, NONE);
                while at != NONE {
                    let r = &self.residents[at as usize];
                    if !packets.is_live(r.packet) {
                        return Err(format!(
                            "input VC slot {slot} queue {queue} holds delivered packet {}",
                            r.packet
                        ));
                    }
                    if r.queue as usize != queue {
                        return Err(format!(
                            "input VC slot {slot} queue {queue}: resident {at} is misplaced \
                             ({r:?})"
                        ));
                    }
                    held += u64::from(r.blocks);
                    (last, at) = (at, r.next);
                }
                if last != ends.tail {
                    return Err(format!(
                        "input VC slot {slot} queue {queue}: tail {} but the list ends at {last}",
                        ends.tail
                    ));
                }
            }
            if held != u64::from(self.pools[slot]) {
                return Err(format!(
                    "input VC slot {slot}: the pool counts {} blocks, its queues hold {held}",
                    self.pools[slot]
                ));
            }
        }
        Ok(())
    }

    /// Requests name exactly the queue heads not being sent; each stream sends a queue head
    /// and keeps its output scheduled; read ports count the streams.
    fn check_outputs(&self) -> Result<(), String> {
        let slots = self.slots;
        let mut expected = vec![0u64; slots.nic_base as usize];
        let mut reading = vec![0u32; self.ports.len()];
        for (out, port) in self.ports.iter().enumerate() {
            if port.stream != NONE && port.stream_from == FROM_SWITCH {
                if !self.active.contains(out) && !self.asleep.holds(out) {
                    return Err(format!(
                        "output port {out} sends a notice but is not scheduled"
                    ));
                }
            } else if port.stream != NONE {
                let from = port.stream_from as usize;
                let r = &self.residents[port.stream as usize];
                let q = self.queue_index(from, r.queue as usize);
                if self.queues[q].head != port.stream || port.first as usize + r.out as usize != out
                {
                    return Err(format!(
                        "output port {out} sends resident {} that is not the head of a queue \
                         for it",
                        port.stream
                    ));
                }
                if !self.active.contains(out) && !self.asleep.holds(out) {
                    return Err(format!("output port {out} sends but is not scheduled"));
                }
                reading[slots.owner(from)] += 1;
            }
        }
        let streamed = self.streamed();
        for slot in 0..slots.nic_base as usize {
            let in_port = slots.owner(slot);
            let first = self.ports[in_port].first as usize;
            // Each ready list holds distinct queues whose due heads go to its output; every
            // queue with a head not being sent is in the list of its head's output.
            let mut listed = vec![false; self.queues_per_pool];
            for local_out in 0..self.max_ports {
                let list = self.ready[self.ready_list(slot, local_out)];
                let (mut q, mut last) = (list.head, NONE);
                while q != NONE {
                    let head = self.queues[self.queue_index(slot, q as usize)].head;
                    if listed[q as usize]
                        || head == NONE
                        || streamed[head as usize]
                        || self.residents[head as usize].out as usize != local_out
                    {
                        return Err(format!(
                            "input VC slot {slot}: queue {q} is misplaced in the ready list of \
                             output {local_out}"
                        ));
                    }
                    listed[q as usize] = true;
                    (last, q) = (q, self.ready_next[self.queue_index(slot, q as usize)]);
                }
                if last != list.tail {
                    return Err(format!(
                        "input VC slot {slot}: the ready list of output {local_out} ends at \
                         {last}, its tail says {}",
                        list.tail
                    ));
                }
                if list.head != NONE {
                    let out = first + local_out;
                    expected[slots.port_vc(out, slots.vc(slot))] |= 1 << (in_port - first);
                }
            }
            for (queue, &in_list) in listed.iter().enumerate() {
                let head = self.queues[self.queue_index(slot, queue)].head;
                if head != NONE && !streamed[head as usize] && !in_list {
                    return Err(format!(
                        "input VC slot {slot}: queue {queue} has a packet waiting but is in no \
                         ready list"
                    ));
                }
            }
        }
        for (out, port) in self.ports.iter().enumerate() {
            if port.reading != reading[out] {
                return Err(format!(
                    "input port {out} counts {} readers, {} streams read from it",
                    port.reading, reading[out]
                ));
            }
            let mut vls = 0;
            for vl in 0..self.vls {
                let slot = slots.port_vc(out, vl);
                if self.requests[slot] != expected[slot] {
                    return Err(format!(
                        "output port {out} VL {vl}: requests {:#x}, queue heads {:#x}",
                        self.requests[slot], expected[slot]
                    ));
                }
                if expected[slot] != 0 {
                    vls |= 1 << vl;
                }
            }
            if port.requested_vls != vls {
                return Err(format!(
                    "output port {out}: requested VLs {:#x}, expected {vls:#x}",
                    port.requested_vls
                ));
            }
        }
        Ok(())
    }

    /// Per resident slot: whether an output is sending it.
    fn streamed(&self) -> Vec<bool> {
        let mut streamed = vec![false; self.residents.capacity()];
        for port in self.ports.iter().filter(|p| p.stream != NONE) {
            streamed[port.stream as usize] = true;
        }
        streamed
    }

    /// With queues of their own room: each destination's reservation at a router input covers
    /// the blocks of its queued packets and stays within the queue's room.
    fn check_room(&self) -> Result<(), String> {
        let mut queued = vec![0u64; self.reserved.len()];
        for slot in 0..self.slots.nic_base as usize {
            for queue in 0..self.queues_per_pool {
                let mut at = self.queues[self.queue_index(slot, queue)].head;
                while at != NONE {
                    let r = &self.residents[at as usize];
                    queued[slot * self.nodes + r.dst as usize] += u64::from(r.blocks);
                    at = r.next;
                }
            }
        }
        for (i, &held) in queued.iter().enumerate() {
            let reserved = u64::from(self.reserved[i]);
            if reserved < held || reserved > u64::from(self.room_blocks) {
                return Err(format!(
                    "input VC slot {} destination {}: {reserved} blocks reserved for {held} \
                     queued, room {}",
                    i / self.nodes,
                    i % self.nodes,
                    self.room_blocks
                ));
            }
        }
        Ok(())
    }
}
