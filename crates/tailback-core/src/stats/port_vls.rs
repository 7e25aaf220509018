//! Congestion per Port VL over time: for each output port and lane of a buffered switch that a
//! mechanism ever found congested, the fraction of each series window it spent in the
//! congestion state and the packets it marked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::hooks::PortVlTotals;

/// One Port VL's congestion over the run's series windows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PortVlSeries {
    /// The switch (router index).
    pub switch: u32,
    /// The output port, local to the switch.
    pub port: u8,
    /// The virtual lane.
    pub vl: u8,
    /// Fraction of each series window spent in the congestion state.
    pub congested: Vec<f64>,
    /// Packets marked in each series window.
    pub marks: Vec<u64>,
}

/// What the log keeps of one Port VL.
#[derive(Debug, Default)]
struct Entry {
    /// Totals at the end of the last window.
    congested_cycles: u64,
    marks: u64,
    /// Per window.
    congested: Vec<f64>,
    window_marks: Vec<u64>,
}

/// Turns the mechanism's running totals into per-window series.
#[derive(Debug)]
pub(crate) struct PortVlLog {
    window: u64,
    /// Per global port: its switch and local index.
    owners: Vec<(u32, u8)>,
    /// By (global port, lane).
    entries: BTreeMap<(usize, u8), Entry>,
}

impl PortVlLog {
    /// A log for windows of `window` cycles on ports owned as `owners` says.
    pub(crate) fn new(window: u64, owners: Vec<(u32, u8)>) -> PortVlLog {
        PortVlLog {
            window,
            owners,
            entries: BTreeMap::new(),
        }
    }

    /// Series window `index` is over; `totals` are the records at its end.
    pub(crate) fn record(&mut self, index: usize, totals: &[PortVlTotals]) {
        for t in totals {
            let entry = self.entries.entry((t.port.index(), t.vl)).or_default();
            entry.congested.resize(index, 0.0);
            entry.window_marks.resize(index, 0);
            entry
                .congested
                .push((t.congested_cycles - entry.congested_cycles) as f64 / self.window as f64);
            entry.window_marks.push(t.marks - entry.marks);
            entry.congested_cycles = t.congested_cycles;
            entry.marks = t.marks;
        }
    }

    /// Every Port VL's series over `windows` windows, by switch, port and lane.
    pub(crate) fn report(&self, windows: usize) -> Vec<PortVlSeries> {
        let mut series: Vec<PortVlSeries> = self
            .entries
            .iter()
            .map(|(&(port, vl), entry)| {
                let (switch, local) = self.owners[port];
                let mut congested = entry.congested.clone();
                congested.resize(windows, 0.0);
                let mut marks = entry.window_marks.clone();
                marks.resize(windows, 0);
                PortVlSeries {
                    switch,
                    port: local,
                    vl,
                    congested,
                    marks,
                }
            })
            .collect();
        series.sort_by_key(|s| (s.switch, s.port, s.vl));
        series
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PortId;

    fn totals(port: usize, congested_cycles: u64, marks: u64) -> PortVlTotals {
        PortVlTotals {
            port: PortId::new(port),
            vl: 0,
            congested_cycles,
            marks,
        }
    }

    #[test]
    fn windows_hold_the_increase_of_the_totals() {
        let mut log = PortVlLog::new(100, vec![(0, 0), (0, 1), (1, 0)]);
        log.record(0, &[totals(1, 40, 3)]);
        log.record(1, &[totals(1, 140, 5), totals(2, 25, 0)]);
        let series = log.report(3);
        assert_eq!(series.len(), 2);
        assert_eq!((series[0].switch, series[0].port), (0, 1));
        assert_eq!(series[0].congested, vec![0.4, 1.0, 0.0]);
        assert_eq!(series[0].marks, vec![3, 2, 0]);
        assert_eq!((series[1].switch, series[1].port), (1, 0));
        assert_eq!(series[1].congested, vec![0.0, 0.25, 0.0]);
    }
}

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

/// Cycles between two samples of the Port VLs' queued blocks.
const WATCH_EVERY: u64 = 16;

/// Finds the Port VLs congested over a span of cycles (`record.congested_port_vls`): those
/// whose blocks queued at the inputs of their switch are at least half an input pool at every
/// sample, one every [`WATCH_EVERY`] cycles.
#[derive(Debug)]
pub(crate) struct PortVlWatch {
    from: u64,
    to: u64,
    half_pool: u32,
    vls: usize,
    /// Per (global port, lane): congested at every sample so far.
    congested: Vec<bool>,
    samples: u64,
}

impl PortVlWatch {
    /// A watch over cycles `from` to `to` (inclusive) of `ports` ports with `vls` lanes of
    /// `pool` blocks per input pool.
    pub(crate) fn new(from: u64, to: u64, ports: usize, vls: usize, pool: u32) -> PortVlWatch {
        PortVlWatch {
            from,
            to,
            half_pool: pool.div_ceil(2),
            vls,
            congested: vec![true; ports * vls],
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
        for (i, congested) in self.congested.iter_mut().enumerate() {
            *congested = *congested && queued(i / self.vls, i % self.vls) >= self.half_pool;
        }
    }

    /// The Port VLs congested at every sample, by switch, port and lane; `owners` gives each
    /// global port's switch and local index.
    pub(crate) fn report(&self, owners: &[(u32, u8)]) -> Vec<PortVl> {
        if self.samples == 0 {
            return Vec::new();
        }
        let mut found: Vec<PortVl> = self
            .congested
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c)
            .map(|(i, _)| {
                let (switch, port) = owners[i / self.vls];
                PortVl {
                    switch,
                    port,
                    vl: (i % self.vls) as u8,
                }
            })
            .collect();
        found.sort_by_key(|p| (p.switch, p.port, p.vl));
        found
    }
}
