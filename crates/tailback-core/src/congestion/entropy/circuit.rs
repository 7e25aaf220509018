//! The entropy circuit: reduction and broadcast registers that bring the global valid/active
//! buffer counts to every router.
//!
//! Per router and per dimension there is a *reduce* register and a *broadcast* register. Along
//! each line of a dimension, the router at coordinate `k / 2` is the root; every other router's
//! parent is its neighbour one step closer to the root (around the ring on a torus, along the
//! line on a mesh). Each cycle every router latches its children's reduce registers and its
//! parent's broadcast register as they were at the end of the previous cycle (values move one
//! hop per cycle), then sets `reduce = input + latched children` and `broadcast = latched parent`
//! (the root: its own reduce). The input of dimension 0 is the router's own profile (its valid
//! and active buffer counts); the input of dimension `d > 0` is the broadcast of dimension
//! `d - 1`, the total of the router's line so far. The last dimension's broadcast register is
//! what the router reads. Registers update every cycle without any synchronisation, so a router
//! sees a total whose parts have different ages; a change anywhere reaches every router within
//! `2 * sum(k / 2)` cycles on a torus (`2N` on an N x N torus).
//!
//! With cycle stealing ([`Circuit::steal_cycles`]) a latch only loads in cycles in which no data
//! flit left on the link it listens to.
//!
//! Counts travel as one `u64` each, valid buffers in the high and active buffers in the low 32
//! bits, so one addition sums both.

use crate::topology::{CubeShape, Topology};

/// Packs valid and active buffer counts into one register word.
#[inline]
pub(super) fn pack(valid: u32, active: u32) -> u64 {
    (u64::from(valid) << 32) | u64::from(active)
}

/// Valid and active buffer counts of a register word.
#[inline]
pub(super) fn unpack(word: u64) -> (u64, u64) {
    (word >> 32, word & 0xFFFF_FFFF)
}

/// No neighbour: the index of the always-zero register slot.
const NONE: u32 = u32::MAX;

/// The registers of one dimension.
#[derive(Debug, Clone)]
struct Stage {
    /// Per router: the routers whose reduce registers it latches ([`NONE`] for none).
    children: Vec<[u32; 2]>,
    /// Per router: the router whose broadcast register it latches ([`NONE`] at the root).
    parent: Vec<u32>,
    /// Per router: the global output port each child sends on, for cycle stealing.
    child_links: Vec<[u32; 2]>,
    /// Per router: the global output port its parent sends on.
    parent_link: Vec<u32>,
    /// Latched reduce values of the children.
    child_latch: Vec<[u64; 2]>,
    /// Latched broadcast value of the parent.
    parent_latch: Vec<u64>,
    reduce: Vec<u64>,
    broadcast: Vec<u64>,
}

impl Stage {
    fn new(shape: &CubeShape, topology: &Topology, d: usize) -> Stage {
        let n = shape.nodes();
        let k = shape.dims()[d];
        let root = k / 2;
        // One step from coordinate `x` towards the root: (positive direction?, steps) or None.
        let toward_root = |x: u32| -> Option<bool> {
            if x == root {
                return None;
            }
            let up = (root + k - x) % k; // steps in the positive direction
            Some(if shape.wraps() {
                up <= k - up
            } else {
                x < root
            })
        };
        let port = |router: usize, positive: bool| -> u32 {
            let local = CubeShape::port_toward(d, positive) as usize;
            (topology
                .router_ports(crate::ids::RouterId::new(router))
                .start
                + local) as u32
        };
        let mut parent = vec![NONE; n];
        let mut parent_link = vec![NONE; n];
        let mut children = vec![[NONE; 2]; n];
        let mut child_links = vec![[NONE; 2]; n];
        for r in 0..n {
            let Some(positive) = toward_root(shape.coord(r, d)) else {
                continue;
            };
            let p = shape.offset(r, d, if positive { 1 } else { -1 });
            parent[r] = p as u32;
            // The parent broadcasts back along the opposite direction.
            parent_link[r] = port(p, !positive);
            let slot = usize::from(!positive);
            children[p][slot] = r as u32;
            child_links[p][slot] = port(r, positive);
        }
        Stage {
            children,
            parent,
            child_links,
            parent_link,
            child_latch: vec![[0; 2]; n],
            parent_latch: vec![0; n],
            reduce: vec![0; n],
            broadcast: vec![0; n],
        }
    }

    /// One cycle: latch the neighbours' registers of the previous cycle (unless their link is
    /// busy), then recompute from `input`.
    fn step(&mut self, input: &[u64], busy: impl Fn(u32) -> bool) {
        let n = self.parent.len();
        for r in 0..n {
            for slot in 0..2 {
                let c = self.children[r][slot];
                if c != NONE && !busy(self.child_links[r][slot]) {
                    self.child_latch[r][slot] = self.reduce[c as usize];
                }
            }
            let p = self.parent[r];
            if p != NONE && !busy(self.parent_link[r]) {
                self.parent_latch[r] = self.broadcast[p as usize];
            }
        }
        for (r, &own) in input.iter().enumerate().take(n) {
            let [a, b] = self.child_latch[r];
            self.reduce[r] = own + a + b;
            self.broadcast[r] = if self.parent[r] == NONE {
                self.reduce[r]
            } else {
                self.parent_latch[r]
            };
        }
    }
}

/// The register network of a k-ary n-cube.
#[derive(Debug, Clone)]
pub(super) struct Circuit {
    stages: Vec<Stage>,
    /// Latch only in cycles with no data flit on the link.
    steal_cycles: bool,
    /// Per global port: the last cycle a data flit left through it.
    link_used: Vec<u64>,
}

