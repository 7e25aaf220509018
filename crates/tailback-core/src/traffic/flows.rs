//! The sources of `traffic.process = "flows"`: each flow creates a message every
//! `message_flits / rate` cycles from its start until its stop, sent as packets of
//! `packet_flits` flits (all created with the message).

use rand::RngExt;

use super::{NEVER, Offered};
use crate::config::{FlowDst, FlowsConfig};
use crate::packet::LogicalNetwork;
use crate::rng::{Purpose, StreamRng, stream};

/// [`Flow::current`] before the first message.
const NO_DESTINATION: u32 = u32::MAX;

/// One flow while it runs.
#[derive(Debug, Clone)]
struct Flow {
    dst: FlowDst,
    /// The destination of the current message.
    current: u32,
    start: u64,
    stop: u64,
    /// Cycles between messages.
    interval: f64,
    /// Messages created so far.
    messages: u64,
    /// Creation cycle of the next message ([`NEVER`]: none).
    next: u64,
    /// Flits of the current message not yet in packets.
    left: u32,
}

impl Flow {
    /// Schedules the next message, or none once past the stop.
    fn schedule(&mut self) {
        let t = self.start as f64 + self.messages as f64 * self.interval;
        self.next = if t >= self.stop as f64 {
            NEVER
        } else {
            t.ceil() as u64
        };
    }
}

/// Every node's flows.
#[derive(Debug, Clone)]
pub(crate) struct FlowSources {
    /// Flows by source node.
    by_node: Vec<Vec<Flow>>,
    /// Per source node: the stream its uniform and next-group flows draw destinations from.
    rngs: Vec<StreamRng>,
    /// On a dragonfly, (nodes per group, groups), for next-group flows.
    groups: Option<(u32, u32)>,
    message_flits: u32,
    packet_flits: u32,
}

impl FlowSources {
    /// The flows of `cfg` on `nodes` nodes (a dragonfly's `groups`: nodes per group and
    /// groups); a flow without a rate sends at `cap(src)` flits per cycle (its source's
    /// injection cap).
    pub(crate) fn new(
        cfg: &FlowsConfig,
        nodes: usize,
        groups: Option<(u32, u32)>,
        packet_flits: u32,
        seed: u64,
        cap: impl Fn(usize) -> f64,
    ) -> FlowSources {
        let mut by_node = vec![Vec::new(); nodes];
        for f in &cfg.flows {
            let rate = f.rate.unwrap_or_else(|| cap(f.src as usize));
            let mut flow = Flow {
                dst: f.dst,
                current: NO_DESTINATION,
                start: f.start,
                stop: f.stop.unwrap_or(NEVER),
                interval: f64::from(cfg.message_flits) / rate,
                messages: 0,
                next: NEVER,
                left: cfg.message_flits,
            };
            flow.schedule();
            by_node[f.src as usize].push(flow);
        }
        FlowSources {
            by_node,
            rngs: (0..nodes)
                .map(|n| stream(seed, n as u64, Purpose::Destinations))
                .collect(),
            groups,
            message_flits: cfg.message_flits,
            packet_flits,
        }
    }

    /// Creation time of `node`'s next packet ([`NEVER`] if none).
    pub(crate) fn next_time(&self, node: usize) -> u64 {
        self.by_node[node]
            .iter()
            .map(|f| f.next)
            .min()
            .unwrap_or(NEVER)
    }

