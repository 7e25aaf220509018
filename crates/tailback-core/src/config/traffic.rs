//! `[traffic]`: the offered workload (pattern, process, rate or phases, packets).

use serde::Serialize;

use super::reader::{Section, choice_enum};
use super::{FlowsConfig, ForestConfig, ProgramConfig, Units, frame_blocks};

choice_enum! {
    /// Destination pattern. Bit patterns act on the node index (dimension 0 least significant).
    pub enum PatternKind {
        /// Uniformly random destination (excluding the source unless `include_self`).
        Uniform = "uniform",
        /// Every address bit inverted.
        BitComplement = "bit_complement",
        /// Address bits in reverse order.
        BitReverse = "bit_reverse",
        /// Address rotated right by one bit.
        BitRotation = "bit_rotation",
        /// Address rotated left by one bit.
        PerfectShuffle = "perfect_shuffle",
        /// Most and least significant address bits swapped.
        Butterfly = "butterfly",
        /// Coordinates rotated by n/2 dimensions ((x, y) -> (y, x) in 2-D).
        Transpose = "transpose",
        /// Every coordinate advanced by ceil(k/2) - 1.
        Tornado = "tornado",
        /// The node index advanced by half the first radix, W -> (W + k/2) mod N (the tornado
        /// of the entropy-throttling paper: on a k x k torus, half the rows move k/2 along x,
        /// the others wrap into the next row).
        TornadoIndex = "tornado_index",
        /// Every coordinate advanced by one.
        Neighbor = "neighbor",
        /// A fixed random permutation (seeded).
        RandomPermutation = "random_permutation",
        /// Nodes paired at random (seeded); each sends to its partner.
        RandomPair = "random_pair",
        /// A fraction of packets goes to a set of hot nodes, the rest is uniform.
        Hotspot = "hotspot",
        /// Dragonflies: each packet to a uniformly drawn node of the next group (g + 1 mod
        /// groups), BookSim2's `bad_dragon`: every group's traffic crosses one group pair.
        GroupShift = "group_shift",
        /// HyperX: each node to the node of the same index on the switch one step on along
        /// dimension 0 (wrapping).
        HyperxShift = "hyperx_shift",
    }
}

choice_enum! {
    /// What happens to a packet whose destination is its own source.
    pub enum SelfPackets {
        /// Created and delivered through the source's own router (zero hops).
        Deliver = "deliver",
        /// Not created: the source leaves that creation slot empty.
        Skip = "skip",
    }
}

choice_enum! {
    /// When a source creates packets.
    pub enum ProcessKind {
        /// Each cycle, a packet with probability rate / packet_flits.
        Bernoulli = "bernoulli",
        /// One packet every packet_flits / rate cycles, optionally jittered.
        Periodic = "periodic",
        /// Collective communication: every node has `packets_per_node` packets at cycle 0 and
        /// the run lasts until all are delivered.
        Collective = "collective",
        /// Ramp load: a Bernoulli process whose load rises from 0 by `ramp_slope` per cycle up
        /// to `rate`.
        Ramp = "ramp",
        /// Bulk-synchronous phases: nodes send as fast as their processors can, messages to
        /// random destinations, and wait at a barrier after each phase (needs `[processor]`).
        Bsp = "bsp",
        /// Cyclic shift: in phase p of P - 1, node i sends to (i + p) mod P (needs `[processor]`).
        Cshift = "cshift",
        /// Replay of a packet trace (`trace_file`): each packet created at its (scaled) time.
        Trace = "trace",
        /// Explicit flows (`[[traffic.flows]]`): messages from a source to a destination at a
        /// rate (or as fast as the source may inject), between a start and a stop time.
        Flows = "flows",
        /// Congestion forests (`[traffic.forest]`): contributors, victims and nodes that do
        /// both, sending at their injection rate to hot spots that may move.
        Forest = "forest",
    }
}

/// Longest traffic phase, in cycles.
pub const MAX_PHASE_CYCLES: u64 = 1 << 40;

/// One `[[traffic.phases]]` entry: a stretch of the schedule with its own pattern and rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseConfig {
    /// Length of the phase in cycles.
    pub cycles: u64,
    /// Destination pattern of the packets created during the phase.
    pub pattern: PatternKind,
    /// Offered load during the phase, flits/node/cycle (0 to `packet_flits`).
    pub rate: f64,
}

