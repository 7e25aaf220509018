//! Quantized congestion notification (IEEE 802.1Qau, QCN) on the buffered fabric:
//!
//! 1. a congestion point at every switch output and lane samples the data packets joining its
//!    queue and computes the quantized feedback of the queue ([`point`]);
//! 2. a positive feedback goes back to the sampled packet's source: by default the switch
//!    sends the notification itself (the standard's congestion notification message);
//!    `notification = "forward"` has the packet carry it to its destination, which echoes it
//!    (InfiniBand's path, ours for QCN);
//! 3. the source's rate limiter for the queue pair cuts its rate by the feedback and climbs
//!    back by its byte counter and timer ([`reaction`]); with `feedback = "binary"` every
//!    notification stands for the same feedback (ours).
//!
//! Where the model simplifies the standard: the queue a congestion point watches is the
//! switch's Port VL (the blocks queued for the output and lane at all inputs, as InfiniBand
//! detection's `sum`), not an output queue of its own; rates are per queue pair, not per
//! priority of a port with flows hashed onto a few limiters; the byte counter and timer have
//! no random jitter; notifications carry only the quantized feedback.

mod point;
mod reaction;

use point::CongestionPoints;
use reaction::ReactionPoints;

use super::notify::Notifier;
use super::registry::Registered;
use crate::config::{Choice, Config, Feedback, QcnConfig};
use crate::hooks::{CongestionControl, Context, Notice, PortVlEvent};
use crate::ids::NodeId;
use crate::packet::Packet;
use crate::topology::Topology;

/// QCN at every switch and adapter.
#[derive(Debug)]
pub struct Qcn {
    points: CongestionPoints,
    reactions: ReactionPoints,
    notifier: Notifier,
    /// With binary feedback, the quantized feedback a notification stands for at the source.
    binary: Option<u32>,
    received: u64,
}

impl Registered for Qcn {
    type Settings = QcnConfig;
    type Control = Qcn;

    fn describe(s: &QcnConfig, name: &str) -> Option<String> {
        Some(format!(
            "congestion management: {name} (set point {} bytes, w {}, sampling every {} \
             bytes, G_d {}, byte counter {} bytes, timer {} ms, {} notification, {} feedback)",
            s.set_point_bytes,
            s.feedback_weight,
            s.sample_base_bytes,
            s.gd,
            s.byte_counter_bytes,
            s.timer_ms,
            s.notification.name(),
            s.feedback.name()
        ))
    }

    fn build(settings: &QcnConfig, cfg: &Config, topology: &Topology) -> Qcn {
        let units = cfg.fabric.units().expect("checked: QCN needs fabric.link");
        let link_period = super::adapter_link_periods(topology);
        Qcn {
            points: CongestionPoints::new(
                settings,
                cfg.seed,
                topology.ports().len(),
                cfg.router.vcs as usize,
            ),
            reactions: ReactionPoints::new(settings, &link_period, units.cycle_ns),
            notifier: Notifier::new(settings.notification),
            binary: (settings.feedback == Feedback::Binary).then(|| settings.binary_feedback()),
            received: 0,
        }
    }
}

impl CongestionControl for Qcn {
    const PORT_VL_EVENTS: bool = true;
    const NOTICES: bool = true;
    const JOINS: bool = true;
    const PACING: bool = true;
    const GAUGES: &'static [&'static str] = &["samples", "notifications", "limited_pairs"];
    const FLOW_GAUGE: Option<&'static str> = Some("rate_fraction");

    #[inline]
    fn on_joined(&mut self, event: PortVlEvent, packet: &mut Packet) -> Option<Notice> {
        if packet.control {
            return None;
        }
        let feedback = self.points.arrive(&event, packet.flits)?;
        let carried = if self.binary.is_some() { 0 } else { feedback };
        self.notifier.notify(packet, carried)
    }

    #[inline]
    fn send_time(&self, node: NodeId, dst: u32, now: u64) -> u64 {
        self.reactions.send_time(node, dst, now)
    }

    fn on_injected(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        if !packet.control {
            self.reactions.sent(node, packet.dst, packet.flits, cx.now);
        }
    }

    fn on_delivered(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        self.notifier.echo(cx, node, packet);
    }

    fn on_control(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        self.received += 1;
        let feedback = self.binary.unwrap_or(packet.header);
        self.reactions.notified(node, packet.src, feedback, cx.now);
    }

    fn flow_gauge(&self, src: NodeId, dst: u32, now: u64) -> f64 {
        self.reactions.rate(src, dst, now)
    }

    fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("samples", self.points.samples()),
            ("notifications", self.notifier.sent()),
            ("received", self.received),
        ]
    }

    fn gauges(&self, _now: u64, values: &mut [Option<f64>]) {
        values[0] = Some(self.points.samples() as f64);
        values[1] = Some(self.notifier.sent() as f64);
        values[2] = Some(self.reactions.limited() as f64);
    }
}
