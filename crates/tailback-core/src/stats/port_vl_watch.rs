//! Where a congestion tree stands (`record.congested_port_vls`): every buffered switch's Port
//! VLs sampled over the second half of the measurement window, each judged congested when the
//! blocks queued for it at its switch's inputs are at least half an input pool at every sample.

use serde::{Deserialize, Serialize};

/// A Port VL: an output port of a buffered switch and a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortVl {
    /// The switch (router index).
    pub switch: u32,
    /// The output port, local to the switch.
    pub port: u8,
    /// The virtual lane.
    pub vl: u8,
}

/// How full one Port VL was over the watched span.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PortVlLoad {
    /// The Port VL.
    #[serde(flatten)]
    pub at: PortVl,
    /// Share of the samples at which its queued blocks were at least half an input pool (1:
    /// congested all along).
    pub congested: f64,
    /// Its queued blocks, mean over the samples, as a fraction of an input pool (above 1 when
    /// several inputs queue for it).
    pub queued: f64,
    /// Its most blocks queued at any sample, as a fraction of an input pool.
    #[serde(default)]
    pub peak: f64,
}

/// The load of every Port VL of a network's buffered switches over the watched span: the map
/// of a congestion tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PortVlMap {
    /// Ports of each switch, by router index.
    pub ports: Vec<u8>,
    /// The Port VLs that had a block queued at some sample, by switch, port and lane (the
    /// others were empty throughout).
    pub loads: Vec<PortVlLoad>,
}

impl PortVlMap {
    /// Per switch (rows) and port (columns, `max` of [`ports`](Self::ports)), the largest
    /// `value` over the port's lanes: 0 for a port with nothing queued, NaN past a switch's
    /// last port. Row-major, switch 0 first.
    pub fn grid(&self, value: impl Fn(&PortVlLoad) -> f64) -> (usize, Vec<f64>) {
        let width = self.ports.iter().copied().max().unwrap_or(0) as usize;
        let mut cells: Vec<f64> = self
            .ports
            .iter()
            .flat_map(|&n| (0..width).map(move |p| if p < n as usize { 0.0 } else { f64::NAN }))
            .collect();
        for load in &self.loads {
            let cell = &mut cells[load.at.switch as usize * width + load.at.port as usize];
            *cell = cell.max(value(load));
        }
        (width, cells)
    }
}

/// Cycles between two samples of the Port VLs' queued blocks.
const WATCH_EVERY: u64 = 16;

/// Samples the Port VLs over a span of cycles, one sample every [`WATCH_EVERY`] cycles.
#[derive(Debug)]
pub(crate) struct PortVlWatch {
    from: u64,
    to: u64,
    pool: u32,
    vls: usize,
    /// Per (global port, lane): samples at which it was at least half a pool.
    at_half: Vec<u32>,
    /// Per (global port, lane): blocks queued, summed over the samples.
    queued: Vec<u64>,
    /// Per (global port, lane): the most blocks queued at a sample.
    peak: Vec<u32>,
    samples: u32,
}

impl PortVlWatch {
    /// A watch over cycles `from` to `to` (inclusive) of `ports` ports with `vls` lanes of
    /// `pool` blocks per input pool.
    pub(crate) fn new(from: u64, to: u64, ports: usize, vls: usize, pool: u32) -> PortVlWatch {
        PortVlWatch {
            from,
            to,
            pool,
            vls,
            at_half: vec![0; ports * vls],
            queued: vec![0; ports * vls],
            peak: vec![0; ports * vls],
            samples: 0,
        }
    }

    /// The first sample cycle from `now` on ([`u64::MAX`]: none).
    pub(crate) fn next_sample(&self, now: u64) -> u64 {
        let at = self.from.max(now).next_multiple_of(WATCH_EVERY);
        if at <= self.to { at } else { u64::MAX }
    }

    /// Samples at cycle `now` if it is a sample cycle: `queued(port, lane)` tells the blocks
    /// queued for a Port VL.
    pub(crate) fn sample(&mut self, now: u64, queued: impl Fn(usize, usize) -> u32) {
        if self.next_sample(now) != now {
            return;
        }
        self.samples += 1;
        let half = self.pool.div_ceil(2);
        let slots = self
            .at_half
            .iter_mut()
            .zip(&mut self.queued)
            .zip(&mut self.peak);
        for (i, ((at_half, sum), peak)) in slots.enumerate() {
            let blocks = queued(i / self.vls, i % self.vls);
            *at_half += u32::from(blocks >= half);
            *sum += u64::from(blocks);
            *peak = (*peak).max(blocks);
        }
    }

