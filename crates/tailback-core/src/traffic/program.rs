//! Closed-loop workloads: bulk-synchronous phases and the cyclic shift.
//!
//! A node's processor asks for its next packet whenever it is free to send ([`Program::take`]),
//! so nodes send as fast as their processors and the network let them. A node has finished a
//! phase once it has taken the phase's last packet and asks again (its send is then over, the
//! packet handed to the network interface). With barriers it then waits until every node has
//! finished the phase, plus `barrier_cycles`; without, it moves straight on.
//!
//! Every node draws from its own stream, in an order that depends only on its own sequence of
//! phases and messages, so the packets a node offers are the same whatever the network, the
//! network interface or the timing.

use rand::RngExt;

use crate::config::ProgramConfig;
use crate::packet::LogicalNetwork;
use crate::rng::{self, Purpose, StreamRng};
use crate::traffic::{NEVER, Offered};

/// What the nodes send in a phase.
#[derive(Debug)]
enum Kind {
    /// A node sends in a phase with probability `send_probability`, messages of lengths drawn
    /// from `message_packets`, each to a random other node.
    Bsp {
        send_probability: f64,
        message_packets: Vec<u32>,
    },
    /// In phase p (from 1 to P - 1) node i sends one message to node (i + p) mod P.
    Cshift,
}

/// One node's progress through the program.
#[derive(Debug)]
struct NodeState {
    rng: StreamRng,
    /// The phase being sent (from 0).
    phase: u64,
    /// Packets of the phase still to send.
    left: u32,
    /// Packets of the current message still to send, and its destination.
    message_left: u32,
    dst: u32,
    /// The barrier generation the node waits at, if it waits.
    waiting: Option<u64>,
    /// Whether the node has sent every phase.
    done: bool,
}

/// What every phase consists of.
#[derive(Debug)]
struct Plan {
    kind: Kind,
    /// Number of nodes.
    nodes: usize,
    phase_packets: [u32; 2],
    packet_flits: u32,
    /// Phases in the program ([`NEVER`]: endless).
    phases: u64,
}

/// A global barrier, reused phase after phase.
#[derive(Debug)]
struct Barrier {
    cycles: u64,
    /// Barriers completed so far.
    generation: u64,
    /// Nodes waiting at the current barrier.
    arrived: usize,
    /// When the last completed barrier opens.
    release_at: u64,
}

/// Every node's program.
#[derive(Debug)]
pub(crate) struct Program {
    plan: Plan,
    nodes: Vec<NodeState>,
    /// `None`: nodes move on without waiting.
    barrier: Option<Barrier>,
    /// Nodes that have sent every phase.
    finished: usize,
}

impl Program {
    /// The program of `cfg` (a cyclic shift if `cshift`) for `nodes` nodes sending
    /// `packet_flits`-flit packets, with streams derived from `seed`.
    pub(crate) fn new(
        cfg: &ProgramConfig,
        cshift: bool,
        nodes: usize,
        packet_flits: u32,
        seed: u64,
    ) -> Program {
        let kind = if cshift {
            Kind::Cshift
        } else {
            Kind::Bsp {
                send_probability: cfg.send_probability.unwrap_or(1.0),
                message_packets: cfg.message_packets.clone().unwrap_or_else(|| vec![1]),
            }
        };
        let plan = Plan {
            kind,
            nodes,
            phase_packets: cfg.phase_packets,
            packet_flits,
            phases: if cshift { nodes as u64 - 1 } else { NEVER },
        };
        let states = (0..nodes)
            .map(|node| {
                let mut state = NodeState {
                    rng: rng::stream(seed, node as u64, Purpose::Program),
                    phase: 0,
                    left: 0,
                    message_left: 0,
                    dst: node as u32,
                    waiting: None,
                    done: plan.phases == 0,
                };
                if !state.done {
                    plan.begin_phase(node, &mut state, 0);
                }
                state
            })
            .collect();
        Program {
            finished: if plan.phases == 0 { nodes } else { 0 },
            plan,
            nodes: states,
            barrier: cfg.barriers.then_some(Barrier {
                cycles: cfg.barrier_cycles.into(),
                generation: 0,
                arrived: 0,
                release_at: 0,
            }),
        }
    }

    /// Whether every node has sent every phase (never, for an endless program).
    pub(crate) fn finished(&self) -> bool {
        self.finished == self.nodes.len()
    }

    /// The next packet `node` sends, created `now`; `None` while it waits at a barrier, sends
    /// nothing this phase or has finished.
    pub(crate) fn take(&mut self, node: usize, now: u64) -> Option<Offered> {
        let Program {
            plan,
            nodes,
            barrier,
            finished,
        } = self;
        let state = &mut nodes[node];
        loop {
            if state.done {
                return None;
            }
            if let Some(generation) = state.waiting {
                let barrier = barrier.as_ref().expect("only barriers make nodes wait");
                if barrier.generation <= generation || now < barrier.release_at {
                    return None;
                }
                state.waiting = None;
                plan.begin_phase(node, state, state.phase + 1);
                continue;
            }
            if state.left > 0 {
                return Some(plan.next_packet(node, state, now));
            }
            // The phase is over.
            if state.phase + 1 >= plan.phases {
                state.done = true;
                *finished += 1;
                return None;
            }
            match barrier {
                Some(barrier) => {
                    state.waiting = Some(barrier.generation);
                    barrier.arrived += 1;
                    if barrier.arrived == plan.nodes {
                        // The last node is here: the barrier opens `cycles` later.
                        barrier.generation += 1;
                        barrier.arrived = 0;
                        barrier.release_at = now + barrier.cycles;
                    }
                }
                None => plan.begin_phase(node, state, state.phase + 1),
            }
        }
    }
}

