//! Per-flow throughput (`record.flows`): flits delivered per (source, destination) pair, over
//! the measurement window and per series window, and the fairness measures researchers compare
//! flows by.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The throughput of one flow (a source–destination pair with delivered packets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowStats {
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Flits delivered in the measurement window, per cycle of the window.
    pub accepted: f64,
    /// Measured packets of the flow delivered after a later one of it (overtaken on another
    /// route or lane).
    #[serde(default)]
    pub out_of_order: u64,
    /// Flits delivered per cycle in each series window (window `i` covers cycles
    /// `i * w .. (i + 1) * w`); empty without a time series.
    pub windows: Vec<f64>,
    /// The mechanism's value for the flow (its `flow_gauge`, e.g. IB CC's CCTI) at the end of
    /// each series window (`None` before the flow's first delivery); empty without one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauge: Vec<Option<f64>>,
}

/// What the log keeps of one flow.
#[derive(Debug, Default)]
struct FlowEntry {
    /// Flits delivered in the measurement window.
    measured: u64,
    /// Measured packets delivered out of order.
    out_of_order: u64,
    /// Flits delivered in each series window.
    windows: Vec<u64>,
    /// The mechanism's value at the end of each series window so far.
    gauge: Vec<Option<f64>>,
}

/// Counts delivered flits per flow while a run goes on.
#[derive(Debug, Default)]
pub(crate) struct FlowLog {
    /// By (source, destination).
    flows: BTreeMap<(u32, u32), FlowEntry>,
    /// Series window (0: totals only).
    window: u64,
}

impl FlowLog {
    pub(crate) fn new(window: u64) -> FlowLog {
        FlowLog {
            window,
            ..FlowLog::default()
        }
    }

    /// `flits` of flow `src`→`dst` were delivered at `now` (`measured`: inside the window;
    /// `late`: a measured packet overtaken by a later one of the flow).
    pub(crate) fn add(
        &mut self,
        src: u32,
        dst: u32,
        flits: u32,
        now: u64,
        measured: bool,
        late: bool,
    ) {
        let entry = self.flows.entry((src, dst)).or_default();
        if measured {
            entry.measured += u64::from(flits);
        }
        entry.out_of_order += u64::from(late);
        if let Some(i) = now.checked_div(self.window) {
            let i = i as usize;
            if entry.windows.len() <= i {
                entry.windows.resize(i + 1, 0);
            }
            entry.windows[i] += u64::from(flits);
        }
    }

    /// Series window `window` is over: records `value(src, dst)` for every flow seen so far.
    pub(crate) fn sample(&mut self, window: usize, value: impl Fn(u32, u32) -> f64) {
        for (&(src, dst), entry) in &mut self.flows {
            entry.gauge.resize(window, None);
            entry.gauge.push(Some(value(src, dst)));
        }
    }

    /// Every flow's throughput, by source then destination; `window_cycles` is the length of the
    /// measurement window and `windows` the number of series windows the run covered.
    pub(crate) fn report(&self, window_cycles: u64, windows: usize) -> Vec<FlowStats> {
        let per_cycle = |flits: u64, cycles: u64| flits as f64 / cycles.max(1) as f64;
        self.flows
            .iter()
            .map(|(&(src, dst), entry)| {
                let mut series: Vec<f64> = entry
                    .windows
                    .iter()
                    .map(|&f| per_cycle(f, self.window))
                    .collect();
                series.resize(windows.max(series.len()), 0.0);
                let mut gauge = entry.gauge.clone();
                if !gauge.is_empty() {
                    gauge.resize(series.len(), None);
                }
                FlowStats {
                    src,
                    dst,
                    accepted: per_cycle(entry.measured, window_cycles),
                    out_of_order: entry.out_of_order,
                    windows: if self.window > 0 { series } else { Vec::new() },
                    gauge,
                }
            })
            .collect()
    }
}

/// Jain's fairness index of `rates`: 1 when all are equal, 1/n when one takes everything
/// (`None` for no rates or all zero).
pub fn jain_index(rates: &[f64]) -> Option<f64> {
    let sum: f64 = rates.iter().sum();
    let squares: f64 = rates.iter().map(|r| r * r).sum();
    (squares > 0.0).then(|| sum * sum / (rates.len() as f64 * squares))
}

/// Each rate's share of their total (`None` when the total is zero).
pub fn shares(rates: &[f64]) -> Option<Vec<f64>> {
    let sum: f64 = rates.iter().sum();
    (sum > 0.0).then(|| rates.iter().map(|r| r / sum).collect())
}

/// Gran et al.'s treatment variation (Var): over sampling instants, the variance of the spread
/// `max − min` of the flows' rates; `samples[i]` holds the flows' rates at instant `i`
/// (`None` for fewer than two instants).
pub fn treatment_variation(samples: &[Vec<f64>]) -> Option<f64> {
    if samples.len() < 2 {
        return None;
    }
    let spreads: Vec<f64> = samples
        .iter()
        .map(|rates| {
            let max = rates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
            max - min
        })
        .collect();
    let mean = spreads.iter().sum::<f64>() / spreads.len() as f64;
    Some(spreads.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / spreads.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_for_equal_and_one_over_n_for_a_monopoly() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), Some(1.0));
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn flows_count_measured_flits_windows_and_overtaken_packets() {
        let mut log = FlowLog::new(10);
        log.add(1, 0, 4, 5, false, false);
        log.add(1, 0, 4, 15, true, true);
        log.add(2, 0, 8, 25, true, false);
        let flows = log.report(20, 3);
        assert_eq!(flows.len(), 2);
        assert_eq!((flows[0].src, flows[0].accepted), (1, 0.2));
        assert_eq!((flows[0].out_of_order, flows[1].out_of_order), (1, 0));
        assert_eq!(flows[0].windows, vec![0.4, 0.4, 0.0]);
        assert_eq!(flows[1].windows, vec![0.0, 0.0, 0.8]);
    }

    #[test]
    fn flow_gauges_are_sampled_per_window_from_the_first_delivery() {
        let mut log = FlowLog::new(10);
        log.add(1, 0, 4, 5, false, false);
        log.sample(0, |src, _| f64::from(src));
        log.add(2, 0, 4, 15, true, false);
        log.sample(1, |src, _| f64::from(src) * 10.0);
        let flows = log.report(20, 3);
        assert_eq!(flows[0].gauge, vec![Some(1.0), Some(10.0), None]);
        assert_eq!(flows[1].gauge, vec![None, Some(20.0), None]);
    }
}
