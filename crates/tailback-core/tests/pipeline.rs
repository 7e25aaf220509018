//! Router pipeline timing under load: a head flit that wins an output VC may bid for the switch
//! only `vc_alloc_delay` cycles later — also when the output VC it won had no credit yet and a
//! credit returns before the delay has passed (a wormhole output VC is released when the
//! previous packet's tail leaves, possibly while the downstream buffer is still full).

mod common;

use common::checked_config;
use tailback_core::hooks::{CongestionControl, Context, ForwardEvent};
use tailback_core::ids::PortId;
use tailback_core::packet::Packet;
use tailback_core::sim::Simulation;
use tailback_core::topology::{Link, Topology};
use tailback_core::view::NetworkView;

/// Watches output VC allocations (free -> allocated between two ends of cycle) and checks every
/// head flit switched onto an output VC against the cycle that VC was allocated.
struct AllocationWatch {
    topology: Topology,
    vcs: usize,
    vc_alloc_delay: u64,
    /// Per (global port, VC): free at the end of the previous cycle.
    was_free: Vec<bool>,
    /// Per (global port, VC): cycle of the latest allocation.
    allocated_at: Vec<Option<u64>>,
    /// Allocations of an output VC that had no credit at the time.
    creditless_allocations: u64,
    forwards: u64,
    /// (cycle of the forward, cycle of the allocation) of heads switched too early.
    early: Vec<(u64, u64)>,
}

impl AllocationWatch {
    fn new(topology: Topology, vcs: usize, vc_alloc_delay: u64) -> Self {
        let slots = topology.ports().len() * vcs;
        AllocationWatch {
            topology,
            vcs,
            vc_alloc_delay,
            was_free: vec![true; slots],
            allocated_at: vec![None; slots],
            creditless_allocations: 0,
            forwards: 0,
            early: Vec::new(),
        }
    }
}

impl CongestionControl for AllocationWatch {
    const FORWARD_EVENTS: bool = true;
    const PER_CYCLE: bool = true;

    fn end_of_cycle(&mut self, cx: &mut Context<'_>, view: &NetworkView<'_>) {
        let now = cx.now;
        // With a VC-allocation delay of at least one cycle, a head cannot win its output VC and
        // leave in the same cycle, so every allocation is visible at the end of its cycle.
        for (p, port) in self.topology.ports().iter().enumerate() {
            if port.output == Link::None {
                continue;
            }
            for vc in 0..self.vcs {
                let free = view.output_vc_free(PortId::new(p), vc);
                let i = p * self.vcs + vc;
                if self.was_free[i] && !free {
                    self.allocated_at[i] = Some(now);
                    if view.output_credits(PortId::new(p), vc) == 0 {
                        self.creditless_allocations += 1;
                    }
                }
                self.was_free[i] = free;
            }
        }
    }

    fn on_forward(&mut self, cx: &mut Context<'_>, event: ForwardEvent, _packet: &mut Packet) {
        let now = cx.now;
        self.forwards += 1;
        let port = self.topology.router_ports(event.router).start + event.out_port as usize;
        let allocated = self.allocated_at[port * self.vcs + event.out_vc as usize]
            .expect("a head is only switched onto an allocated output VC");
        if now < allocated + self.vc_alloc_delay {
            self.early.push((now, allocated));
        }
    }
}

fn check_vc_alloc_delay(vc_alloc_delay: u32, buffer: u32, ejection_rate: f64, allocator: &str) {
    // Small buffers, heavy load and (optionally) slow ejection keep downstream buffers full, so
    // output VCs are often granted without a credit.
    let cfg = checked_config(&format!(
        "[topology]\nk = 4\n\
         [router]\nvcs = 2\nvc_buffer_flits = {buffer}\nvc_alloc_delay = {vc_alloc_delay}\n\
         allocator = \"{allocator}\"\n\
         [nic]\nejection_rate = {ejection_rate}\n\
         [traffic]\nrate = 0.8\npacket_flits = 4\n"
    ));
    let watch = AllocationWatch::new(Topology::from_config(&cfg), 2, vc_alloc_delay as u64);
    let mut sim = Simulation::with_control(&cfg, watch).unwrap();
    sim.run_until(2_000);
    let watch = sim.control();
    let case = format!(
        "vc_alloc_delay {vc_alloc_delay}, {buffer}-flit buffers, ejection rate {ejection_rate}, \
         {allocator}"
    );
    assert!(
        watch.forwards > 1_000,
        "{case}: too little traffic to test anything"
    );
    assert!(
        watch.creditless_allocations > 0,
        "{case}: no output VC was granted without a credit; the scenario is not exercised"
    );
    assert!(
        watch.early.is_empty(),
        "{case}: {} of {} heads switched before the VC-allocation delay had passed \
         (first (forward cycle, allocation cycle): {:?})",
        watch.early.len(),
        watch.forwards,
        &watch.early[..watch.early.len().min(5)]
    );
}

#[test]
fn heads_wait_the_vc_allocation_delay_even_when_granted_a_creditless_vc() {
    for (delay, buffer, ejection_rate) in [(1, 2, 0.5), (2, 2, 1.0), (3, 2, 0.5), (3, 8, 1.0)] {
        for allocator in ["separable", "islip"] {
            check_vc_alloc_delay(delay, buffer, ejection_rate, allocator);
        }
    }
}
