//! The sources of `traffic.process = "flows"`: each flow creates a message every
//! `message_flits / rate` cycles from its start until its stop, sent as packets of
//! `packet_flits` flits (all created with the message).

use super::{NEVER, Offered};
use crate::config::FlowsConfig;
use crate::packet::LogicalNetwork;

/// One flow while it runs.
#[derive(Debug, Clone)]
struct Flow {
    dst: u32,
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
    message_flits: u32,
    packet_flits: u32,
}

impl FlowSources {
    /// The flows of `cfg` on `nodes` nodes; a flow without a rate sends at `cap(src)` flits per
    /// cycle (its source's injection cap).
    pub(crate) fn new(
        cfg: &FlowsConfig,
        nodes: usize,
        packet_flits: u32,
        cap: impl Fn(usize) -> f64,
    ) -> FlowSources {
        let mut by_node = vec![Vec::new(); nodes];
        for f in &cfg.flows {
            let rate = f.rate.unwrap_or_else(|| cap(f.src as usize));
            let mut flow = Flow {
                dst: f.dst,
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
        let flows = &mut self.by_node[node];
        let flow = flows
            .iter_mut()
            .min_by_key(|f| f.next)
            .expect("take is called only for a node with a next packet");
        let flits = flow.left.min(self.packet_flits);
        flow.left -= flits;
        let packet = Offered {
            created: flow.next,
            dst: flow.dst,
            flits,
            network: LogicalNetwork::Request,
            message_rest: flow.left.div_ceil(self.packet_flits),
            header: 0,
            control: false,
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
                    dst: 1,
                    start: 10,
                    stop: Some(100),
                    rate: Some(0.5),
                },
                FlowConfig {
                    src: 0,
                    dst: 2,
                    start: 0,
                    stop: None,
                    rate: None,
                },
            ],
            message_flits: 40,
        };
        let mut sources = FlowSources::new(&cfg, 3, 32, |_| 0.25);
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
}
