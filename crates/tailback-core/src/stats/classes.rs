//! Receive rate by class of destination: the workload's hot destinations (the roots of its
//! congestion trees) against the other nodes, the measure of how much congestion costs
//! innocent traffic.

use serde::{Deserialize, Serialize};

use crate::config::{PatternKind, ProcessConfig, TrafficConfig};

/// The per-node receive rate of one class of nodes, flits/node/cycle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassRate {
    /// Nodes in the class.
    pub nodes: usize,
    /// Mean over the class's nodes.
    pub mean: f64,
    /// Least of a node in the class.
    pub min: f64,
    /// Most of a node in the class.
    pub max: f64,
    /// The mean in the first and in the second half of the measurement window.
    #[serde(default)]
    pub halves: [f64; 2],
}

impl ClassRate {
    /// The rate of the nodes in `rates` (over the window, and in its two halves); `None` for
    /// an empty class.
    fn of(rates: impl Iterator<Item = (f64, f64, f64)>) -> Option<ClassRate> {
        let (mut nodes, mut sum, mut min, mut max) = (0, 0.0, f64::INFINITY, 0.0f64);
        let mut halves = [0.0; 2];
        for (rate, first, second) in rates {
            nodes += 1;
            sum += rate;
            min = min.min(rate);
            max = max.max(rate);
            halves[0] += first;
            halves[1] += second;
        }
        (nodes > 0).then(|| ClassRate {
            nodes,
            mean: sum / nodes as f64,
            min,
            max,
            halves: halves.map(|h| h / nodes as f64),
        })
    }

    /// Whether the two halves of the window are within `tolerance` (relative to the larger)
    /// of each other: the class's rate did not drift over the window.
    pub fn stationary(&self, tolerance: f64) -> bool {
        let [a, b] = self.halves;
        (a - b).abs() <= tolerance * a.max(b)
    }
}

/// Receive rates of the hot destinations, of the other nodes and of all nodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReceiveByClass {
    /// The hot destinations.
    pub hot: ClassRate,
    /// Every other node (absent when every node is hot).
    pub others: Option<ClassRate>,
    /// All nodes.
    pub all: ClassRate,
}

impl ReceiveByClass {
    /// The classes of `accepted_per_node` (flits/cycle by node; `halves`: in each half of the
    /// window) with `hot` (sorted node indices) the hot ones; `None` without hot nodes.
    pub(crate) fn new(
        accepted_per_node: &[f64],
        halves: &[Vec<f64>; 2],
        hot: &[u32],
    ) -> Option<ReceiveByClass> {
        let is_hot = |node: usize| hot.binary_search(&(node as u32)).is_ok();
        let rates = (0..accepted_per_node.len())
            .map(|n| (n, (accepted_per_node[n], halves[0][n], halves[1][n])));
        let class = |want_hot: bool| {
            ClassRate::of(
                rates
                    .clone()
                    .filter(move |&(node, _)| is_hot(node) == want_hot)
                    .map(|(_, r)| r),
            )
        };
        Some(ReceiveByClass {
            hot: class(true)?,
            others: class(false),
            all: ClassRate::of(rates.clone().map(|(_, r)| r))?,
        })
    }
}

/// The hot destinations of a workload, sorted: the hot nodes of the `hotspot` pattern, or the
/// nodes that receive more than one flow of a `flows` workload; empty for other workloads.
pub(crate) fn hot_destinations(traffic: &TrafficConfig) -> Vec<u32> {
    let mut hot = match &traffic.process {
        ProcessConfig::Flows(flows) => {
            let mut dsts: Vec<u32> = flows.flows.iter().filter_map(|f| f.dst.node()).collect();
            dsts.sort_unstable();
            dsts.windows(2)
                .filter(|pair| pair[0] == pair[1])
                .map(|pair| pair[0])
                .collect()
        }
        _ if traffic.pattern == PatternKind::Hotspot && traffic.phases.is_none() => {
            traffic.hotspot_nodes.clone().unwrap_or_default()
        }
        _ => Vec::new(),
    };
    hot.sort_unstable();
    hot.dedup();
    hot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_and_other_nodes_are_summarised_apart() {
        let rates = [0.1, 0.9, 0.2, 0.7, 0.3];
        let halves = [rates.to_vec(), rates.map(|r| r * 1.1).to_vec()];
        let classes = ReceiveByClass::new(&rates, &halves, &[1, 3]).unwrap();
        assert!((classes.hot.halves[1] - 0.88).abs() < 1e-12);
        assert!(classes.hot.stationary(0.1) && !classes.hot.stationary(0.05));
        assert_eq!(classes.hot.nodes, 2);
        assert!((classes.hot.mean - 0.8).abs() < 1e-12);
        assert_eq!((classes.hot.min, classes.hot.max), (0.7, 0.9));
        let others = classes.others.unwrap();
        assert_eq!(others.nodes, 3);
        assert!((others.mean - 0.2).abs() < 1e-12);
        assert_eq!((others.min, others.max), (0.1, 0.3));
        assert_eq!(classes.all.nodes, 5);
        assert!((classes.all.mean - 0.44).abs() < 1e-12);
        assert!(ReceiveByClass::new(&rates, &halves, &[]).is_none());
        assert!(
            ReceiveByClass::new(&rates[..2], &halves, &[0, 1])
                .unwrap()
                .others
                .is_none()
        );
    }
}
