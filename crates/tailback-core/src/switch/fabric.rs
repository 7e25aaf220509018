//! The buffered switches as a fabric: the engine's calls and the queries of the recorder and
//! the invariant checker.

use super::notices::FROM_SWITCH;
use super::{BufferedSwitches, QueueScheme};
use crate::config::BLOCK_BYTES;
use crate::fabric::{Buffered, Fabric, InFlight, StepContext};
use crate::flit::Flit;
use crate::hooks::CongestionControl;
use crate::ids::PortId;
use crate::packet::PacketSlab;
use crate::routing::{Routing, vc_mask};
use crate::spec::Spec;
use crate::topology::Topology;
use crate::view::{CreditUnit, SwitchState};

impl<S: QueueScheme> BufferedSwitches<S> {
    /// The VC slot of (`port`, `vl`); panics on a port or VL the network does not have.
    fn slot(&self, port: PortId, vl: usize) -> usize {
        assert!(
            port.index() < self.ports.len() && vl < self.vls,
            "port {port} VL {vl} does not exist ({} ports, {} VLs)",
            self.ports.len(),
            self.vls
        );
        self.slots.port_vc(port.index(), vl)
    }
}

impl<S: QueueScheme> Fabric for BufferedSwitches<S> {
    fn room_per_destination(&self) -> bool {
        S::OWN_ROOM || S::ISOLATION
    }

    fn build(spec: &Spec, topology: &Topology, routing: &Routing, port_vl_events: bool) -> Self {
        BufferedSwitches::new(spec, topology, routing, port_vl_events)
    }

    fn port_vl_queued(&self, port: PortId, vl: usize) -> u32 {
        let slot = self.slot(port, vl);
        if self.watched {
            self.port_vl_blocks[slot]
        } else {
            0
        }
    }

    fn injection_lanes(&self) -> u32 {
        vc_mask(0, self.lanes.sls() as u32)
    }

    fn trains() -> bool {
        true
    }

    #[inline(always)]
    fn accept_flit(&mut self, slot: usize, flit: Flit, blocks: u32) -> Buffered {
        debug_assert!(
            flit.is_head() && flit.is_tail(),
            "a train is a whole packet"
        );
        self.accept_train(slot, flit.packet(), blocks)
    }

    #[inline(always)]
    fn add_credit(&mut self, slot: usize) {
        self.return_credits(slot, 1);
    }

    #[inline(always)]
    fn add_credits(&mut self, slot: usize, count: u32) {
        self.return_credits(slot, count);
    }

    fn pause_frame(&mut self, slot: usize, pause: bool, now: u64) {
        BufferedSwitches::pause_frame(self, slot, pause, now);
    }

    fn paused_cycles(&self, port: PortId, vl: usize, now: u64) -> Option<u64> {
        let slot = self.slot(port, vl);
        let pfc = self.pfc.as_ref()?;
        pfc.paces_out(slot).then(|| pfc.paused_cycles(slot, now))
    }

    fn peak_paced_pool(&self) -> u32 {
        self.pfc.as_ref().map_or(0, |pfc| pfc.peak)
    }

    fn xoff_sent(&self, slot: usize) -> bool {
        self.pfc.as_ref().is_some_and(|pfc| pfc.xoff_sent(slot))
    }

    fn credits_delivered(&mut self, now: u64) {
        if S::OWN_ROOM {
            self.return_room(now);
        }
    }

    #[inline]
    fn any_active(&self) -> bool {
        !self.active.is_empty()
            || !self.unrouted.is_empty()
            || !self.asleep.is_empty()
            || self.cams.in_flight()
    }

    #[inline(never)]
    fn step<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        self.step_all(cx);
    }

    fn max_lane_delay(&self, _diameter: u32) -> u64 {
        0
    }

    fn recoveries(&self) -> u64 {
        0
    }

    fn draws_ties(&self) -> bool {
        self.adaptive
    }

    fn wake_adapters(&mut self, wake: &mut dyn FnMut(usize)) {
        for slot in self.cams.woken_nics.drain(..) {
            wake(self.slots.owner(slot as usize));
        }
    }

    fn counts(&self) -> Vec<(&'static str, u64)> {
        let mut counts = Vec::new();
        if let Some(pfc) = &self.pfc {
            counts.extend([("pfc_pauses", pfc.pauses), ("pfc_resumes", pfc.resumes)]);
        }
        if !S::ISOLATION {
            return counts;
        }
        let t = self.cams.totals;
        counts.extend([
            ("cfq_root_claims", t.root_claims),
            ("cfq_branch_claims", t.branch_claims),
            ("cfq_root_merges", t.root_merges),
            ("cfq_claims_refused", t.claims_refused),
            ("cfq_max_blocks", u64::from(t.max_cfq_blocks)),
            ("control_allocates", t.allocates),
            ("control_stops", t.stops),
            ("control_goes", t.goes),
            ("control_deallocates", t.deallocates),
            ("control_rates", t.rates),
        ]);
        counts
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        if !S::ISOLATION {
            return Vec::new();
        }
        let (claimed, full, copies) = self.cams.occupancy();
        vec![
            ("cfqs_claimed", claimed as f64),
            ("pools_without_free_cfq", full as f64),
            ("cam_copies_held", copies as f64),
        ]
    }

    fn originated_flits(&self) -> u64 {
        self.originated_blocks
    }

    fn departing_flits(&self) -> u64 {
        // A notice holds no input buffer while it leaves.
        self.ports
            .iter()
            .filter(|p| p.stream != super::NONE && p.stream_from != FROM_SWITCH)
            .map(|p| u64::from(self.residents[p.stream as usize].blocks))
            .sum()
    }

    fn check(
        &self,
        now: u64,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
        packets: &PacketSlab,
    ) -> Result<(), String> {
        self.check_bookkeeping(in_flight, nic_held, packets)?;
        self.check_sleepers(now)
    }
}

impl<S: QueueScheme> SwitchState for BufferedSwitches<S> {
    fn vcs(&self) -> usize {
        self.vls
    }

    fn buffer_credits(&self) -> u32 {
        self.capacity
    }

    fn credit_unit(&self) -> CreditUnit {
        CreditUnit::Block { bytes: BLOCK_BYTES }
    }

    fn input_occupancy(&self, port: PortId, vc: usize) -> u32 {
        self.pools[self.slot(port, vc)]
    }

    fn output_credits(&self, port: PortId, vc: usize) -> u32 {
        self.credits[self.slot(port, vc)]
    }

    fn output_vc_free(&self, port: PortId, vc: usize) -> bool {
        self.slot(port, vc);
        let p = &self.ports[port.index()];
        p.stream == super::NONE || self.residents[p.stream as usize].out_vl as usize != vc
    }

    fn admits(&self, slot: usize, dst: u32, flits: u32) -> bool {
        self.has_room(slot, dst, flits)
            && !(S::ISOLATION && self.slots.is_router(slot) && self.cams.stops(slot, dst))
    }

    fn buffered_flits(&self) -> u64 {
        self.pools.iter().map(|&b| u64::from(b)).sum()
    }
}