    /// The Port VL of sample slot `i`; `owners` gives each global port's switch and local index.
    fn port_vl(&self, i: usize, owners: &[(u32, u8)]) -> PortVl {
        let (switch, port) = owners[i / self.vls];
        PortVl {
            switch,
            port,
            vl: (i % self.vls) as u8,
        }
    }

    /// The Port VLs congested at every sample, by switch, port and lane; `owners` gives each
    /// global port's switch and local index.
    pub(crate) fn congested(&self, owners: &[(u32, u8)]) -> Vec<PortVl> {
        if self.samples == 0 {
            return Vec::new();
        }
        let mut found: Vec<PortVl> = (0..self.at_half.len())
            .filter(|&i| self.at_half[i] == self.samples)
            .map(|i| self.port_vl(i, owners))
            .collect();
        found.sort_by_key(|p| (p.switch, p.port, p.vl));
        found
    }

    /// The load of every Port VL that had a block queued; `owners` as for
    /// [`congested`](Self::congested), `ports` the ports of each switch.
    pub(crate) fn map(&self, owners: &[(u32, u8)], ports: Vec<u8>) -> PortVlMap {
        let samples = f64::from(self.samples.max(1));
        let mut loads: Vec<PortVlLoad> = (0..self.queued.len())
            .filter(|&i| self.queued[i] > 0)
            .map(|i| PortVlLoad {
                at: self.port_vl(i, owners),
                congested: f64::from(self.at_half[i]) / samples,
                queued: self.queued[i] as f64 / samples / f64::from(self.pool.max(1)),
                peak: f64::from(self.peak[i]) / f64::from(self.pool.max(1)),
            })
            .collect();
        loads.sort_by_key(|l| (l.at.switch, l.at.port, l.at.vl));
        PortVlMap { ports, loads }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_vl_is_congested_only_when_at_least_half_a_pool_at_every_sample() {
        // Two ports of one lane each, pools of 10 blocks (half: 5); samples at 0, 16 and 32.
        let mut watch = PortVlWatch::new(0, 40, 2, 1, 10);
        for (now, (a, b)) in [(0, (5, 9)), (16, (7, 4)), (32, (5, 0))] {
            watch.sample(now, |port, _| if port == 0 { a } else { b });
        }
        // Not a sample cycle: ignored.
        watch.sample(17, |_, _| 0);
        let owners = [(0, 0), (1, 3)];
        assert_eq!(
            watch.congested(&owners),
            vec![PortVl {
                switch: 0,
                port: 0,
                vl: 0
            }]
        );
        let map = watch.map(&owners, vec![1, 4]);
        assert_eq!(map.loads.len(), 2);
        assert_eq!(map.loads[0].congested, 1.0);
        assert!((map.loads[0].queued - 17.0 / 30.0).abs() < 1e-12);
        assert!((map.loads[1].congested - 1.0 / 3.0).abs() < 1e-12);
        assert!((map.loads[1].queued - 13.0 / 30.0).abs() < 1e-12);
        assert_eq!((map.loads[0].peak, map.loads[1].peak), (0.7, 0.9));
        // Switch 0 has one port, switch 1 four: the grid is 2 rows of 4.
        let (width, cells) = map.grid(|l| l.congested);
        assert_eq!(width, 4);
        assert_eq!(&cells[..1], &[1.0]);
        assert!(cells[1..4].iter().all(|c| c.is_nan()));
        assert_eq!(&cells[4..7], &[0.0, 0.0, 0.0]);
        assert!((cells[7] - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn nothing_is_congested_before_the_first_sample() {
        let watch = PortVlWatch::new(100, 200, 1, 1, 10);
        assert!(watch.congested(&[(0, 0)]).is_empty());
        assert_eq!(watch.next_sample(0), 112);
        assert_eq!(watch.next_sample(201), u64::MAX);
    }
}
