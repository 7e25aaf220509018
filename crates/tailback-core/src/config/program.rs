//! The closed-loop workloads of `[traffic]` (`process = "bsp"` or `"cshift"`): every node sends
//! as fast as its processor can, phase by phase, optionally waiting at a barrier after each.

use serde::Serialize;

use super::ProcessKind;
use super::reader::{Section, choice_enum};

choice_enum! {
    /// A preset of the bulk-synchronous workload (Callahan and Goldstein, section 4.1).
    pub enum BspLoad {
        /// Every node sends every phase; messages of 1 to 5 packets.
        Heavy = "heavy",
        /// Each node sends in a phase with probability 1/3; messages include 10 and 20 packets.
        Light = "light",
    }
}

/// Message lengths of the light preset, equally likely: most messages are short (1 to 5
/// packets, 10 of 13), but the long ones (10, 20, 20) carry more packets (50 of 80).
pub const LIGHT_MESSAGE_PACKETS: [u32; 13] = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 10, 20, 20];
/// Message lengths of the heavy preset, equally likely.
pub const HEAVY_MESSAGE_PACKETS: [u32; 5] = [1, 2, 3, 4, 5];

/// The settings of a closed-loop workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgramConfig {
    /// Bulk-synchronous only: the preset the other settings default to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<BspLoad>,
    /// Packets a sending node sends in a phase, uniform between the two bounds (inclusive).
    /// Cyclic shift: the packets every node sends to its partner of the phase.
    pub phase_packets: [u32; 2],
    /// Bulk-synchronous only: the chance that a node sends in a phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_probability: Option<f64>,
    /// Bulk-synchronous only: message lengths in packets, equally likely. A message goes to one
    /// random destination (never the sender); the next one picks anew.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_packets: Option<Vec<u32>>,
    /// Whether a node that has sent its phase's packets waits until every node has.
    pub barriers: bool,
    /// Cycles from the last node's arrival at a barrier to its release.
    pub barrier_cycles: u32,
}

/// The keys of the closed-loop workloads and the ones that belong to bulk-synchronous only.
const PROGRAM_KEYS: [&str; 6] = [
    "load",
    "phase_packets",
    "send_probability",
    "message_packets",
    "barriers",
    "barrier_cycles",
];
const BSP_ONLY: [&str; 3] = ["load", "send_probability", "message_packets"];

/// Most packets a node may send in one phase.
const MAX_PHASE_PACKETS: u32 = 1 << 24;

impl ProgramConfig {
    /// Reads the settings of a bulk-synchronous or cyclic-shift workload from `[traffic]` (the
    /// other processes must not have these keys; for them the result is not used).
    pub(crate) fn read(s: &Section<'_>, process: ProcessKind) -> ProgramConfig {
        let bsp = process == ProcessKind::Bsp;
        for key in PROGRAM_KEYS {
            if !s.has(key) {
                continue;
            }
            if !process.is_program() {
                s.problem(
                    key,
                    "only applies when traffic.process = \"bsp\" or \"cshift\"",
                );
            } else if !bsp && BSP_ONLY.contains(&key) {
                s.problem(key, "only applies when traffic.process = \"bsp\"");
            }
        }
        let load = s.choice("load", BspLoad::Heavy);
        let (default_packets, default_probability, default_lengths): ([u32; 2], f64, &[u32]) =
            match (bsp, load) {
                (false, _) => ([32, 32], 1.0, &[]),
                (true, BspLoad::Heavy) => ([100, 300], 1.0, &HEAVY_MESSAGE_PACKETS),
                (true, BspLoad::Light) => ([100, 300], 1.0 / 3.0, &LIGHT_MESSAGE_PACKETS),
            };
        let phase_packets = read_range(s, "phase_packets", default_packets);
        let send_probability = s.float(
            "send_probability",
            default_probability,
            |x| x > 0.0 && x <= 1.0,
            "greater than 0 and at most 1",
        );
        let message_packets = s
            .opt_int_list("message_packets", 1, MAX_PHASE_PACKETS.into())
            .map(|list| list.into_iter().map(|x| x as u32).collect::<Vec<_>>())
            .filter(|list| {
                if list.is_empty() {
                    s.problem("message_packets", "needs at least one message length");
                }
                !list.is_empty()
            })
            .unwrap_or_else(|| default_lengths.to_vec());
        ProgramConfig {
            load: bsp.then_some(load),
            phase_packets,
            send_probability: bsp.then_some(send_probability),
            message_packets: bsp.then_some(message_packets),
            barriers: s.boolean("barriers", true),
            barrier_cycles: s.int("barrier_cycles", 100, 0, 1 << 30),
        }
    }
}

/// Reads a count that is either one integer or a `[low, high]` range.
fn read_range(s: &Section<'_>, key: &'static str, default: [u32; 2]) -> [u32; 2] {
    const ALLOWED: &str = "an integer from 1, or [low, high] with 1 <= low <= high";
    let Some(value) = s.value(key) else {
        return default;
    };
    let in_range = |x: i64| (1..=i64::from(MAX_PHASE_PACKETS)).contains(&x);
    let parsed = match value {
        toml::Value::Integer(n) if in_range(*n) => Some([*n as u32; 2]),
        toml::Value::Array(items) => match items.as_slice() {
            [toml::Value::Integer(lo), toml::Value::Integer(hi)]
                if in_range(*lo) && in_range(*hi) && lo <= hi =>
            {
                Some([*lo as u32, *hi as u32])
            }
            _ => None,
        },
        _ => None,
    };
    parsed.unwrap_or_else(|| {
        s.problem(
            key,
            format!("must be {ALLOWED} (at most {MAX_PHASE_PACKETS})"),
        );
        default
    })
}