    /// Takes `node`'s next packet: of the flow whose message comes first (the first declared
    /// on ties).
    pub(crate) fn take(&mut self, node: usize) -> Offered {
        let others = self.by_node.len() as u32 - 1;
        let flows = &mut self.by_node[node];
        let flow = flows
            .iter_mut()
            .min_by_key(|f| f.next)
            .expect("take is called only for a node with a next packet");
        if flow.left == self.message_flits {
            // A new message: its destination.
            flow.current = match flow.dst {
                FlowDst::Node(n) => n,
                FlowDst::Uniform => {
                    let draw = self.rngs[node].random_range(0..others);
                    draw + u32::from(draw >= node as u32)
                }
                FlowDst::NextGroup => {
                    let (group, groups) = self
                        .groups
                        .expect("next-group flows are checked to run on a dragonfly");
                    (node as u32 / group + 1) % groups * group
                        + self.rngs[node].random_range(0..group)
                }
            };
        }
        let flits = flow.left.min(self.packet_flits);
        flow.left -= flits;
        let packet = Offered {
            created: flow.next,
            dst: flow.current,
            flits,
            network: LogicalNetwork::Request,
            message_rest: flow.left.div_ceil(self.packet_flits),
            header: 0,
            control: false,
            traced: false,
        };
        if flow.left == 0 {
            flow.left = self.message_flits;
            flow.messages += 1;
            flow.schedule();
        }
        packet
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FlowConfig;

    #[test]
    fn messages_are_split_into_packets_at_the_flow_rate_until_the_stop() {
        let cfg = FlowsConfig {
            flows: vec![
                FlowConfig {
                    src: 0,
                    dst: FlowDst::Node(1),
                    start: 10,
                    stop: Some(100),
                    rate: Some(0.5),
                },
                FlowConfig {
                    src: 0,
                    dst: FlowDst::Node(2),
                    start: 0,
                    stop: None,
                    rate: None,
                },
            ],
            message_flits: 40,
            trace: None,
        };
        let mut sources = FlowSources::new(&cfg, 3, None, 32, 1, |_| 0.25);
        let mut taken = Vec::new();
        while sources.next_time(0) < 200 {
            let p = sources.take(0);
            taken.push((p.created, p.dst, p.flits, p.message_rest));
        }
        // Flow to 1: a 40-flit message every 80 cycles from 10 (10, 90), before its stop at
        // 100; flow to 2 at the cap, every 160 cycles from 0.
        assert_eq!(
            taken,
            [
                (0, 2, 32, 1),
                (0, 2, 8, 0),
                (10, 1, 32, 1),
                (10, 1, 8, 0),
                (90, 1, 32, 1),
                (90, 1, 8, 0),
                (160, 2, 32, 1),
                (160, 2, 8, 0),
            ]
        );
        assert_eq!(sources.next_time(1), NEVER);
    }

    #[test]
    fn a_uniform_flow_draws_each_message_s_destination_from_the_other_nodes() {
        let cfg = FlowsConfig {
            flows: vec![FlowConfig {
                src: 2,
                dst: FlowDst::Uniform,
                start: 0,
                stop: None,
                rate: Some(1.0),
            }],
            message_flits: 64,
            trace: None,
        };
        let mut sources = FlowSources::new(&cfg, 5, None, 32, 7, |_| 1.0);
        let mut counts = [0u32; 5];
        for _ in 0..40_000 {
            let first = sources.take(2);
            let second = sources.take(2);
            // Both packets of a message go to its destination.
            assert_eq!(first.dst, second.dst);
            counts[first.dst as usize] += 1;
        }
        assert_eq!(counts[2], 0, "never to itself");
        for (node, &n) in counts.iter().enumerate().filter(|&(n, _)| n != 2) {
            // 10,000 expected each; 4 standard deviations is about 350.
            assert!((f64::from(n) - 10_000.0).abs() < 350.0, "node {node}: {n}");
        }
        // The same seed draws the same destinations.
        let mut again = FlowSources::new(&cfg, 5, None, 32, 7, |_| 1.0);
        let mut fresh = FlowSources::new(&cfg, 5, None, 32, 7, |_| 1.0);
        for _ in 0..100 {
            assert_eq!(again.take(2).dst, fresh.take(2).dst);
        }
    }

    #[test]
    fn a_next_group_flow_draws_each_message_s_destination_from_the_next_group() {
        // 3 groups of 4 nodes: node 9 (group 2) sends to group 0, evenly.
        let cfg = FlowsConfig {
            flows: vec![FlowConfig {
                src: 9,
                dst: FlowDst::NextGroup,
                start: 0,
                stop: None,
                rate: Some(1.0),
            }],
            message_flits: 32,
            trace: None,
        };
        let mut sources = FlowSources::new(&cfg, 12, Some((4, 3)), 32, 3, |_| 1.0);
        let mut counts = [0u32; 12];
        for _ in 0..40_000 {
            counts[sources.take(9).dst as usize] += 1;
        }
        assert_eq!(counts[4..].iter().sum::<u32>(), 0, "only the next group");
        for (node, &n) in counts[..4].iter().enumerate() {
            // 10,000 expected each; 4 standard deviations is about 350.
            assert!((f64::from(n) - 10_000.0).abs() < 350.0, "node {node}: {n}");
        }
    }
}
