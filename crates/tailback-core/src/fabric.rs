//! The switch-model boundary: what the simulation needs from the set of switches, with their
//! buffers and credits (the *fabric*).
//!
//! The simulation owns the channels (the timing wheels that carry flits and credits), the
//! network interfaces, the workload and the congestion mechanism; a fabric owns everything
//! inside the switches. They meet at *VC slots* (`crate::event::VcSlots`): a flit arriving at
//! a router slot is handed to the fabric, a credit arriving at one returns to it, and a fabric
//! schedules the flits and credits it sends on the same wheels. Mechanisms and the invariant
//! checker see a fabric only through the queries of this trait (mechanisms through
//! [`NetworkView`](crate::view::NetworkView) and its [`SwitchState`]).
//!
//! Today's fabric is the input-queued virtual-channel router (`router::RouterSet`);
//! `docs/architecture.md` lists what a second fabric must provide.

use crate::event::{CreditBatch, FlitArrival, PfcFrame, VcSlots, Wheel};
use crate::flit::Flit;
use crate::hooks::{CongestionControl, Context, HookState};
use crate::ids::PortId;
use crate::packet::PacketSlab;
use crate::routing::Routing;
use crate::spec::Spec;
use crate::topology::Topology;
use crate::view::SwitchState;

/// Flits and credits on their way to every VC slot (input of the invariant checks).
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight {
    /// Flits due at each slot.
    pub(crate) flits_to: Vec<u64>,
    /// Credits due at each slot.
    pub(crate) credits_to: Vec<u64>,
    /// Priority flow control frames due at each sender's slot.
    pub(crate) frames_to: Vec<u64>,
}

/// The channel VCs switch outputs drive: `ports` ports of `vcs` VCs, each buffer holding
/// `capacity` credits.
pub(crate) struct Channels {
    pub(crate) slots: VcSlots,
    pub(crate) ports: usize,
    pub(crate) vcs: usize,
    pub(crate) capacity: u32,
}

