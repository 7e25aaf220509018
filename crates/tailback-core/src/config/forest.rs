//! `traffic.process = "forest"`: the congestion forests of Gran et al. (Paper IV of Gran's
//! thesis, "The scope of InfiniBand congestion control"): contributors (C) sending only to
//! their hot spot, victims (V) sending only to uniform destinations, and B nodes sending a
//! share `b_share` of their link rate to their hot spot and the rest uniformly, from two
//! independent sources per node (`[traffic.forest]`).

use serde::Serialize;

use super::Units;
use super::reader::{Section, choice_enum};

choice_enum! {
    /// How a node's two sources hand messages to its adapter.
    pub enum ForestPosting {
        /// Each source on its own: the hot one while its hot spot's queue pair is empty, the
        /// cold one while fewer than `cold_backlog_messages` of its messages wait; the adapter
        /// serves the queue pairs round robin.
        PerClass = "per_class",
        /// One message at a time: the next once every packet posted has started (a hot
        /// packet that congestion control holds back does not count), from the source whose
        /// budget is full, or, when both are, from the hot one with probability `b_share`.
        OneMessage = "one_message",
    }
}

/// `[traffic.forest]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForestConfig {
    /// Hot spots, drawn at random (distinct nodes).
    pub hotspots: u32,
    /// Fraction of the nodes that are B nodes.
    pub b_nodes: f64,
    /// A B node's share of its rate sent to its hot spot (Paper IV's p).
    pub b_share: f64,
    /// Fraction of the other nodes that are contributors (the rest are victims).
    pub contributors: f64,
    /// Whether the hot sources send (false: the no-hot-spot baseline, C nodes idle).
    pub hot_traffic: bool,
    /// Whether the hot-spot nodes send in their own roles (false: they only receive).
    pub hotspots_send: bool,
    /// Cycles a set of hot spots lives before 8 new ones are drawn (`None`: fixed).
    #[serde(
        rename = "hotspot_lifetime_cycles",
        skip_serializing_if = "Option::is_none"
    )]
    pub hotspot_lifetime: Option<u64>,
    /// Cycle at which the hot sources start (0: with the run); before it only cold traffic
    /// flows, so a forest's onset can be watched.
    #[serde(rename = "hot_start_cycles", skip_serializing_if = "super::is_default")]
    pub hot_start: u64,
    /// Most cold messages a node keeps waiting at its adapter; the cold source pauses (losing
    /// its share meanwhile) while that many wait.
    pub cold_backlog_messages: u32,
    /// How the sources hand messages to the adapter.
    pub posting: ForestPosting,
    /// Flits per message (`traffic.message_flits`/`message_bytes`; two packets by default).
    /// Written as `traffic.message_flits`, where it is read from.
    #[serde(skip)]
    pub message_flits: u32,
}

/// The keys of `[traffic.forest]`.
const KEYS: [&str; 12] = [
    "hotspots",
    "b_nodes",
    "b_share",
    "contributors",
    "hot_traffic",
    "hotspots_send",
    "hotspot_lifetime_cycles",
    "hotspot_lifetime_us",
    "hot_start_cycles",
    "hot_start_us",
    "cold_backlog_messages",
    "posting",
];

impl ForestConfig {
    /// Reads `[traffic.forest]` (`f`) with the message size from `[traffic]` (`message_flits`,
    /// two packets of `packet_flits` by default).
    pub(crate) fn read(f: Section<'_>, message_flits: u32, units: Option<Units>) -> ForestConfig {
        let fraction = |key: &'static str, default: f64| {
            f.float(key, default, |x| (0.0..=1.0).contains(&x), "from 0 to 1")
        };
        let lifetime =
            (f.has("hotspot_lifetime_cycles") || f.has("hotspot_lifetime_us")).then(|| {
                f.duration(
                    "hotspot_lifetime_cycles",
                    "hotspot_lifetime_us",
                    1,
                    (1, 1 << 40),
                    units,
                )
            });
        let cfg = ForestConfig {
            hotspots: f.int("hotspots", 8, 1, 1 << 20),
            b_nodes: fraction("b_nodes", 0.0),
            b_share: fraction("b_share", 0.5),
            contributors: fraction("contributors", 0.8),
            hot_traffic: f.boolean("hot_traffic", true),
            hotspots_send: f.boolean("hotspots_send", true),
            hotspot_lifetime: lifetime,
            hot_start: f.duration("hot_start_cycles", "hot_start_us", 0, (0, 1 << 40), units),
            cold_backlog_messages: f.int("cold_backlog_messages", 4, 1, 1 << 16),
            posting: f.choice("posting", ForestPosting::OneMessage),
            message_flits,
        };
        for key in KEYS {
            f.value(key);
        }
        f.finish();
        cfg
    }
}
