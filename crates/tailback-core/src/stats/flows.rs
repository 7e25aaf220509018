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
    /// Flits delivered per cycle in each series window (window `i` covers cycles
    /// `i * w .. (i + 1) * w`); empty without a time series.
    pub windows: Vec<f64>,
}

/// Counts delivered flits per flow while a run goes on.
#[derive(Debug, Default)]
pub(crate) struct FlowLog {
    /// By (source, destination): flits delivered in the measurement window, and per series
    /// window.
    flows: BTreeMap<(u32, u32), (u64, Vec<u64>)>,
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

    /// `flits` of flow `src`→`dst` were delivered at `now` (`measured`: inside the window).
    pub(crate) fn add(&mut self, src: u32, dst: u32, flits: u32, now: u64, measured: bool) {
        let (in_window, per_window) = self.flows.entry((src, dst)).or_default();
        if measured {
            *in_window += u64::from(flits);
        }
        if let Some(i) = now.checked_div(self.window) {
            let i = i as usize;
            if per_window.len() <= i {
                per_window.resize(i + 1, 0);
            }
            per_window[i] += u64::from(flits);
        }
    }

    /// Every flow's throughput, by source then destination; `window_cycles` is the length of the
    /// measurement window and `windows` the number of series windows the run covered.
    pub(crate) fn report(&self, window_cycles: u64, windows: usize) -> Vec<FlowStats> {
        let per_cycle = |flits: u64, cycles: u64| flits as f64 / cycles.max(1) as f64;
        self.flows
            .iter()
            .map(|(&(src, dst), (measured, counts))| {
                let mut series: Vec<f64> =
                    counts.iter().map(|&f| per_cycle(f, self.window)).collect();
                series.resize(windows.max(series.len()), 0.0);
                FlowStats {
                    src,
                    dst,
                    accepted: per_cycle(*measured, window_cycles),
                    windows: if self.window > 0 { series } else { Vec::new() },
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
    fn flows_count_measured_flits_and_windows() {
        let mut log = FlowLog::new(10);
        log.add(1, 0, 4, 5, false);
        log.add(1, 0, 4, 15, true);
        log.add(2, 0, 8, 25, true);
        let flows = log.report(20, 3);
        assert_eq!(flows.len(), 2);
        assert_eq!((flows[0].src, flows[0].accepted), (1, 0.2));
        assert_eq!(flows[0].windows, vec![0.4, 0.4, 0.0]);
        assert_eq!(flows[1].windows, vec![0.0, 0.0, 0.8]);
    }
}
