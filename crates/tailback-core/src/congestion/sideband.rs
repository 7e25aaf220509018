//! The side-band network that gives every node a global view (Thottethodi et al., section 3.1).
//!
//! **Dimension-wise aggregation**: at the end of every gather period of `g` cycles each node
//! samples its counters and sends them both ways along dimension 0; after `k/2` hops of `h`
//! cycles (a whole line, `k - 1` hops, on a mesh) every node holds its ring's totals. The rings'
//! totals then travel along dimension 1, and so on, so after `g = h * sum(k_d / 2)` cycles every
//! node holds the global totals of the sample: each node sees a `g`-cycle-old snapshot every `g`
//! cycles. The exchange is computed hop by hop on per-node registers (so the aggregation itself
//! is exercised), and its result is delivered `g` cycles after the sample.
//!
//! **Ideal**: the exact totals at the end of every cycle, with no delay (plain sums: there is
//! no network to model).

use std::collections::VecDeque;

use crate::config::{SidebandKind, sideband_hops};
use crate::topology::CubeShape;

/// Global totals of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// The cycle at whose end the counters were sampled.
    pub taken: u64,
    /// Full VC buffers in the network.
    pub full_buffers: u64,
    /// Flits delivered during the gather period that ended with the sample.
    pub delivered_flits: u64,
}

/// The side-band network.
#[derive(Debug, Clone)]
pub struct SideBand {
    kind: SidebandKind,
    shape: CubeShape,
    /// Cycles between samples, and from a sample to its delivery.
    period: u64,
    delay: u64,
    /// Samples on their way: (delivery cycle, totals).
    in_flight: VecDeque<(u64, Snapshot)>,
    /// Per-node registers of the aggregation.
    full: Vec<u64>,
    delivered: Vec<u64>,
    scratch: Vec<u64>,
}

impl SideBand {
    /// A side-band of the given kind over `shape` with neighbour-to-neighbour delay `hop_delay`.
    pub fn new(kind: SidebandKind, shape: &CubeShape, hop_delay: u32) -> SideBand {
        let gather = Self::gather_duration(shape, hop_delay);
        let (period, delay) = match kind {
            SidebandKind::Dimensionwise => (gather, gather),
            SidebandKind::Ideal => (1, 0),
        };
        let nodes = shape.nodes();
        SideBand {
            kind,
            shape: shape.clone(),
            period,
            delay,
            in_flight: VecDeque::new(),
            full: vec![0; nodes],
            delivered: vec![0; nodes],
            scratch: vec![0; nodes],
        }
    }

    /// The gather duration `g = h * sum over dimensions of the hops to aggregate`.
    pub fn gather_duration(shape: &CubeShape, hop_delay: u32) -> u64 {
        hop_delay as u64 * sideband_hops(shape.dims(), shape.wraps()) as u64
    }

    /// Cycles between samples.
    pub fn period(&self) -> u64 {
        self.period
    }

    /// The end of cycle `now`: samples the per-node counters if a gather period ends now
    /// (`full_buffers[node]`, and `delivered[node]`, which is reset), and returns the snapshot
    /// delivered now, if any.
    pub fn end_of_cycle(
        &mut self,
        now: u64,
        full_buffers: &[u32],
        delivered: &mut [u64],
    ) -> Option<Snapshot> {
        if (now + 1).is_multiple_of(self.period) {
            let (full_buffers, delivered_flits) = match self.kind {
                SidebandKind::Ideal => (
                    full_buffers.iter().map(|&c| c as u64).sum(),
                    delivered.iter().sum(),
                ),
                SidebandKind::Dimensionwise => {
                    for (register, &count) in self.full.iter_mut().zip(full_buffers) {
                        *register = count as u64;
                    }
                    self.delivered.copy_from_slice(delivered);
                    (
                        self.aggregate(Register::Full),
                        self.aggregate(Register::Delivered),
                    )
                }
            };
            delivered.fill(0);
            let snapshot = Snapshot {
                taken: now,
                full_buffers,
                delivered_flits,
            };
            self.in_flight.push_back((now + self.delay, snapshot));
        }
        match self.in_flight.front() {
            Some(&(due, snapshot)) if due <= now => {
                self.in_flight.pop_front();
                Some(snapshot)
            }
            _ => None,
        }
    }

