//! InfiniBand congestion control (IB CC; InfiniBand Architecture Specification 1.2.1, Annex
//! A10, as modelled and studied in E. G. Gran's PhD thesis, University of Oslo, 2013), on the
//! buffered fabric:
//!
//! 1. a switch marks packets leaving a congested Port VL with a FECN ([`switch`]);
//! 2. the destination adapter answers a marked data packet with a congestion notification
//!    packet (CNP) carrying a BECN, sent before its other traffic (with
//!    `notification = "backward"`, ours after IEEE 802.1Qau, the switch sends it to the source
//!    itself instead of marking the packet);
//! 3. the source adapter raises the flow's CCTI on the BECN and delays the flow's packets by
//!    CCT[CCTI]; a timer lowers the index again ([`adapter`]).

mod adapter;
mod switch;

use crate::config::{IbCcConfig, MarkingRate, Threshold};
use adapter::AdapterSide;
use switch::SwitchSide;

use super::notify::Notifier;
use super::registry::Registered;
use crate::config::Choice;
use crate::config::Config;
use crate::hooks::{CongestionControl, Context, Notice, PortVlEvent, PortVlTotals};
use crate::ids::NodeId;
use crate::packet::Packet;
use crate::topology::Topology;

/// InfiniBand congestion control at every switch and channel adapter.
#[derive(Debug)]
pub struct IbCc {
    switches: SwitchSide,
    adapters: AdapterSide,
    notifier: Notifier,
    becns: u64,
}

impl Registered for IbCc {
    type Settings = IbCcConfig;
    type Control = IbCc;

    fn describe(s: &IbCcConfig, name: &str) -> Option<String> {
        Some(format!(
            "congestion management: {name} ({}, hysteresis {} blocks, marking {}, CCTI timer \
             {} x {} µs, {} CCT, {} level, {} notification)",
            match s.threshold {
                Threshold::Weight(w) => format!("threshold weight {w}"),
                Threshold::Blocks(b) => format!("threshold {b} blocks"),
            },
            s.hysteresis_blocks,
            match s.marking_rate {
                MarkingRate::Rate(r) => format!("rate {r}"),
                MarkingRate::Probability(p) => format!("probability {p}"),
            },
            s.ccti_timer,
            s.timer_unit_us,
            s.cct.name(),
            s.level.name(),
            s.notification.name()
        ))
    }

    fn build(settings: &IbCcConfig, cfg: &Config, topology: &Topology) -> IbCc {
        let units = cfg
            .fabric
            .units()
            .expect("checked: IB congestion control needs fabric.link");
        let link_period = super::adapter_link_periods(topology);
        let mtu = cfg.traffic.packet_flits;
        IbCc {
            switches: SwitchSide::new(
                settings,
                cfg.seed,
                topology.ports().len(),
                cfg.router.vcs as usize,
                topology.max_ports(),
                cfg.router.vc_buffer_flits,
                mtu,
            ),
            adapters: AdapterSide::new(settings, link_period, units.cycle_ns, mtu),
            notifier: Notifier::new(settings.notification),
            becns: 0,
        }
    }
}

impl CongestionControl for IbCc {
    const PORT_VL_EVENTS: bool = true;
    const NOTICES: bool = true;
    const PACING: bool = true;
    const GAUGES: &'static [&'static str] =
        &["congested_port_vls", "marks", "cnps", "becns", "max_ccti"];
    const FLOW_GAUGE: Option<&'static str> = Some("ccti");

    #[inline]
    fn on_port_vl(&mut self, event: PortVlEvent) {
        self.switches.update(&event);
    }

    #[inline]
    fn on_departure(&mut self, event: PortVlEvent, packet: &mut Packet) -> Option<Notice> {
        let feedback = self.switches.depart(&event, packet)?;
        self.notifier.notify(packet, feedback)
    }

    #[inline]
    fn send_time(&self, node: NodeId, dst: u32, now: u64) -> u64 {
        self.adapters.send_time(node, dst, now)
    }

    fn on_injected(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        if !packet.control {
            self.adapters.sent(node, packet.dst, packet.flits, cx.now);
        }
    }

    fn on_delivered(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        self.notifier.echo(cx, node, packet);
    }

    fn on_control(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        self.becns += 1;
        self.adapters.becn(node, packet.src, packet.header, cx.now);
    }

    fn flow_gauge(&self, src: NodeId, dst: u32, now: u64) -> f64 {
        f64::from(self.adapters.ccti(src, dst, now))
    }

    fn port_vl_totals(&self, now: u64, out: &mut Vec<PortVlTotals>) {
        self.switches.totals(now, out);
    }

    fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("marks", self.switches.marks()),
            ("cnps", self.notifier.sent()),
            ("becns", self.becns),
        ]
    }

    fn gauges(&self, now: u64, values: &mut [Option<f64>]) {
        values[0] = Some(self.switches.congested_count() as f64);
        values[1] = Some(self.switches.marks() as f64);
        values[2] = Some(self.notifier.sent() as f64);
        values[3] = Some(self.becns as f64);
        values[4] = Some(f64::from(self.adapters.max_ccti(now)));
    }
}