/// `[traffic]`: the offered workload.
///
/// Either one `pattern` at one `rate` for the whole run, or a schedule of `phases`, each with
/// its own length, pattern and rate (the schedule starts at cycle 0 and, unless
/// `repeat_phases = false`, starts over after its last phase).
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficConfig {
    /// Destination pattern. With `phases`: the first phase's pattern (derived, not written out).
    pub pattern: PatternKind,
    /// Uniform only: whether a node may send to itself.
    pub include_self: Option<bool>,
    /// Hotspot only: the hot nodes.
    pub hotspot_nodes: Option<Vec<u32>>,
    /// Hotspot only: fraction of packets sent to a hot node.
    pub hotspot_fraction: Option<f64>,
    /// Offered load in flits/node/cycle, from 0 to `packet_flits` (one packet per node per
    /// cycle). With `phases`: the mean rate over one pass of the schedule (derived, not written
    /// out).
    pub rate: f64,
    /// Packet length in flits (blocks).
    pub packet_flits: u32,
    /// Payload bytes per packet, when sizes are given in bytes (`packet_flits` is then the
    /// payload and the fabric's framing in whole blocks).
    pub packet_bytes: Option<u32>,
    /// Injection process (of every phase), with its settings.
    pub process: ProcessConfig,
    /// Packets addressed to their own source: delivered locally or not created.
    pub self_packets: SelfPackets,
    /// A schedule of phases replacing `pattern` and `rate`.
    pub phases: Option<Vec<PhaseConfig>>,
    /// With `phases` only: whether the schedule starts over after its last phase (otherwise
    /// sources stop creating packets).
    pub repeat_phases: Option<bool>,
}

/// `traffic.process` with the keys that belong to it.
#[derive(Debug, Clone, PartialEq)]
pub enum ProcessConfig {
    /// Each cycle, a packet with probability rate / packet_flits.
    Bernoulli,
    /// One packet every packet_flits / rate cycles.
    Periodic {
        /// Each packet is delayed by up to this fraction of the interval.
        jitter: f64,
    },
    /// Every node has its packets at cycle 0; the run lasts until all are delivered.
    Collective {
        /// Packets every node sends.
        packets_per_node: u32,
    },
    /// Bernoulli injection whose load rises linearly up to `rate`.
    Ramp(RampConfig),
    /// Bulk-synchronous phases of a closed-loop program.
    Bsp(ProgramConfig),
    /// A cyclic shift run by a closed-loop program.
    Cshift(ProgramConfig),
    /// Replay of a packet trace.
    Trace(TraceReplay),
    /// Explicit flows.
    Flows(FlowsConfig),
    /// Congestion forests.
    Forest(ForestConfig),
}

/// The settings of `traffic.process = "ramp"`.
#[derive(Debug, Clone, PartialEq)]
pub struct RampConfig {
    /// Load increase per cycle, flits/node/cycle per cycle (`ramp_slope`).
    pub slope: f64,
    /// Samples in the moving average that smooths the ramp curves (`ramp_smoothing`).
    pub smoothing: u32,
    /// The critical load is where smoothed throughput falls this fraction below the offered
    /// load (`ramp_drop`).
    pub drop: f64,
}

/// The settings of `traffic.process = "trace"`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceReplay {
    /// The trace file (`trace_file`).
    pub file: String,
    /// Creation times are multiplied by this (`trace_time_scale`; 2: half the load).
    pub time_scale: f64,
}

impl ProcessConfig {
    /// Which process it is.
    pub fn kind(&self) -> ProcessKind {
        match self {
            ProcessConfig::Bernoulli => ProcessKind::Bernoulli,
            ProcessConfig::Periodic { .. } => ProcessKind::Periodic,
            ProcessConfig::Collective { .. } => ProcessKind::Collective,
            ProcessConfig::Ramp(_) => ProcessKind::Ramp,
            ProcessConfig::Bsp(_) => ProcessKind::Bsp,
            ProcessConfig::Cshift(_) => ProcessKind::Cshift,
            ProcessConfig::Trace(_) => ProcessKind::Trace,
            ProcessConfig::Flows(_) => ProcessKind::Flows,
            ProcessConfig::Forest(_) => ProcessKind::Forest,
        }
    }

