//! `traffic.process = "flows"`: explicit flows between node pairs, each with its start and
//! stop times and its rate (`[[traffic.flows]]`), sending messages split into packets.

use serde::Serialize;

use super::Units;
use super::reader::Section;
use super::units::{BLOCK_BYTES, frame_blocks};

/// Where a flow's messages go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowDst {
    /// One node.
    Node(u32),
    /// A node drawn uniformly at random for each message from the other nodes (from the
    /// source's own stream).
    Uniform,
    /// On a dragonfly, a node drawn uniformly for each message from the next group (the
    /// group shift's destinations, from the source's own stream).
    NextGroup,
}

impl FlowDst {
    /// The node, for a flow to one node.
    pub fn node(self) -> Option<u32> {
        match self {
            FlowDst::Node(n) => Some(n),
            FlowDst::Uniform | FlowDst::NextGroup => None,
        }
    }
}

impl Serialize for FlowDst {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowDst::Node(n) => s.serialize_u32(*n),
            FlowDst::Uniform => s.serialize_str("uniform"),
            FlowDst::NextGroup => s.serialize_str("next_group"),
        }
    }
}

/// One `[[traffic.flows]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowConfig {
    /// Source node.
    pub src: u32,
    /// Destination node, or `"uniform"`.
    pub dst: FlowDst,
    /// Cycle of the first message (written as its key, `start_cycle`).
    #[serde(rename = "start_cycle")]
    pub start: u64,
    /// No message is created from this cycle on (`None`: never stops; written as
    /// `stop_cycle`).
    #[serde(rename = "stop_cycle", skip_serializing_if = "Option::is_none")]
    pub stop: Option<u64>,
    /// Flits per cycle offered (`None`: the source's injection cap, `nic.inject_rate`, or its
    /// link's rate: as fast as allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

/// The flows and their messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowsConfig {
    /// The flows.
    pub flows: Vec<FlowConfig>,
    /// Flits per message; a message is sent as packets of `traffic.packet_flits` flits (the
    /// last one shorter when it does not divide).
    pub message_flits: u32,
    /// A packet trace replayed beside the flows (`trace_file`, `trace_time_scale`; written
    /// with the traffic section's keys).
    #[serde(skip)]
    pub trace: Option<super::TraceReplay>,
}

/// Most flows a run may have.
pub const MAX_FLOWS: usize = 1 << 20;

/// The keys of a `[[traffic.flows]]` entry.
const FLOW_KEYS: [&str; 8] = [
    "src",
    "dst",
    "start_cycle",
    "start_us",
    "stop_cycle",
    "stop_us",
    "rate",
    "gbps",
];

impl FlowsConfig {
    /// Reads `flows` and the message size (`message_flits`, or `message_bytes` in 64-byte
    /// blocks) from `[traffic]`; `packet_flits` is the default message size.
    pub(crate) fn read(
        s: &Section<'_>,
        packet_flits: u32,
        units: Option<Units>,
        framing: Option<(u32, u32)>,
    ) -> FlowsConfig {
        let message_flits = read_message(s, packet_flits, packet_flits, framing);
        let mut flows = Vec::new();
        match s.value("flows") {
            None => s.problem(
                "flows",
                "missing; traffic.process = \"flows\" needs [[traffic.flows]] entries with src \
                 and dst",
            ),
            Some(toml::Value::Array(items)) if !items.is_empty() && items.len() <= MAX_FLOWS => {
                for (i, item) in items.iter().enumerate() {
                    let Some(table) = item.as_table() else {
                        s.problem(
                            &format!("flows[{i}]"),
                            "expected a table with keys src and dst (and start, stop, rate)",
                        );
                        continue;
                    };
                    flows.push(read_flow(s.element("flows", i, table), units));
                }
            }
            Some(_) => s.problem(
                "flows",
                format!(
                    "expected 1 to {MAX_FLOWS} [[traffic.flows]] entries (tables with src and dst)"
                ),
            ),
        }
        FlowsConfig {
            flows,
            message_flits,
            trace: None,
        }
    }
}

/// One flow's keys.
fn read_flow(f: Section<'_>, units: Option<Units>) -> FlowConfig {
    for key in ["src", "dst"] {
        if !f.has(key) {
            f.problem(key, "missing; every flow needs src and dst");
        }
    }
    const MAX_CYCLES: (u64, u64) = (0, 1 << 40);
    let flow = FlowConfig {
        src: f.int("src", 0, 0, u32::MAX),
        dst: match f.value("dst") {
            Some(toml::Value::String(text)) if text == "uniform" => FlowDst::Uniform,
            Some(toml::Value::String(text)) if text == "next_group" => FlowDst::NextGroup,
            Some(toml::Value::Integer(_)) | None => FlowDst::Node(f.int("dst", 0, 0, u32::MAX)),
            Some(_) => {
                f.problem(
                    "dst",
                    "must be a node index, \"uniform\" or \"next_group\" (dragonflies)",
                );
                FlowDst::Uniform
            }
        },
        start: f.duration("start_cycle", "start_us", 0, MAX_CYCLES, units),
        stop: (f.has("stop_cycle") || f.has("stop_us"))
            .then(|| f.duration("stop_cycle", "stop_us", 0, MAX_CYCLES, units)),
        rate: f.opt_rate("rate", "gbps", units),
    };
    if flow.dst == FlowDst::Node(flow.src) && f.has("src") && f.has("dst") {
        f.problem("dst", "a flow goes to another node than its source");
    }
    if flow.stop.is_some_and(|stop| stop <= flow.start) {
        f.problem(
            if f.has("stop_us") {
                "stop_us"
            } else {
                "stop_cycle"
            },
            format!("must be after the start (cycle {})", flow.start),
        );
    }
    for key in FLOW_KEYS {
        f.value(key);
    }
    f.finish();
    flow
}

/// `message_flits`, or `message_bytes`; `default` without either. Bytes are rounded up to
/// whole blocks, or, with `framing` (a packet's payload and framing in bytes, given as
/// `traffic.packet_bytes`), sent as full packets of `packet_flits` blocks and a last packet of
/// the rest with its framing.
pub(super) fn read_message(
    s: &Section<'_>,
    default: u32,
    packet_flits: u32,
    framing: Option<(u32, u32)>,
) -> u32 {
    const MAX: u32 = 1 << 24;
    let flits = s.opt_int("message_flits", 1, MAX);
    let bytes = s.opt_int("message_bytes", 1, MAX * BLOCK_BYTES);
    match (flits, bytes) {
        (Some(flits), Some(_)) => {
            s.problem(
                "message_bytes",
                "give traffic.message_flits or traffic.message_bytes, not both",
            );
            flits
        }
        (Some(flits), None) => flits,
        (None, Some(bytes)) => match framing {
            Some((payload, overhead)) => {
                let rest = bytes % payload;
                let last = if rest > 0 {
                    frame_blocks(rest, overhead)
                } else {
                    0
                };
                (bytes / payload * packet_flits + last).min(MAX)
            }
            None => bytes.div_ceil(BLOCK_BYTES),
        },
        (None, None) => default,
    }
}
