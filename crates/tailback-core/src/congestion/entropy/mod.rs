//! Entropy throttling (Yokota, Ootsu and Ohkawa, IEICE Trans. 2016): nodes stop starting packets
//! while the global *packet mobility ratio* is low.
//!
//! **Mobility counters.** Every cycle each router counts its *valid* input VC buffers `Nv_i` —
//! those holding at least one flit when its switch runs, i.e. nonempty at the end of the cycle or
//! emptied by a departure during it — and its *active* buffers `Na_i`, the valid buffers a flit
//! left through the switch (or the deadlock-recovery lane) in that cycle. All input ports count,
//! the injection port included. `Ra = Na / Nv` (1 when `Nv = 0`).
//!
//! **Circuit.** The totals `Nv` and `Na` reach the routers through the [`circuit`] (or, ideally,
//! exactly and at once); a router's view of cycle `t` decides its node's mode for cycle `t + 1`.
//!
//! **Decision**, per node every cycle, with thresholds in percent: forced release (mode OFF)
//! while `Nv < r_n * Nr`; otherwise an OFF node turns ON when `Ra < r_on` and an ON node turns
//! OFF when `Ra >= r_off`. `base(r_th)` is the case `r_on = r_off = r_th` (ON exactly while
//! `Ra < r_th`). A node checks its mode only when it is about to start a packet; a packet being
//! injected is never interrupted. The guard-time models also keep a node from starting a packet
//! for a guard time after its previous packet's tail left (fixed, or uniform in `[0, 2 tG]`
//! from the node's own random stream).

mod circuit;

/// Worst-case cycles for a change in one router's counts to reach every router over the
/// entropy circuit's dedicated wires on `shape` (the paper's "2N" on an N x N torus); on a
/// virtual control channel, longer by every cycle a link is busy with data.
pub fn refresh_cycles(shape: &CubeShape) -> u32 {
    circuit::Circuit::refresh_cycles(shape)
}

use rand::RngExt;

use super::registry::Registered;
use crate::config::Config;
use crate::config::{EntropyCircuit, EntropyConfig, EntropyModel};
use crate::hooks::{BufferEvent, CongestionControl, Context};
use crate::ids::{NodeId, RouterId};
use crate::rng::{self, Purpose, StreamRng};
use crate::topology::{CubeShape, Topology};
use crate::traffic::Offered;
use crate::view::NetworkView;

use circuit::{Circuit, pack, unpack};

/// The pause after each injection.
#[derive(Debug, Clone)]
enum Guard {
    None,
    Fixed(u64),
    /// Uniform in `[0, 2 * mean]`, one stream per node.
    Uniform {
        mean: u64,
        streams: Vec<StreamRng>,
    },
}

/// Per-router valid/active buffer counts of the current cycle.
#[derive(Debug, Clone)]
struct Mobility {
    /// Buffers holding at least one flit now.
    occupied: Vec<u32>,
    /// Buffers emptied by a departure this cycle.
    emptied: Vec<u32>,
    /// Buffers a flit left this cycle.
    active: Vec<u32>,
}

/// Whether a node is throttled after seeing `valid` and `active` buffers, given its mode `on`.
/// `start`, `stop` and `release` are `r_on`, `r_off` and `r_n` in percent.
#[inline]
fn throttle_mode(
    on: bool,
    valid: u64,
    active: u64,
    routers: u64,
    (start, stop, release): (u32, u32, u32),
) -> bool {
    if 100 * valid < u64::from(release) * routers {
        return false;
    }
    // Ra < r  <=>  100 Na < r Nv (false when Nv = 0, where Ra = 1).
    let below = |r: u32| 100 * active < u64::from(r) * valid;
    if on { below(stop) } else { below(start) }
}

/// Entropy throttling.
#[derive(Debug, Clone)]
pub struct EntropyThrottling {
    /// `(r_on, r_off, r_n)` in percent.
    thresholds: (u32, u32, u32),
    guard: Guard,
    mobility: Mobility,
    /// The register network (`None`: the ideal circuit).
    circuit: Option<Circuit>,
    /// Per router: packed counts of this cycle.
    profiles: Vec<u64>,
    /// Per router: its first global port.
    first_port: Vec<u32>,
    /// Per node: its router.
    node_router: Vec<u32>,
    /// Per node: throttling mode ON.
    throttled: Vec<bool>,
    throttled_nodes: usize,
    /// Per node: first cycle it may start a packet after its guard time.
    guard_until: Vec<u64>,
    /// Exact totals of the last cycle: (valid, active).
    totals: (u64, u64),
    throttled_node_cycles: u64,
}