    /// The closed-loop program of `bsp` and `cshift`.
    pub fn program(&self) -> Option<&ProgramConfig> {
        match self {
            ProcessConfig::Bsp(program) | ProcessConfig::Cshift(program) => Some(program),
            _ => None,
        }
    }
}

impl ProcessKind {
    /// Whether nodes send as fast as their processors can (the workload is a program), rather
    /// than at an offered rate.
    pub fn is_program(self) -> bool {
        matches!(self, ProcessKind::Bsp | ProcessKind::Cshift)
    }

    /// Whether the workload's destinations come from `traffic.pattern`.
    pub fn has_pattern(self) -> bool {
        !self.is_program()
            && !matches!(
                self,
                ProcessKind::Trace | ProcessKind::Flows | ProcessKind::Forest
            )
    }

    /// Whether the offered load is `traffic.rate`.
    pub fn has_rate(self) -> bool {
        self.has_pattern() && self != ProcessKind::Collective
    }

    /// Whether the run lasts until the workload's last packet is delivered (cut off by
    /// `sim.drain_cycles_max`) rather than for a measurement window.
    pub fn until_delivered(self) -> bool {
        matches!(
            self,
            ProcessKind::Collective | ProcessKind::Cshift | ProcessKind::Trace
        )
    }
}

/// The ramp's default load increase per cycle: 0.1 flits/node/cycle every million cycles.
pub const DEFAULT_RAMP_SLOPE: f64 = 1e-7;

impl TrafficConfig {
    /// The packet size as the user gave it, for messages: `traffic.packet_flits = 8`, or
    /// `traffic.packet_bytes = 1024: 18 blocks with the framing`.
    pub fn packet_size(&self) -> String {
        match self.packet_bytes {
            Some(bytes) => format!(
                "traffic.packet_bytes = {bytes}: {} blocks with the framing",
                self.packet_flits
            ),
            None => format!("traffic.packet_flits = {}", self.packet_flits),
        }
    }

    /// Cycles the ramp takes to reach `rate` (ramp load only).
    pub fn ramp_cycles(&self) -> Option<u64> {
        match &self.process {
            ProcessConfig::Ramp(ramp) => Some((self.rate / ramp.slope).ceil().max(1.0) as u64),
            _ => None,
        }
    }
}

impl Serialize for TrafficConfig {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        /// The keys as a user writes them: `pattern` and `rate` only without `phases`.
        #[derive(Serialize)]
        struct Written<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            pattern: Option<PatternKind>,
            #[serde(skip_serializing_if = "Option::is_none")]
            include_self: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            hotspot_nodes: Option<&'a Vec<u32>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            hotspot_fraction: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            rate: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            packet_flits: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            packet_bytes: Option<u32>,
            process: ProcessKind,
            #[serde(skip_serializing_if = "Option::is_none")]
            jitter: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            self_packets: Option<SelfPackets>,
            #[serde(skip_serializing_if = "Option::is_none")]
            phases: Option<&'a Vec<PhaseConfig>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            repeat_phases: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            packets_per_node: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ramp_slope: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ramp_smoothing: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ramp_drop: Option<f64>,
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            program: Option<&'a ProgramConfig>,
            #[serde(skip_serializing_if = "Option::is_none")]
            trace_file: Option<&'a String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            trace_time_scale: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message_flits: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            flows: Option<&'a Vec<super::FlowConfig>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            forest: Option<&'a ForestConfig>,
        }
        let single = self.phases.is_none();
        let kind = self.process.kind();
        let rated = single && kind.has_rate();
        let ramp = match &self.process {
            ProcessConfig::Ramp(ramp) => Some(ramp),
            _ => None,
        };
        let trace = match &self.process {
            ProcessConfig::Trace(trace) => Some(trace),
            ProcessConfig::Flows(flows) => flows.trace.as_ref(),
            _ => None,
        };
        let flows = match &self.process {
            ProcessConfig::Flows(flows) => Some(flows),
            _ => None,
        };
        let forest = match &self.process {
            ProcessConfig::Forest(forest) => Some(forest),
            _ => None,
        };
        Written {
            pattern: Some(self.pattern).filter(|_| single && kind.has_pattern()),
            include_self: self.include_self,
            hotspot_nodes: self.hotspot_nodes.as_ref(),
            hotspot_fraction: self.hotspot_fraction,
            rate: Some(self.rate).filter(|_| rated),
            packet_flits: Some(self.packet_flits).filter(|_| self.packet_bytes.is_none()),
            packet_bytes: self.packet_bytes,
            process: kind,
            jitter: match self.process {
                ProcessConfig::Periodic { jitter } => Some(jitter),
                _ => None,
            },
            self_packets: Some(self.self_packets).filter(|&x| x != SelfPackets::Deliver),
            phases: self.phases.as_ref(),
            repeat_phases: self.repeat_phases,
            packets_per_node: match self.process {
                ProcessConfig::Collective { packets_per_node } => Some(packets_per_node),
                _ => None,
            },
            ramp_slope: ramp.map(|r| r.slope),
            ramp_smoothing: ramp.map(|r| r.smoothing),
            ramp_drop: ramp.map(|r| r.drop),
            program: self.process.program(),
            trace_file: trace.map(|t| &t.file),
            trace_time_scale: trace.map(|t| t.time_scale),
            message_flits: flows
                .map(|f| f.message_flits)
                .or(forest.map(|f| f.message_flits)),
            flows: flows.map(|f| &f.flows),
            forest,
        }
        .serialize(ser)
    }
}

