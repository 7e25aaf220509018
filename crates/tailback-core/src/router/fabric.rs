//! The routers as the `vc` fabric: the engine's calls and the queries of mechanisms, the
//! recorder and the invariant checker.

use super::RouterSet;
use crate::fabric::{Buffered, Fabric, InFlight, StepContext};
use crate::flit::Flit;
use crate::hooks::CongestionControl;
use crate::ids::PortId;
use crate::packet::PacketSlab;
use crate::routing::Routing;
use crate::spec::Spec;
use crate::topology::Topology;
use crate::view::{CreditUnit, SwitchState};

impl RouterSet {
    /// The VC slot of (`port`, `vc`); panics on a port or VC the network does not have.
    fn slot(&self, port: PortId, vc: usize) -> usize {
        assert!(
            port.index() < self.ports.len() && vc < self.vcs,
            "port {port} VC {vc} does not exist ({} ports, {} VCs)",
            self.ports.len(),
            self.vcs
        );
        self.slots.port_vc(port.index(), vc)
    }
}

impl Fabric for RouterSet {
    fn build(
        spec: &Spec,
        topology: &Topology,
        _routing: &Routing,
        _port_vl_events: bool,
    ) -> RouterSet {
        RouterSet::new(spec, topology)
    }

    #[inline(always)]
    fn accept_flit(&mut self, slot: usize, flit: Flit, _blocks: u32) -> Buffered {
        self.push_flit(slot, flit)
    }

    #[inline(always)]
    fn add_credit(&mut self, slot: usize) {
        self.return_credit(slot);
    }

    #[inline]
    fn any_active(&self) -> bool {
        !self.active.is_empty()
    }

    // Kept out of the cycle loop: inlined there, the optimiser lays the router step out less
    // well (about 1.5% more instructions on torus16, depending on unrelated code nearby).
    #[inline(never)]
    fn step<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        self.step_all(cx);
        self.recover_deadlocks(cx);
    }

    fn max_lane_delay(&self, diameter: u32) -> u64 {
        self.recovery.as_ref().map_or(0, |r| r.max_delay(diameter))
    }

    fn recoveries(&self) -> u64 {
        self.recovery.as_ref().map_or(0, |r| r.recoveries)
    }

    fn port_flits(&self) -> Option<Vec<u64>> {
        Some(self.ports.iter().map(|p| p.sent).collect())
    }

    fn check(
        &self,
        _now: u64,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
        packets: &PacketSlab,
    ) -> Result<(), String> {
        self.check_bookkeeping(in_flight, nic_held, packets)
    }
}

impl SwitchState for RouterSet {
    fn vcs(&self) -> usize {
        self.vcs
    }

    fn buffer_credits(&self) -> u32 {
        self.capacity
    }

    fn credit_unit(&self) -> CreditUnit {
        CreditUnit::Flit
    }

    fn input_occupancy(&self, port: PortId, vc: usize) -> u32 {
        self.ivc[self.slot(port, vc)].len as u32
    }

    fn output_credits(&self, port: PortId, vc: usize) -> u32 {
        self.ovc[self.slot(port, vc)].credits as u32
    }

    fn output_vc_free(&self, port: PortId, vc: usize) -> bool {
        let slot = self.slot(port, vc);
        self.ports[self.slots.owner(slot)].out_free & (1 << vc) != 0
    }

    fn buffered_flits(&self) -> u64 {
        self.ivc.iter().map(|s| s.len as u64).sum()
    }
}
