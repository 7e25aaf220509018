//! Paper VI's synthetic traffic (Table 2): pattern #p makes p/8 of the nodes hot sources that
//! send at 100 % to 1, 4 or 6 hot spots during a hot window; every other node (hot spots
//! included) sends uniform traffic at 100 % all along. Which nodes are hot and how a hot
//! source shares several hot spots are not given [A]: the hot spots and hot sources are drawn
//! at random per seed, and the sharing is a key.

use rand::seq::SliceRandom;
use serde::Deserialize;
use tailback_core::rng::{self, Purpose};

/// Hot spots of patterns #1, #2 and #3.
const ROOTS: [u32; 3] = [1, 4, 6];

/// How a hot source shares several hot spots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Split {
    /// Every hot source sends to every hot spot, an equal share of its rate to each.
    Spread,
    /// Each hot source sends to one hot spot at its full rate, the hot spots taken round robin.
    RoundRobin,
}

impl Split {
    /// Its name in run ids and files.
    pub(super) fn id(self) -> &'static str {
        match self {
            Split::Spread => "spread",
            Split::RoundRobin => "round_robin",
        }
    }
}

/// Who does what in one pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Roles {
    /// The hot spots.
    pub(super) hot_spots: Vec<u32>,
    /// The hot sources (never hot spots).
    pub(super) hot_sources: Vec<u32>,
}

/// The hot spots and hot sources of pattern `pattern` (1 to 3) on `nodes` nodes under `seed`.
pub(super) fn roles(nodes: u32, pattern: u32, seed: u64) -> Roles {
    let mut order: Vec<u32> = (0..nodes).collect();
    order.shuffle(&mut rng::stream(seed, u64::from(pattern), Purpose::Pattern));
    let roots = ROOTS[pattern as usize - 1] as usize;
    let hot = (nodes * pattern / 8) as usize;
    let mut hot_spots = order[..roots].to_vec();
    let mut hot_sources = order[roots..roots + hot].to_vec();
    hot_spots.sort_unstable();
    hot_sources.sort_unstable();
    Roles {
        hot_spots,
        hot_sources,
    }
}

/// The `traffic.flows` setting of `roles` on `nodes` nodes, hot from `start_us` to `stop_us`:
/// every node that is not a hot source sends uniform traffic.
pub(super) fn flows(
    nodes: u32,
    roles: &Roles,
    split: Split,
    start_us: f64,
    stop_us: f64,
) -> String {
    let mut flows: Vec<String> = (0..nodes)
        .filter(|n| !roles.hot_sources.contains(n))
        .map(|n| format!("{{ src = {n}, dst = \"uniform\" }}"))
        .collect();
    let window = format!(", start_us = {start_us}, stop_us = {stop_us}");
    flows.extend(hot_flows(roles, split, &window));
    setting(&flows)
}

/// The `traffic.flows` setting of `roles`' hot sources alone, hot all along.
pub(super) fn hot_only(roles: &Roles, split: Split) -> String {
    setting(&hot_flows(roles, split, ""))
}

/// The flows of `roles`' hot sources, with `extra` keys (their window).
fn hot_flows(roles: &Roles, split: Split, extra: &str) -> Vec<String> {
    let flow =
        |src: u32, dst: u32, rate: &str| format!("{{ src = {src}, dst = {dst}{extra}{rate} }}");
    let spots = &roles.hot_spots;
    let mut flows = Vec::new();
    for (i, &src) in roles.hot_sources.iter().enumerate() {
        match split {
            Split::Spread => {
                // A block per cycle is the link's rate.
                let rate = format!(", rate = {}", 1.0 / spots.len() as f64);
                flows.extend(spots.iter().map(|&dst| flow(src, dst, &rate)));
            }
            Split::RoundRobin => flows.push(flow(src, spots[i % spots.len()], "")),
        }
    }
    flows
}

/// `flows` as the `traffic.flows` setting.
fn setting(flows: &[String]) -> String {
    format!("traffic.flows=[{}]", flows.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_2_counts_hot_sources_and_hot_spots_apart() {
        for (nodes, counts) in [
            (64, [8, 16, 24]),
            (256, [32, 64, 96]),
            (1024, [128, 256, 384]),
        ] {
            for pattern in 1..=3 {
                let r = roles(nodes, pattern, 7);
                assert_eq!(r.hot_sources.len(), counts[pattern as usize - 1]);
                assert_eq!(r.hot_spots.len(), ROOTS[pattern as usize - 1] as usize);
                assert!(r.hot_spots.iter().all(|h| !r.hot_sources.contains(h)));
            }
        }
        assert_eq!(roles(64, 2, 1), roles(64, 2, 1));
        assert_ne!(roles(64, 2, 1), roles(64, 2, 2));
    }

    #[test]
    fn a_spread_hot_source_shares_its_rate_and_a_round_robin_one_sends_to_one_spot() {
        let r = roles(64, 2, 3);
        let spread = flows(64, &r, Split::Spread, 1000.0, 2000.0);
        let src = r.hot_sources[0];
        assert_eq!(spread.matches(&format!("src = {src}, dst = ")).count(), 4);
        assert_eq!(spread.matches("rate = 0.25").count(), 16 * 4);
        assert_eq!(spread.matches("\"uniform\"").count(), 48);
        let single = flows(64, &r, Split::RoundRobin, 1000.0, 2000.0);
        assert_eq!(single.matches(&format!("src = {src}, dst = ")).count(), 1);
        assert!(!single.contains("rate ="));
    }
}