/// The allowed range of an offered rate: 0 to one packet per node per cycle.
struct RateBound {
    /// `packet_flits`, or `None` when the packet length was rejected (no upper bound is then
    /// checked: it would be about a value the user did not write).
    max: Option<f64>,
    /// The range in words.
    allowed: String,
}

impl RateBound {
    fn new(packet_flits: Option<u32>) -> Self {
        match packet_flits {
            Some(f) => RateBound {
                max: Some(f as f64),
                allowed: format!(
                    "from 0 to {f} (flits/node/cycle; at most one {f}-flit packet per node per \
                     cycle)"
                ),
            },
            None => RateBound {
                max: None,
                allowed: "of at least 0 (flits/node/cycle)".into(),
            },
        }
    }

    fn allows(&self, x: f64) -> bool {
        x >= 0.0 && self.max.is_none_or(|max| x <= max)
    }
}

/// The keys of a `[[traffic.phases]]` entry, all required.
const PHASE_KEYS: [&str; 3] = ["cycles", "pattern", "rate"];

/// Reads `traffic.phases`. Each phase is read with its own [`Section`]; its problems are
/// reported at `traffic.phases[i].key` (the value given is appended to the message, as the
/// path does not name a key of `[traffic]`). Returns the phases, an invalid value replaced by
/// its default so that phase `i` stays at index `i`, and whether every phase's pattern was read.
fn read_phases(s: &Section<'_>, bound: &RateBound) -> Option<(Vec<PhaseConfig>, bool)> {
    const SHAPE: &str = "an array of tables (`[[traffic.phases]]` entries) with keys cycles, \
                         pattern and rate";
    let value = s.value("phases")?;
    let Some(items) = value.as_array() else {
        s.problem("phases", format!("expected {SHAPE}"));
        return None;
    };
    if items.is_empty() {
        s.problem("phases", "needs at least one phase");
        return None;
    }
    let mut phases = Vec::with_capacity(items.len());
    let mut patterns_known = true;
    for (i, item) in items.iter().enumerate() {
        let here = format!("phases[{i}]");
        let Some(table) = item.as_table() else {
            s.problem(
                &here,
                format!(
                    "expected a table with keys cycles, pattern and rate; given: {}",
                    super::reader::render(item)
                ),
            );
            patterns_known = false;
            phases.push(PhaseConfig {
                cycles: 1,
                pattern: PatternKind::Uniform,
                rate: 0.0,
            });
            continue;
        };
        let p = s.element("phases", i, table);
        for key in PHASE_KEYS {
            if !p.has(key) {
                p.problem(key, "missing; every phase needs cycles, pattern and rate");
            }
        }
        let cycles = p.int("cycles", 1, 1, MAX_PHASE_CYCLES);
        let pattern = p.opt_choice("pattern");
        patterns_known &= pattern.is_some();
        phases.push(PhaseConfig {
            cycles,
            pattern: pattern.unwrap_or(PatternKind::Uniform),
            rate: p.float("rate", 0.0, |x| bound.allows(x), &bound.allowed),
        });
        p.finish();
    }
    Some((phases, patterns_known))
}