impl Channels {
    /// Credit conservation on every channel VC: upstream credits + flits on the way + flits
    /// held at the far end + credits on the way back = capacity. `downstream(port)` is the
    /// first VC slot of the far end of `port`'s output (`None`: unconnected), `credits(slot)`
    /// an output VC's credits and `held(slot)` the flits a router input VC holds; `nic_held`
    /// those of a NIC receive slot (relative to the first NIC slot). Output VCs that are
    /// `paced` by priority flow control keep no credits and are left out.
    pub(crate) fn check_credits(
        &self,
        downstream: impl Fn(usize) -> Option<usize>,
        paced: impl Fn(usize) -> bool,
        credits: impl Fn(usize) -> u64,
        held: impl Fn(usize) -> u64,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
    ) -> Result<(), String> {
        let (slots, cap) = (self.slots, u64::from(self.capacity));
        for port in 0..self.ports {
            let Some(far_base) = downstream(port) else {
                continue;
            };
            for vc in 0..self.vcs {
                let out = slots.port_vc(port, vc);
                if paced(out) {
                    continue;
                }
                let far = far_base + vc;
                let at_far_end = if slots.is_router(far) {
                    held(far)
                } else {
                    nic_held(far - slots.nic_base as usize)
                };
                let total =
                    credits(out) + in_flight.credits_to[out] + in_flight.flits_to[far] + at_far_end;
                if total != cap {
                    return Err(format!(
                        "output VC {vc} of port {port}: credits, in-flight flits, buffered flits \
                         and returning credits add up to {total}, not {cap}"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// What a fabric needs from the rest of the engine while it steps.
pub(crate) struct StepContext<'a, C> {
    pub(crate) now: u64,
    pub(crate) routing: &'a Routing,
    pub(crate) packets: &'a mut PacketSlab,
    pub(crate) flits: &'a mut Wheel<FlitArrival>,
    pub(crate) credits: &'a mut Wheel<u32>,
    /// Credits returned a packet at a time (fabrics with [`Fabric::trains`]).
    pub(crate) credit_batches: &'a mut Wheel<CreditBatch>,
    /// Priority flow control's PAUSE and RESUME frames on their way to senders.
    pub(crate) frames: &'a mut Wheel<PfcFrame>,
    pub(crate) control: &'a mut C,
    /// Router-to-router flit traversals so far.
    pub(crate) flit_hops: &'a mut u64,
    /// What hooks act on.
    pub(crate) hooks: &'a mut HookState,
}

impl<C> StepContext<'_, C> {
    /// The hook context, and the mechanism.
    #[inline]
    pub(crate) fn hook(&mut self) -> (Context<'_>, &mut C) {
        (self.hooks.context(self.now), self.control)
    }
}

/// Where an arriving flit was buffered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Buffered {
    /// The switch.
    pub(crate) router: usize,
    /// Its local input port.
    pub(crate) port: u8,
    /// Flits in the buffer after the arrival.
    pub(crate) occupancy: u32,
}

/// A set of switches: the engine side (flits and credits in, a step per cycle) and, beside the
/// [`SwitchState`] mechanisms look at, the queries the recorder and the invariant checker ask.
///
/// Ports and VCs are numbered as in [`Topology`](crate::topology::Topology); a fabric's buffers
/// are per (input port, VC) and its credits per (output port, VC), counted in
/// [`credit_unit`](Self::credit_unit)s.
pub(crate) trait Fabric: SwitchState {
    /// Empty switches with full credits, wired as `topology` says, routed by `routing`;
    /// `port_vl_events`: the
    /// mechanism watches the traffic queued for each output port and VC
    /// ([`CongestionControl::PORT_VL_EVENTS`]).
    fn build(spec: &Spec, topology: &Topology, routing: &Routing, port_vl_events: bool) -> Self
    where
        Self: Sized;

    /// The lanes packets may be injected on (a mask): all of them, unless the lane is the
    /// packet's service level and routing raises it class by class (the buffered fabric's
    /// SL-to-VL tables).
    fn injection_lanes(&self) -> u32 {
        u32::MAX
    }

    /// Whether packets cross channels as *trains*: one arrival per packet per channel (its
    /// head now, its other blocks following back to back at the channel's period, as one
    /// [`accept_flit`](Self::accept_flit)), and a packet's credits returned together when
    /// its last block leaves (as [`add_credits`](Self::add_credits)); flit by flit otherwise.
    fn trains() -> bool
    where
        Self: Sized,
    {
        false
    }

    /// A flit arrives at router VC slot `slot` (its credit was taken upstream). With
    /// [`trains`](Self::trains) it is the head of a train and stands for all `blocks` blocks
    /// of its packet (whose credits were all taken upstream); otherwise `blocks` is 1.
    fn accept_flit(&mut self, slot: usize, flit: Flit, blocks: u32) -> Buffered;

    /// A credit returns to output VC slot `slot`.
    fn add_credit(&mut self, slot: usize);

    /// A priority flow control frame reaches output VC slot `slot` at cycle `now` (only
    /// fabrics that send them get them).
    fn pause_frame(&mut self, _slot: usize, _pause: bool, _now: u64) {}

    /// Cycles output `port` has been paused on lane `vl` up to cycle `now` by priority flow
    /// control (`None`: the lane is not paced there).
    fn paused_cycles(&self, _port: PortId, _vl: usize, _now: u64) -> Option<u64> {
        None
    }

    /// The most blocks an input pool paced by priority flow control held (0 without it).
    fn peak_paced_pool(&self) -> u32 {
        0
    }

    /// Whether the input pool of router VC slot `slot` has paused its sender (its last
    /// priority flow control frame was a PAUSE).
    fn xoff_sent(&self, _slot: usize) -> bool {
        false
    }

    /// The credit batches due at `now` have been delivered: whatever else reaches senders
    /// with them is delivered too (the buffered switches' per-destination room).
    fn credits_delivered(&mut self, _now: u64) {}

    /// `count` credits return to output VC slot `slot` together.
    fn add_credits(&mut self, slot: usize, count: u32) {
        for _ in 0..count {
            self.add_credit(slot);
        }
    }

    /// Whether any switch has work: [`step`](Self::step) may be skipped otherwise.
    fn any_active(&self) -> bool;

    /// Evaluates every switch with work for cycle `cx.now`.
    fn step<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>)
    where
        Self: Sized;

    /// The longest delay from sending a flit to its arrival on a path of the fabric's own
    /// besides its channels (Disha's deadlock-recovery lane; 0 when there is none), on a
    /// network of this diameter.
    fn max_lane_delay(&self, diameter: u32) -> u64;

    /// Deadlock recoveries started so far.
    fn recoveries(&self) -> u64;

    /// Whether the fabric breaks ties between equally good output ports by each packet's
    /// routing draw (so packets need one even where the routing draws nothing).
    fn draws_ties(&self) -> bool {
        false
    }

    /// Flits each router output port has sent so far, indexed by port (`None` where the fabric
    /// does not count them).
    fn port_flits(&self) -> Option<Vec<u64>> {
        None
    }

    /// Whether its inputs keep a queue per destination with room of its own, or may hold
    /// back single destinations, which senders (NICs included) must ask
    /// [`admits`](Self::admits) about before starting a packet.
    fn room_per_destination(&self) -> bool {
        false
    }

    /// Hands `wake` the nodes whose adapters may send again because the fabric lifted a
    /// hold that [`admits`](Self::admits) reported (no credits came back with it).
    fn wake_adapters(&mut self, _wake: &mut dyn FnMut(usize)) {}

    /// Counts of what the fabric did over the run, by name (reported beside the mechanism's).
    fn counts(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// The fabric's named values now, for the time series (beside the mechanism's gauges).
    fn gauges(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// Flits of the packets the switches sent themselves ([`Notice`](crate::hooks::Notice)s)
    /// that have started to leave: they entered the network without a NIC.
    fn originated_flits(&self) -> u64 {
        0
    }

    /// Flits of the packets being sent as trains: they hold their room in their input buffer
    /// until their last block has left, and are on their way downstream already (so the flit
    /// count of the whole network takes them once).
    fn departing_flits(&self) -> u64 {
        0
    }

    /// Input VC buffers of `port` with no free slot.
    fn full_buffers(&self, port: PortId) -> u32 {
        (0..self.vcs())
            .filter(|&vc| self.input_occupancy(port, vc) == self.buffer_credits())
            .count() as u32
    }

    /// Blocks queued for output `port` on lane `vl` at every input of its switch (a buffered
    /// switch keeping Port VL counts; 0 otherwise).
    fn port_vl_queued(&self, _port: PortId, _vl: usize) -> u32 {
        0
    }

    /// Flits buffered at the input of `port`, and the room there.
    fn port_occupancy(&self, port: PortId) -> (u64, u64) {
        let held = (0..self.vcs())
            .map(|vc| u64::from(self.input_occupancy(port, vc)))
            .sum();
        (held, self.vcs() as u64 * u64::from(self.buffer_credits()))
    }

    /// Checks the fabric's own bookkeeping at the end of cycle `now` against the flits and
    /// credits `in_flight`, the flits each NIC receive slot holds (`nic_held`, by slot
    /// relative to the first NIC slot) and the live packets; describes the first violation
    /// found.
    fn check(
        &self,
        now: u64,
        in_flight: &InFlight,
        nic_held: &dyn Fn(usize) -> u64,
        packets: &PacketSlab,
    ) -> Result<(), String>;
}
