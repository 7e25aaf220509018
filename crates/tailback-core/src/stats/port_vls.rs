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