    /// Runs the dimension-wise exchange on one register and returns the total every node ends
    /// with (they all agree).
    fn aggregate(&mut self, which: Register) -> u64 {
        let values = match which {
            Register::Full => &mut self.full,
            Register::Delivered => &mut self.delivered,
        };
        for d in 0..self.shape.n() {
            let k = self.shape.dims()[d] as i64;
            let wrap = self.shape.wraps();
            let hops = if wrap { k / 2 } else { k - 1 };
            for node in 0..values.len() {
                let c = self.shape.coord(node, d) as i64;
                let mut sum = values[node];
                for i in 1..=hops {
                    // Hop i brings the register of the node i places away on each side; on an
                    // even ring the node k/2 away arrives from both sides and counts once.
                    for step in [i, -i] {
                        let far = c + step;
                        let reachable = wrap || (0..k).contains(&far);
                        let duplicate = wrap && step < 0 && 2 * i == k;
                        if reachable && !duplicate {
                            sum += values[self.shape.offset(node, d, step)];
                        }
                    }
                }
                self.scratch[node] = sum;
            }
            values.copy_from_slice(&self.scratch);
        }
        debug_assert!(values.iter().all(|&v| v == values[0]));
        values[0]
    }
}

/// The two registers the side-band aggregates.
#[derive(Debug, Clone, Copy)]
enum Register {
    Full,
    Delivered,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(shape: CubeShape, kind: SidebandKind) {
        let nodes = shape.nodes();
        let mut band = SideBand::new(kind, &shape, 2);
        let g = band.period();
        let mut delivered = vec![0u64; nodes];
        let mut since_sample = 0u64;
        let mut samples = std::collections::BTreeMap::new();
        let mut received = 0;
        for now in 0..20 * g.max(1) {
            // Counters change every cycle, differently at every node.
            let full: Vec<u32> = (0..nodes)
                .map(|n| ((now as usize * 7 + n * 13) % 11) as u32)
                .collect();
            for (n, d) in delivered.iter_mut().enumerate() {
                *d += ((now as usize + n) % 3) as u64;
                since_sample += ((now as usize + n) % 3) as u64;
            }
            if (now + 1) % g == 0 {
                let total_full: u64 = full.iter().map(|&f| f as u64).sum();
                samples.insert(now, (total_full, since_sample));
                since_sample = 0;
            }
            if let Some(snapshot) = band.end_of_cycle(now, &full, &mut delivered) {
                received += 1;
                let expected_delay = if kind == SidebandKind::Ideal { 0 } else { g };
                assert_eq!(
                    now,
                    snapshot.taken + expected_delay,
                    "delivered g cycles after sampling"
                );
                let (full, flits) = samples[&snapshot.taken];
                assert_eq!(
                    (snapshot.full_buffers, snapshot.delivered_flits),
                    (full, flits)
                );
            }
        }
        assert!(received >= 18, "a snapshot every g cycles ({received})");
    }

    #[test]
    fn dimensionwise_delivers_the_exact_totals_g_cycles_late() {
        // g = h * sum(k/2): 2 * (4 + 4) = 16 on an 8x8 torus; odd and mixed radices too.
        assert_eq!(
            SideBand::gather_duration(&CubeShape::new(vec![8, 8], true), 2),
            16
        );
        assert_eq!(
            SideBand::gather_duration(&CubeShape::new(vec![16, 16], true), 2),
            32
        );
        run(
            CubeShape::new(vec![8, 8], true),
            SidebandKind::Dimensionwise,
        );
        run(
            CubeShape::new(vec![5, 4], true),
            SidebandKind::Dimensionwise,
        );
        run(
            CubeShape::new(vec![3, 4, 2], true),
            SidebandKind::Dimensionwise,
        );
        run(
            CubeShape::new(vec![4, 3], false),
            SidebandKind::Dimensionwise,
        );
    }

    #[test]
    fn ideal_delivers_every_cycle_without_delay() {
        run(CubeShape::new(vec![4, 4], true), SidebandKind::Ideal);
    }
}