impl TrafficConfig {
    /// Reads `[traffic]`; with `units`, flows may give times in µs and rates in Gbit/s.
    /// `frame_overhead` is the fabric's framing per packet (with `fabric.link`), which sizes
    /// packets given in bytes.
    pub(crate) fn read(s: Section<'_>, units: Option<Units>, frame_overhead: Option<u32>) -> Self {
        let packet_bytes = read_packet_bytes(&s, frame_overhead);
        let framing = packet_bytes.zip(frame_overhead);
        let given_flits = match framing {
            Some((payload, overhead)) => Some(frame_blocks(payload, overhead)),
            None => s.opt_int("packet_flits", 1u32, 4096),
        };
        let packet_flits = given_flits.unwrap_or(8);
        let bound = RateBound::new(if s.has("packet_flits") || framing.is_some() {
            given_flits
        } else {
            Some(packet_flits)
        });
        let process = s.choice("process", ProcessKind::Bernoulli);
        let program = ProgramConfig::read(&s, process);
        let phased = s.has("phases");
        let (pattern, rate, phases, patterns_known) = if phased {
            for key in ["pattern", "rate"] {
                if s.value(key).is_some() {
                    s.problem(
                        key,
                        "give either `traffic.pattern` and `traffic.rate` or `traffic.phases` \
                         (each phase has its own pattern and rate), not both",
                    );
                }
            }
            match read_phases(&s, &bound) {
                Some((phases, known)) => {
                    let cycles: f64 = phases.iter().map(|p| p.cycles as f64).sum();
                    let flits: f64 = phases.iter().map(|p| p.cycles as f64 * p.rate).sum();
                    (phases[0].pattern, flits / cycles, Some(phases), known)
                }
                None => (PatternKind::Uniform, 0.0, None, false),
            }
        } else if !process.has_pattern() {
            let why = if process.is_program() {
                "nodes send as fast as their processors can, to the destinations the workload \
                 defines"
            } else if process == ProcessKind::Flows {
                "each [[traffic.flows]] entry gives its source, destination and rate"
            } else if process == ProcessKind::Forest {
                "nodes send at their injection rate to the destinations their roles in \
                 [traffic.forest] give"
            } else {
                "the trace gives every packet's time, source, destination and length"
            };
            for key in ["pattern", "rate"] {
                if s.value(key).is_some() {
                    s.problem(
                        key,
                        format!("does not apply to traffic.process = \"{process}\" ({why})"),
                    );
                }
            }
            (PatternKind::Uniform, 0.0, None, true)
        } else {
            let pattern = s.opt_choice("pattern");
            let rate = s.float("rate", 0.2, |x| bound.allows(x), &bound.allowed);
            (
                pattern.unwrap_or(PatternKind::Uniform),
                rate,
                None,
                pattern.is_some() || !s.has("pattern"),
            )
        };
        let used: Vec<PatternKind> = match &phases {
            Some(phases) => phases.iter().map(|p| p.pattern).collect(),
            None => vec![pattern],
        };
        let uses = |kind: PatternKind| used.contains(&kind);
        let only_for_pattern = |key: &str, kind: PatternKind| {
            if s.has(key) && patterns_known && !uses(kind) {
                s.problem(
                    key,
                    if phased {
                        format!("only applies when a phase has pattern = \"{kind}\"")
                    } else {
                        format!("only applies when traffic.pattern = \"{kind}\"")
                    },
                );
            }
        };
        only_for_pattern("include_self", PatternKind::Uniform);
        only_for_pattern("hotspot_nodes", PatternKind::Hotspot);
        only_for_pattern("hotspot_fraction", PatternKind::Hotspot);
        let collective = process == ProcessKind::Collective;
        let ramp = process == ProcessKind::Ramp;
        let flows = process == ProcessKind::Flows;
        let messages = flows || process == ProcessKind::Forest;
        let messages_when = "traffic.process = \"flows\" or \"forest\"";
        for (key, applies, when) in [
            (
                "jitter",
                process == ProcessKind::Periodic,
                "traffic.process = \"periodic\"",
            ),
            ("repeat_phases", phased, "traffic.phases is given"),
            (
                "packets_per_node",
                collective,
                "traffic.process = \"collective\"",
            ),
            ("ramp_slope", ramp, "traffic.process = \"ramp\""),
            ("ramp_smoothing", ramp, "traffic.process = \"ramp\""),
            ("ramp_drop", ramp, "traffic.process = \"ramp\""),
            ("flows", flows, "traffic.process = \"flows\""),
            ("message_flits", messages, messages_when),
            ("message_bytes", messages, messages_when),
            (
                "forest",
                process == ProcessKind::Forest,
                "traffic.process = \"forest\"",
            ),
        ] {
            if s.has(key) && !applies {
                s.problem(key, format!("only applies when {when}"));
                // Reported once: not also as an unknown key.
                s.value(key);
            }
        }
        let hotspot_nodes: Vec<u32> = s
            .opt_int_list("hotspot_nodes", 0, u32::MAX as i64)
            .unwrap_or_default()
            .into_iter()
            .map(|x| x as u32)
            .collect();
        let uniform = uses(PatternKind::Uniform);
        let hotspot = uses(PatternKind::Hotspot);
        if hotspot && hotspot_nodes.is_empty() {
            s.problem(
                "hotspot_nodes",
                "the hotspot pattern needs at least one hot node",
            );
        }
        if let Some(node) = hotspot_nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| hotspot_nodes[..i].contains(n).then_some(n))
        {
            s.problem(
                "hotspot_nodes",
                format!("node {node} is listed twice; list each hot node once"),
            );
        }
        let cfg = TrafficConfig {
            pattern,
            include_self: Some(s.boolean("include_self", false)).filter(|_| uniform),
            hotspot_nodes: Some(hotspot_nodes).filter(|_| hotspot),
            hotspot_fraction: Some(s.float(
                "hotspot_fraction",
                0.5,
                |x| (0.0..=1.0).contains(&x),
                "from 0 to 1",
            ))
            .filter(|_| hotspot),
            rate,
            packet_flits,
            packet_bytes,
            process: read_process_settings(&s, process, program, packet_flits, units, framing),
            self_packets: s.choice("self_packets", SelfPackets::Deliver),
            repeat_phases: Some(s.boolean("repeat_phases", true)).filter(|_| phases.is_some()),
            phases,
        };
        if s.has("self_packets")
            && matches!(
                process,
                ProcessKind::Trace | ProcessKind::Flows | ProcessKind::Forest
            )
        {
            s.problem(
                "self_packets",
                format!(
                    "does not apply to traffic.process = \"{process}\", which names its \
                     destinations itself (it applies where traffic.pattern draws them)"
                ),
            );
        }
        if (collective || ramp || !process.has_pattern()) && phased {
            s.problem(
                "phases",
                format!("cannot be combined with traffic.process = \"{process}\""),
            );
        }
        if collective && s.has("rate") {
            s.problem(
                "rate",
                "does not apply to traffic.process = \"collective\" (nodes send \
                 packets_per_node packets as fast as the network takes them)",
            );
        }
        if let Some(cycles) = cfg.ramp_cycles()
            && cycles > MAX_PHASE_CYCLES
        {
            s.problem(
                "ramp_slope",
                format!("the ramp to rate {} would take {cycles} cycles", cfg.rate),
            );
        }
        s.finish();
        cfg
    }
}