impl Plan {
    /// Starts phase `phase` of `node`: whether it sends, and how many packets.
    fn begin_phase(&self, node: usize, state: &mut NodeState, phase: u64) {
        let [low, high] = self.phase_packets;
        state.phase = phase;
        state.message_left = 0;
        let sends = match &self.kind {
            Kind::Bsp {
                send_probability, ..
            } => state.rng.random::<f64>() < *send_probability,
            Kind::Cshift => {
                state.dst = ((node as u64 + phase + 1) % self.nodes as u64) as u32;
                true
            }
        };
        state.left = if sends {
            state.rng.random_range(low..=high)
        } else {
            0
        };
        if let Kind::Cshift = self.kind {
            state.message_left = state.left;
        }
    }

    /// Takes the next packet of the phase, starting a message if needed.
    fn next_packet(&self, node: usize, state: &mut NodeState, now: u64) -> Offered {
        if state.message_left == 0 {
            let Kind::Bsp {
                message_packets, ..
            } = &self.kind
            else {
                unreachable!("a cyclic shift sends its phase as one message");
            };
            let length = message_packets[state.rng.random_range(0..message_packets.len())];
            // A random destination other than the node itself.
            let others = (self.nodes as u32 - 1).max(1);
            let pick = state.rng.random_range(0..others);
            state.dst = if pick >= node as u32 { pick + 1 } else { pick };
            state.message_left = length.min(state.left);
        }
        state.left -= 1;
        state.message_left -= 1;
        Offered {
            created: now,
            dst: state.dst,
            flits: self.packet_flits,
            network: LogicalNetwork::Request,
            message_rest: state.message_left,
            header: 0,
            control: false,
            traced: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BspLoad, LIGHT_MESSAGE_PACKETS};

    fn light(barriers: bool) -> ProgramConfig {
        ProgramConfig {
            load: Some(BspLoad::Light),
            phase_packets: [100, 300],
            send_probability: Some(1.0 / 3.0),
            message_packets: Some(LIGHT_MESSAGE_PACKETS.to_vec()),
            barriers,
            barrier_cycles: 0,
        }
    }

    /// Drives every node without a network: each takes packets until it waits, one cycle per
    /// packet; returns each node's packets per phase.
    fn drive(program: &mut Program, nodes: usize, cycles: u64) -> Vec<Vec<(u64, Offered)>> {
        let mut taken = vec![Vec::new(); nodes];
        for now in 0..cycles {
            for (node, list) in taken.iter_mut().enumerate() {
                if let Some(packet) = program.take(node, now) {
                    list.push((program.nodes[node].phase, packet));
                }
            }
        }
        taken
    }

    #[test]
    fn light_load_sends_in_a_third_of_the_phases_and_long_messages_carry_most_packets() {
        let nodes = 32;
        let mut program = Program::new(&light(true), false, nodes, 8, 7);
        let taken = drive(&mut program, nodes, 60_000);
        let phases = program.nodes[0].phase;
        assert!(phases >= 100, "only {phases} phases");
        // Sending node-phases over all node-phases.
        let mut sent = std::collections::BTreeSet::new();
        for (node, list) in taken.iter().enumerate() {
            for &(phase, packet) in list {
                sent.insert((node, phase));
                assert_ne!(packet.dst as usize, node, "no packet to itself");
            }
        }
        let fraction = sent.len() as f64 / (nodes as f64 * phases as f64);
        assert!(
            (fraction - 1.0 / 3.0).abs() < 0.03,
            "sending fraction {fraction}"
        );
        // Message boundaries: a packet with no rest ends its message.
        let (mut long_packets, mut all_packets, mut messages, mut long_messages) = (0, 0, 0, 0);
        for list in &taken {
            let mut length = 0;
            for &(_, packet) in list {
                length += 1;
                if packet.message_rest == 0 {
                    messages += 1;
                    all_packets += length;
                    if length >= 10 {
                        long_messages += 1;
                        long_packets += length;
                    }
                    length = 0;
                }
            }
        }
        assert!(long_messages * 2 < messages, "most messages are short");
        assert!(
            long_packets * 2 > all_packets,
            "long messages carry most packets"
        );
    }

    #[test]
    fn barriers_hold_fast_nodes_until_the_last_one_has_sent() {
        // Node 0 never asks until cycle 1000: nobody may start phase 1 before then.
        let nodes = 4;
        let mut program = Program::new(&light(true), false, nodes, 8, 3);
        let mut first_of_phase_1 = None;
        for now in 0..5_000 {
            for node in (0..nodes).filter(|&n| n != 0 || now >= 1000) {
                if program.take(node, now).is_some()
                    && program.nodes[node].phase == 1
                    && first_of_phase_1.is_none()
                {
                    first_of_phase_1 = Some(now);
                }
            }
        }
        assert!(
            first_of_phase_1.is_some_and(|t| t >= 1000),
            "{first_of_phase_1:?}"
        );
    }
}