/// The entropy circuit's worst-case refresh on idle links (none with the ideal circuit).
impl Registered for EntropyThrottling {
    type Settings = EntropyConfig;
    type Control = EntropyThrottling;

    fn staleness(entropy: &EntropyConfig, topology: &Topology) -> Option<(String, u64)> {
        let cube = topology.cube()?;
        (entropy.circuit != EntropyCircuit::Ideal).then(|| {
            (
                "entropy circuit refresh, worst case on idle links".into(),
                u64::from(refresh_cycles(cube)),
            )
        })
    }

    fn build(entropy: &EntropyConfig, cfg: &Config, topology: &Topology) -> EntropyThrottling {
        EntropyThrottling::new(entropy, topology, cfg.seed)
    }
}

impl EntropyThrottling {
    /// Entropy throttling on `topology` (a k-ary n-cube), with random guard times drawn from
    /// streams of `seed`.
    pub fn new(settings: &EntropyConfig, topology: &Topology, seed: u64) -> EntropyThrottling {
        let (start, stop) = settings.thresholds();
        let nodes = topology.node_count();
        let routers = topology.router_count();
        let mean = u64::from(settings.guard_time.unwrap_or(0));
        let guard = match settings.model {
            EntropyModel::Base | EntropyModel::Hyst => Guard::None,
            EntropyModel::GtX => Guard::Fixed(mean),
            EntropyModel::GtA => Guard::Uniform {
                mean,
                streams: (0..nodes as u64)
                    .map(|n| rng::stream(seed, n, Purpose::Throttling))
                    .collect(),
            },
        };
        let circuit = match settings.circuit {
            EntropyCircuit::Ideal => None,
            EntropyCircuit::Registers => Some(Circuit::new(topology, false)),
            EntropyCircuit::Vcc => Some(Circuit::new(topology, true)),
        };
        EntropyThrottling {
            thresholds: (start, stop, settings.r_n),
            guard,
            mobility: Mobility {
                occupied: vec![0; routers],
                emptied: vec![0; routers],
                active: vec![0; routers],
            },
            circuit,
            profiles: vec![0; routers],
            first_port: (0..routers)
                .map(|r| topology.router_ports(RouterId::new(r)).start as u32)
                .collect(),
            node_router: (0..nodes)
                .map(|n| {
                    let port = topology.injection_port(NodeId::new(n));
                    topology.ports()[port.index()].router.index() as u32
                })
                .collect(),
            throttled: vec![false; nodes],
            throttled_nodes: 0,
            guard_until: vec![0; nodes],
            totals: (0, 0),
            throttled_node_cycles: 0,
        }
    }
}