/// The settings of `process` (its keys were refused above for the other processes), read in
/// the order the keys are documented; `program` is the closed-loop program read earlier.
fn read_process_settings(
    s: &Section<'_>,
    process: ProcessKind,
    program: ProgramConfig,
    packet_flits: u32,
    units: Option<Units>,
    framing: Option<(u32, u32)>,
) -> ProcessConfig {
    let jitter = s.float("jitter", 0.0, |x| (0.0..=1.0).contains(&x), "from 0 to 1");
    let packets_per_node = s.int("packets_per_node", 10, 1, 1_000_000);
    let ramp = RampConfig {
        slope: s.float(
            "ramp_slope",
            DEFAULT_RAMP_SLOPE,
            |x| x > 0.0 && x <= 1.0,
            "greater than 0 and at most 1 (flits/node/cycle per cycle)",
        ),
        smoothing: s.int("ramp_smoothing", 400, 1, 1_000_000),
        drop: s.float(
            "ramp_drop",
            0.1,
            |x| x > 0.0 && x < 1.0,
            "between 0 and 1 (exclusive)",
        ),
    };
    let trace_file = read_trace_file(s, process);
    let time_scale = s.float(
        "trace_time_scale",
        1.0,
        |x| x > 0.0 && x <= 1e6,
        "greater than 0 and at most 10^6",
    );
    match process {
        ProcessKind::Bernoulli => ProcessConfig::Bernoulli,
        ProcessKind::Periodic => ProcessConfig::Periodic { jitter },
        ProcessKind::Collective => ProcessConfig::Collective { packets_per_node },
        ProcessKind::Ramp => ProcessConfig::Ramp(ramp),
        ProcessKind::Bsp => ProcessConfig::Bsp(program),
        ProcessKind::Cshift => ProcessConfig::Cshift(program),
        // A missing file was reported; the empty path is never used.
        ProcessKind::Trace => ProcessConfig::Trace(TraceReplay {
            file: trace_file.unwrap_or_default(),
            time_scale,
        }),
        ProcessKind::Flows => {
            let mut flows = FlowsConfig::read(s, packet_flits, units, framing);
            flows.trace = trace_file.map(|file| TraceReplay { file, time_scale });
            ProcessConfig::Flows(flows)
        }
        ProcessKind::Forest => ProcessConfig::Forest(ForestConfig::read(
            s.section("forest"),
            super::flows::read_message(s, 2 * packet_flits, packet_flits, framing),
            units,
        )),
    }
}

