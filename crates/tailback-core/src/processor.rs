//! The processors behind the network interfaces (`[processor]`): software send and receive
//! overheads, polling, and periods in which a node does not respond.
//!
//! A processor does one thing at a time. When free it takes the oldest packet from the NIC's
//! arrivals queue (the packet is delivered then, as its handler starts, and the handler runs
//! for `receive_overhead` cycles); otherwise it sends the next packet of its software queue, if
//! the NIC's queue has room (the packet reaches the NIC when the `send_overhead` cycles are
//! over); otherwise it polls (`poll_overhead` cycles), so an arrival is noticed only when the
//! poll ends. Each time it becomes free it may instead stop
//! responding for a while, neither sending nor receiving; its packets then back up into the
//! network.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::RngExt;

use crate::config::ProcessorConfig;
use crate::hooks::{CongestionControl, HookState};
use crate::ids::NodeId;
use crate::nic::NicSet;
use crate::packet::PacketSlab;
use crate::rng::{self, Purpose, StreamRng};
use crate::stats::Collector;
use crate::traffic::{Offered, Program};

/// One node's processor.
#[derive(Debug)]
struct Processor {
    /// Packets the application has produced and the NIC has not taken yet.
    queue: VecDeque<Offered>,
    /// The packet being sent: it reaches the NIC when the send ends.
    sending: Option<Offered>,
    /// Non-responsive periods are drawn from the node's own stream.
    rng: StreamRng,
}

/// Every node's processor.
#[derive(Debug)]
pub(crate) struct ProcessorSet {
    settings: ProcessorConfig,
    processors: Vec<Processor>,
    /// When each processor's current operation (send, receive, poll, or not responding) ends,
    /// as (cycle, node): only processors due are visited, in node order within a cycle.
    wake: BinaryHeap<Reverse<(u64, u32)>>,
    /// The NIC's queue limit (`nic.source_queue_packets`): a processor waits for room.
    nic_queue: Option<u32>,
    /// A closed-loop workload: processors with an empty queue send its packets.
    program: Option<Program>,
}

/// What processors need from the rest of the engine in a cycle.
pub(crate) struct ProcessorContext<'a, C> {
    pub(crate) now: u64,
    pub(crate) nics: &'a mut NicSet,
    pub(crate) packets: &'a mut PacketSlab,
    pub(crate) stats: &'a mut Collector,
    pub(crate) control: &'a mut C,
    /// What hooks act on.
    pub(crate) hooks: &'a mut HookState,
}

impl ProcessorSet {
    /// Idle processors for `nodes` nodes, their random streams derived from `seed`, running
    /// `program` if there is one.
    pub(crate) fn new(
        settings: &ProcessorConfig,
        nodes: usize,
        nic_queue: Option<u32>,
        seed: u64,
        program: Option<Program>,
    ) -> ProcessorSet {
        ProcessorSet {
            settings: settings.clone(),
            processors: (0..nodes)
                .map(|n| Processor {
                    queue: VecDeque::new(),
                    sending: None,
                    rng: rng::stream(seed, n as u64, Purpose::Processor),
                })
                .collect(),
            wake: (0..nodes as u32).map(|n| Reverse((0, n))).collect(),
            nic_queue,
            program,
        }
    }

    /// Whether the closed-loop workload, if any, has sent all its packets.
    pub(crate) fn program_finished(&self) -> bool {
        self.program.as_ref().is_none_or(Program::finished)
    }

    /// The application at `node` produced `packet`.
    pub(crate) fn enqueue(&mut self, node: usize, packet: Offered) {
        self.processors[node].queue.push_back(packet);
    }

    /// Packets waiting in software queues or being sent.
    pub(crate) fn queued_packets(&self) -> usize {
        self.processors
            .iter()
            .map(|p| p.queue.len() + usize::from(p.sending.is_some()))
            .sum()
    }

    /// Starts the next operation of every processor whose current one has ended.
    pub(crate) fn step_all<C: CongestionControl>(&mut self, cx: &mut ProcessorContext<'_, C>) {
        let now = cx.now;
        let s = &self.settings;
        while let Some(&Reverse((due, node))) = self.wake.peek()
            && due <= now
        {
            self.wake.pop();
            let processor = &mut self.processors[node as usize];
            let program = self.program.as_mut();
            let busy = processor.next_operation(s, node as usize, self.nic_queue, program, cx);
            self.wake.push(Reverse((now + busy, node)));
        }
    }
}

impl Processor {
    /// Finishes node `node`'s operation and starts its next one; returns how long that takes.
    fn next_operation<C: CongestionControl>(
        &mut self,
        s: &ProcessorConfig,
        node: usize,
        nic_queue: Option<u32>,
        program: Option<&mut Program>,
        cx: &mut ProcessorContext<'_, C>,
    ) -> u64 {
        if let Some(packet) = self.sending.take() {
            cx.nics.enqueue(node, packet);
        }
        if s.nonresponsive_rate > 0.0 && self.rng.random::<f64>() < s.nonresponsive_rate {
            return self
                .rng
                .random_range(1..=2 * u64::from(s.nonresponsive_cycles));
        }
        let took = if let Some(slot) = cx.hooks.arrivals.take(node) {
            cx.nics.arrival_taken(node);
            let packet = cx.packets.remove(slot);
            cx.stats.on_delivered(&packet, cx.now);
            let mut hook = cx.hooks.context(cx.now);
            cx.control
                .on_delivered(&mut hook, NodeId::new(node), &packet);
            s.receive_overhead
        } else if cx.nics.has_room(node, nic_queue)
            && let Some(packet) = self.queue.pop_front().or_else(|| {
                let packet = program?.take(node, cx.now)?;
                cx.stats.on_created(node, &packet, true);
                Some(packet)
            })
        {
            self.sending = Some(packet);
            s.send_overhead
        } else {
            s.poll_overhead
        };
        u64::from(took)
    }
}