impl Circuit {
    /// The circuit of `topology` (a k-ary n-cube); `steal_cycles` makes it share the data links.
    pub(super) fn new(topology: &Topology, steal_cycles: bool) -> Circuit {
        let shape = topology
            .cube()
            .expect("validation allows the entropy circuit on k-ary n-cubes only");
        Circuit {
            stages: (0..shape.n())
                .map(|d| Stage::new(shape, topology, d))
                .collect(),
            steal_cycles,
            link_used: vec![u64::MAX; topology.ports().len()],
        }
    }

    /// Notes that a data flit left through global output port `port` in cycle `now`.
    #[inline]
    pub(super) fn link_busy(&mut self, port: usize, now: u64) {
        self.link_used[port] = now;
    }

    /// Whether the circuit needs to hear about data flits on links.
    pub(super) fn steals_cycles(&self) -> bool {
        self.steal_cycles
    }

    /// Advances every register by one cycle with the routers' `profiles` of cycle `now`.
    pub(super) fn step(&mut self, profiles: &[u64], now: u64) {
        let link_used = &self.link_used;
        let steal = self.steal_cycles;
        let busy = |port: u32| steal && link_used[port as usize] == now;
        let (first, rest) = self
            .stages
            .split_first_mut()
            .expect("a cube has at least one dimension");
        first.step(profiles, busy);
        let mut input = &first.broadcast;
        for stage in rest {
            stage.step(input, busy);
            input = &stage.broadcast;
        }
    }

    /// The packed counts router `r` reads.
    #[inline]
    pub(super) fn total_at(&self, r: usize) -> u64 {
        self.stages
            .last()
            .expect("a cube has at least one dimension")
            .broadcast[r]
    }

    /// Worst-case cycles for a change to reach every router over dedicated wires.
    /// (Along every line the farthest router is `k / 2` hops from the root, torus or mesh.)
    pub(crate) fn refresh_cycles(shape: &CubeShape) -> u32 {
        shape.dims().iter().map(|&k| 2 * (k / 2)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;

    fn topology(dims: &str, kind: &str) -> Topology {
        let cfg = Spec::from_toml_str(
            &format!("[topology]\nkind = \"{kind}\"\ndims = {dims}"),
            "<t>",
        )
        .unwrap();
        Topology::from_config(&cfg)
    }

    /// Steps the circuit with fixed profiles until every router reads the exact total; returns
    /// the number of cycles that took.
    fn cycles_to_converge(topology: &Topology, profiles: &[u64]) -> u64 {
        let mut circuit = Circuit::new(topology, false);
        let total: u64 = profiles.iter().sum();
        for now in 0..1000 {
            circuit.step(profiles, now);
            if (0..profiles.len()).all(|r| circuit.total_at(r) == total) {
                return now + 1;
            }
        }
        panic!("the circuit never converged");
    }

    #[test]
    fn every_router_reads_the_exact_total_within_the_refresh_time() {
        for (dims, kind) in [
            ("[32, 32]", "torus"),
            ("[8, 8]", "torus"),
            ("[5, 7]", "torus"),
            ("[6, 4]", "mesh"),
            ("[4, 4, 4]", "torus"),
        ] {
            let t = topology(dims, kind);
            let n = t.router_count();
            let profiles: Vec<u64> = (0..n as u32).map(|r| pack(r % 7 + 1, r % 3)).collect();
            let took = cycles_to_converge(&t, &profiles);
            let bound = Circuit::refresh_cycles(t.cube().unwrap()) as u64 + 1;
            assert!(took <= bound, "{dims} {kind}: {took} > {bound}");
            // A count at the router farthest from the roots takes the whole time.
            assert!(
                took + 3 >= bound,
                "{dims} {kind}: {took} much below {bound}"
            );
        }
    }

    #[test]
    fn a_change_reaches_near_routers_before_far_ones() {
        // 32 x 32 torus: one router's profile changes at cycle 0 after the circuit settled.
        let t = topology("[32, 32]", "torus");
        let n = t.router_count();
        let mut profiles = vec![pack(1, 1); n];
        let mut circuit = Circuit::new(&t, false);
        for now in 0..100 {
            circuit.step(&profiles, now);
        }
        let before = circuit.total_at(0);
        profiles[16 + 32 * 16] = pack(11, 1); // the root of both dimensions
        circuit.step(&profiles, 100);
        circuit.step(&profiles, 101);
        // The root reads it at once (its broadcast is its own reduce), a corner router only
        // after 16 + 16 broadcast hops.
        assert_ne!(circuit.total_at(16 + 32 * 16), before);
        assert_eq!(circuit.total_at(0), before);
        for now in 102..140 {
            circuit.step(&profiles, now);
        }
        assert_eq!(unpack(circuit.total_at(0)), (n as u64 + 10, n as u64));
    }

    #[test]
    fn cycle_stealing_holds_values_on_busy_links() {
        let t = topology("[8, 8]", "torus");
        let n = t.router_count();
        let profiles = vec![pack(2, 1); n];
        let mut stealing = Circuit::new(&t, true);
        // Every link busy in every cycle: nothing ever moves, routers see only the root's sums.
        for now in 0..100 {
            for port in 0..t.ports().len() {
                stealing.link_busy(port, now);
            }
            stealing.step(&profiles, now);
        }
        assert_eq!(unpack(stealing.total_at(0)), (0, 0));
        // Links free again: it converges like the dedicated circuit.
        for now in 100..200 {
            stealing.step(&profiles, now);
        }
        assert_eq!(unpack(stealing.total_at(0)), (2 * n as u64, n as u64));
    }
}