/// `packet_bytes`: a packet's payload in bytes (needs the fabric's framing, and excludes
/// `packet_flits`); its packets must fit 4096 blocks.
fn read_packet_bytes(s: &Section<'_>, frame_overhead: Option<u32>) -> Option<u32> {
    let bytes = s.opt_int("packet_bytes", 1u32, 1 << 18)?;
    let Some(overhead) = frame_overhead else {
        s.problem(
            "packet_bytes",
            "sizes in bytes need the link's framing: set fabric.link (and \
             fabric.frame_overhead_bytes unless RoCEv2's 82 bytes)",
        );
        return None;
    };
    if s.has("packet_flits") {
        s.problem(
            "packet_bytes",
            "give traffic.packet_flits or traffic.packet_bytes, not both",
        );
        return None;
    }
    let blocks = frame_blocks(bytes, overhead);
    if blocks > 4096 {
        s.problem(
            "packet_bytes",
            format!("with {overhead} bytes of framing is {blocks} blocks; at most 4096"),
        );
        return None;
    }
    Some(bytes)
}

/// Reads `trace_file` (required with `process = "trace"`, optional beside `"flows"`, refused
/// otherwise); the file must exist.
fn read_trace_file(s: &Section<'_>, process: ProcessKind) -> Option<String> {
    if !matches!(process, ProcessKind::Trace | ProcessKind::Flows) {
        for key in ["trace_file", "trace_time_scale"] {
            if s.has(key) {
                s.problem(
                    key,
                    "only applies when traffic.process = \"trace\" (or beside \"flows\")",
                );
            }
        }
        s.value("trace_file");
        return None;
    }
    match s.value("trace_file") {
        None if process == ProcessKind::Flows => {
            if s.has("trace_time_scale") {
                s.problem("trace_time_scale", "only applies with a trace_file");
            }
            None
        }
        None => {
            s.problem(
                "trace_file",
                "missing; traffic.process = \"trace\" replays the packet trace in this file",
            );
            None
        }
        Some(toml::Value::String(path)) => {
            if let Err(why) = crate::files::check_regular(std::path::Path::new(path)) {
                s.problem("trace_file", why);
            }
            Some(path.clone())
        }
        Some(_) => {
            s.problem(
                "trace_file",
                "expected the path of a packet trace (a string)",
            );
            None
        }
    }
}