impl CongestionControl for EntropyThrottling {
    const BUFFER_EVENTS: bool = true;
    const PER_CYCLE: bool = true;
    const GAUGES: &'static [&'static str] = &[
        "threshold",
        "estimate",
        "valid_per_router",
        "throttled_nodes",
    ];

    #[inline]
    fn may_start_injection(
        &mut self,
        cx: &mut Context<'_>,
        _view: &NetworkView<'_>,
        node: NodeId,
        _packet: &Offered,
    ) -> bool {
        let now = cx.now;
        let n = node.index();
        let allowed = !self.throttled[n] && now >= self.guard_until[n];
        self.throttled_node_cycles += u64::from(!allowed);
        allowed
    }

    fn on_injection_done(&mut self, cx: &mut Context<'_>, node: NodeId) {
        let now = cx.now;
        let pause = match &mut self.guard {
            Guard::None => return,
            Guard::Fixed(t) => *t,
            Guard::Uniform { mean, streams } => streams[node.index()].random_range(0..=2 * *mean),
        };
        self.guard_until[node.index()] = now + 1 + pause;
    }

    #[inline]
    fn on_enqueue(&mut self, _cx: &mut Context<'_>, event: BufferEvent) {
        if event.occupancy == 1 {
            self.mobility.occupied[event.router.index()] += 1;
        }
    }

    #[inline]
    fn on_dequeue(&mut self, cx: &mut Context<'_>, event: BufferEvent) {
        let now = cx.now;
        let r = event.router.index();
        let m = &mut self.mobility;
        m.active[r] += 1;
        if event.occupancy == 0 {
            m.occupied[r] -= 1;
            m.emptied[r] += 1;
        }
        if let (Some(circuit), Some(port)) = (&mut self.circuit, event.out_port)
            && circuit.steals_cycles()
        {
            circuit.link_busy(self.first_port[r] as usize + port as usize, now);
        }
    }

    fn end_of_cycle(&mut self, cx: &mut Context<'_>, _view: &NetworkView<'_>) {
        let now = cx.now;
        let m = &mut self.mobility;
        let (mut valid, mut active) = (0u64, 0u64);
        for (r, profile) in self.profiles.iter_mut().enumerate() {
            let v = m.occupied[r] + std::mem::take(&mut m.emptied[r]);
            let a = std::mem::take(&mut m.active[r]);
            valid += u64::from(v);
            active += u64::from(a);
            *profile = pack(v, a);
        }
        self.totals = (valid, active);
        let routers = self.profiles.len() as u64;
        let mut on_count = 0;
        match &mut self.circuit {
            None => {
                for on in &mut self.throttled {
                    *on = throttle_mode(*on, valid, active, routers, self.thresholds);
                    on_count += usize::from(*on);
                }
            }
            Some(circuit) => {
                circuit.step(&self.profiles, now);
                for (on, &r) in self.throttled.iter_mut().zip(&self.node_router) {
                    let (v, a) = unpack(circuit.total_at(r as usize));
                    *on = throttle_mode(*on, v, a, routers, self.thresholds);
                    on_count += usize::from(*on);
                }
            }
        }
        self.throttled_nodes = on_count;
    }

    fn throttled_node_cycles(&self) -> u64 {
        self.throttled_node_cycles
    }

    fn gauges(&self, _now: u64, values: &mut [Option<f64>]) {
        let (valid, active) = self.totals;
        let routers = self.profiles.len() as f64;
        let ratio = if valid == 0 {
            1.0
        } else {
            active as f64 / valid as f64
        };
        values.copy_from_slice(&[
            Some(f64::from(self.thresholds.0) / 100.0),
            Some(ratio),
            Some(valid as f64 / routers),
            Some(self.throttled_nodes as f64 / self.throttled.len() as f64),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTERS: u64 = 100;

    /// Equal start and stop thresholds make the hysteresis rule the base rule, in every state.
    #[test]
    fn equal_thresholds_reproduce_base() {
        for th in [0, 5, 50, 90, 100] {
            for valid in 0..60u64 {
                for active in 0..=valid {
                    let base = throttle_mode(false, valid, active, ROUTERS, (th, th, 30));
                    let base_on = throttle_mode(true, valid, active, ROUTERS, (th, th, 30));
                    assert_eq!(base, base_on, "base has no memory");
                    let ra = if valid == 0 {
                        1.0
                    } else {
                        active as f64 / valid as f64
                    };
                    let expected = valid >= 30 && ra < th as f64 / 100.0;
                    assert_eq!(base, expected, "th {th}, valid {valid}, active {active}");
                }
            }
        }
    }

    #[test]
    fn hysteresis_holds_between_the_thresholds() {
        let t = (70, 90, 0);
        // Ra = 0.8: stays in whatever mode the node is in.
        assert!(!throttle_mode(false, 10, 8, ROUTERS, t));
        assert!(throttle_mode(true, 10, 8, ROUTERS, t));
        // Below r_on: on; at r_off: off.
        assert!(throttle_mode(false, 10, 6, ROUTERS, t));
        assert!(!throttle_mode(true, 10, 9, ROUTERS, t));
        // Forced release below r_n percent of the routers.
        assert!(!throttle_mode(true, 10, 0, ROUTERS, (70, 90, 11)));
        assert!(throttle_mode(true, 11, 0, ROUTERS, (70, 90, 11)));
    }
}
