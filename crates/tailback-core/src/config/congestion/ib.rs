//! InfiniBand congestion control's settings: the keys under `[congestion]` with
//! `mechanism = "ib_cc"`. Defaults are Table I of Gran et al.'s hardware study (Paper III of
//! Gran's thesis); every value the thesis leaves open is a key.

use serde::Serialize;

use super::{Mechanism, Settings};
use crate::config::reader::{Issues, Section, choice_enum};
use crate::config::{Choice, Config, FabricConfig, NicQueues, TopologyKind};

choice_enum! {
    /// What a Port VL's occupancy is compared with the thresholds as.
    pub enum Detect {
        /// Each virtual output queue feeding the Port VL on its own.
        PerVoq = "per_voq",
        /// The sum of the queues feeding it, over all inputs.
        Sum = "sum",
        /// The sum against the threshold divided by the inputs contributing to it.
        SumPerPort = "sum_per_port",
    }
}

choice_enum! {
    /// When a Port VL counts as a root (it may enter the congestion state).
    pub enum RootTest {
        /// It holds at least one credit.
        AnyCredit = "any_credit",
        /// It holds credits for a whole MTU packet.
        PacketCredits = "packet_credits",
    }
}

choice_enum! {
    /// Which switch ports may enter the congestion state without credits (Victim_Mask).
    pub enum VictimMask {
        /// Ports that lead to a channel adapter.
        CaPorts = "ca_ports",
        /// None.
        None = "none",
        /// All.
        All = "all",
    }
}

choice_enum! {
    /// How the Marking_Rate spaces the marks.
    pub enum Marking {
        /// Each eligible packet independently with probability 1/(Marking_Rate + 1).
        Random = "random",
        /// Every (Marking_Rate + 1)-th eligible packet of a Port VL.
        Counter = "counter",
    }
}

choice_enum! {
    /// Which packets a Port VL in the congestion state marks, by how their route reached it.
    #[derive(Default)]
    pub enum MarkHops {
        /// Every eligible packet (the specification).
        #[default]
        All = "all",
        /// Only packets whose routing offered no other output port at this switch: one that
        /// adaptive routing sent through the Port VL could have gone elsewhere, and says
        /// nothing about a root it cannot avoid (ours).
        Unchosen = "unchosen",
    }
}

choice_enum! {
    /// How CCTI timers run.
    pub enum TimerKind {
        /// One free-running timer per adapter port and service level: each expiry lowers the
        /// index of every flow by one (the InfiniBand specification).
        PerSl = "per_sl",
        /// A timer per flow, restarted by each BECN (CCFIT and EcoCC).
        PerFlowRestart = "per_flow_restart",
    }
}

choice_enum! {
    /// Where the congestion control state of an adapter lives.
    pub enum Level {
        /// Per queue pair (source, destination): only the flow that was marked slows down.
        Qp = "qp",
        /// Per service level of the adapter: every flow of the adapter slows down.
        Sl = "sl",
    }
}

choice_enum! {
    /// The congestion control table (CCT): the injection rate delay of each index.
    pub enum CctKind {
        /// Gran et al.'s hardware study: i² · 7 / 106² µs.
        Paper3 = "paper3",
        /// The switch vendor's default: i² · 7 / 95² µs.
        Vendor = "vendor",
        /// i² · top / Limit² µs, with `cct_top_us` at the top index.
        Quadratic = "quadratic",
        /// The values of `cct_table_us`.
        Table = "table",
    }
}

choice_enum! {
    /// What the injection rate delay (IRD) separates.
    pub enum Ird {
        /// An idle gap after the previous packet of the flow has been sent, scaled by the
        /// packet's length over the MTU.
        GapAfter = "gap_after",
        /// The starts of consecutive packets of the flow.
        StartToStart = "start_to_start",
    }
}

choice_enum! {
    /// How a switch's congestion notification reaches the source of a marked packet.
    #[derive(Default)]
    pub enum Notification {
        /// The packet carries a forward mark to its destination, which sends the source a
        /// notification (InfiniBand's FECN and CNP with its BECN).
        #[default]
        Forward = "forward",
        /// The switch sends the notification straight to the source, routed from the switch
        /// (IEEE 802.1Qau's congestion notification message): the loop is shorter.
        Backward = "backward",
    }
}

choice_enum! {
    /// What a congestion notification says.
    #[derive(Default)]
    pub enum Feedback {
        /// Only that the Port VL is congested (InfiniBand's FECN and BECN).
        #[default]
        Binary = "binary",
        /// How severely: IEEE 802.1Qau's feedback, `Fb = −(Q_off + w·Q_δ)` quantized to 6 bits.
        Quantized = "quantized",
    }
}

choice_enum! {
    /// The lane congestion notifications travel on.
    pub enum CnpLane {
        /// The data lane, behind the data (Papers I-IV).
        Data = "data",
        /// A lane of their own, the highest (`router.vcs` - 1), served before the others at
        /// every switch output (Papers V and VI); data keeps to the lanes below it.
        Priority = "priority",
    }
}

/// The upper threshold of a Port VL: from a threshold weight, or given in blocks. Only the key
/// that sets it is written to a resolved configuration, so that it reads back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Threshold {
    /// Threshold weight 0-15 (0: never mark; 15: the lowest threshold).
    #[serde(rename = "threshold_weight")]
    Weight(u32),
    /// The upper threshold in blocks.
    #[serde(rename = "threshold_blocks")]
    Blocks(u32),
}

/// How often eligible packets are marked: a Marking_Rate, or a probability.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MarkingRate {
    /// Marking_Rate: eligible packets between two marks, on average (probability
    /// 1/(rate + 1)).
    #[serde(rename = "marking_rate")]
    Rate(u32),
    /// A marking probability (counter marking: every round(1/p)-th eligible packet).
    #[serde(rename = "marking_probability")]
    Probability(f64),
}

impl MarkingRate {
    /// The probability of marking an eligible packet.
    pub fn probability(self) -> f64 {
        match self {
            MarkingRate::Rate(rate) => 1.0 / f64::from(rate + 1),
            MarkingRate::Probability(p) => p,
        }
    }

    /// Eligible packets from one mark to the next, for counter marking.
    pub fn period(self) -> u32 {
        match self {
            MarkingRate::Rate(rate) => rate + 1,
            MarkingRate::Probability(p) => ((1.0 / p).round() as u32).max(1),
        }
    }
}

/// Settings of InfiniBand congestion control.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbCcConfig {
    /// The upper threshold, by weight or in blocks (written as the one key that sets it).
    #[serde(flatten)]
    pub threshold: Threshold,
    /// Blocks between the upper and the lower threshold (0: one threshold).
    pub hysteresis_blocks: u32,
    /// What occupancy is compared with the thresholds.
    pub detect: Detect,
    /// When a Port VL counts as a root.
    pub root_test: RootTest,
    /// Ports that may be roots without credits.
    pub victim_mask: VictimMask,
    /// Packets shorter than this are never marked (Packet_Size), bytes.
    pub packet_size_bytes: u32,
    /// How often eligible packets are marked (written as the one key that sets it).
    #[serde(flatten)]
    pub marking_rate: MarkingRate,
    /// How marks are spaced.
    pub marking: Marking,
    /// Which packets may be marked, by how their route reached the Port VL.
    #[serde(skip_serializing_if = "crate::config::is_default")]
    pub mark_hops: MarkHops,
    /// CCTI_Increase: index steps per BECN.
    pub ccti_increase: u32,
    /// CCTI_Limit: the highest index.
    pub ccti_limit: u32,
    /// CCTI_Min: the lowest index.
    pub ccti_min: u32,
    /// CCTI_Timer, in timer units.
    pub ccti_timer: f64,
    /// The timer unit, µs (1, or the specification's 1.024).
    pub timer_unit_us: f64,
    /// How timers run.
    pub timer: TimerKind,
    /// Where the adapter's state lives.
    pub level: Level,
    /// The congestion control table.
    pub cct: CctKind,
    /// With `cct = "quadratic"`: the delay at the top index, µs.
    pub cct_top_us: f64,
    /// With `cct = "table"`: the delays, µs, index 0 first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cct_table_us: Option<Vec<f64>>,
    /// What the delay separates.
    pub ird: Ird,
    /// The lane of congestion notifications.
    pub cnp_vl: CnpLane,
    /// How notifications reach the source.
    #[serde(skip_serializing_if = "crate::config::is_default")]
    pub notification: Notification,
    /// What a notification says.
    #[serde(skip_serializing_if = "crate::config::is_default")]
    pub feedback: Feedback,
    /// With quantized feedback: the weight `w` of the queue's growth `Q_δ`.
    #[serde(skip_serializing_if = "is_qcn_weight")]
    pub feedback_weight: u32,
}

/// IEEE 802.1Qau's default weight of the queue's growth in the feedback (`w = 2`).
pub const QCN_WEIGHT: u32 = 2;

/// IEEE 802.1Qau's default rate decrease per unit of quantized feedback (`G_d` = 1/128: the
/// largest feedback, 63, about halves the rate).
pub const QCN_GD: f64 = 1.0 / 128.0;

/// Whether `w` is 802.1Qau's default (left out of the resolved configuration).
fn is_qcn_weight(w: &u32) -> bool {
    *w == QCN_WEIGHT
}

/// The keys that belong to InfiniBand congestion control.
const KEYS: [&str; 26] = [
    "threshold_weight",
    "threshold_blocks",
    "hysteresis_blocks",
    "detect",
    "root_test",
    "victim_mask",
    "packet_size_bytes",
    "marking_rate",
    "marking",
    "mark_hops",
    "marking_probability",
    "ccti_increase",
    "ccti_limit",
    "ccti_min",
    "ccti_timer",
    "timer_unit_us",
    "timer",
    "level",
    "cct",
    "cct_top_us",
    "cct_table_us",
    "ird",
    "cnp_vl",
    "notification",
    "feedback",
    "feedback_weight",
];

/// Blocks of the MTU the hysteresis default is counted in (2048 bytes).
const MTU_BLOCKS: u32 = 32;

impl Default for IbCcConfig {
    /// Paper III's Table I (threshold weight 15, Marking_Rate 1, Packet_Size 8 blocks = 512
    /// bytes, CCTI_Increase 1, CCTI_Limit 127, CCTI_Min 0, CCTI_Timer 150 µs, CCT i²·7/106²
    /// µs), with two thresholds a little more than 3 MTU apart (Paper II), summed occupancy,
    /// queue-pair level, free-running timers and the delay as a gap after each packet.
    fn default() -> IbCcConfig {
        IbCcConfig {
            threshold: Threshold::Weight(15),
            hysteresis_blocks: 3 * MTU_BLOCKS + 1,
            detect: Detect::Sum,
            root_test: RootTest::AnyCredit,
            victim_mask: VictimMask::CaPorts,
            packet_size_bytes: 512,
            marking_rate: MarkingRate::Rate(1),
            marking: Marking::Random,
            mark_hops: MarkHops::All,
            ccti_increase: 1,
            ccti_limit: 127,
            ccti_min: 0,
            ccti_timer: 150.0,
            timer_unit_us: 1.0,
            timer: TimerKind::PerSl,
            level: Level::Qp,
            cct: CctKind::Paper3,
            cct_top_us: 150.0,
            cct_table_us: None,
            ird: Ird::GapAfter,
            cnp_vl: CnpLane::Data,
            notification: Notification::Forward,
            feedback: Feedback::Binary,
            feedback_weight: QCN_WEIGHT,
        }
    }
}

/// Reads the InfiniBand congestion control keys.
fn read(s: &Section<'_>) -> IbCcConfig {
    let cct_table_us = s.value("cct_table_us").and_then(|value| {
        let items = value.as_array().filter(|items| !items.is_empty());
        let delays: Option<Vec<f64>> = items.and_then(|items| {
            items
                .iter()
                .map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
                .map(|x| x.filter(|x| x.is_finite() && *x >= 0.0))
                .collect()
        });
        if delays.is_none() {
            s.problem(
                "cct_table_us",
                "must be a non-empty array of delays in µs, each at least 0",
            );
        }
        delays
    });
    // Each pair gives one quantity two ways: both at once would leave one silently unused.
    for (instead, of) in [
        ("threshold_blocks", "threshold_weight"),
        ("marking_probability", "marking_rate"),
    ] {
        if s.has(instead) && s.has(of) {
            s.problem(
                instead,
                format!("replaces {of}, which is also given; give one of them"),
            );
        }
    }
    let d = IbCcConfig::default();
    let feedback = s.choice("feedback", d.feedback);
    if feedback == Feedback::Binary && s.has("feedback_weight") {
        s.problem(
            "feedback_weight",
            "only applies with feedback = \"quantized\"",
        );
    }
    IbCcConfig {
        threshold: {
            let weight = s.int("threshold_weight", 15, 0, 15);
            s.opt_int("threshold_blocks", 1, 1 << 20)
                .map_or(Threshold::Weight(weight), Threshold::Blocks)
        },
        hysteresis_blocks: s.int("hysteresis_blocks", d.hysteresis_blocks, 0, 1 << 20),
        detect: s.choice("detect", d.detect),
        root_test: s.choice("root_test", d.root_test),
        victim_mask: s.choice("victim_mask", d.victim_mask),
        packet_size_bytes: s.int("packet_size_bytes", d.packet_size_bytes, 0, 1 << 24),
        marking_rate: {
            let rate = s.int("marking_rate", 1, 0, 1 << 20);
            s.opt_float(
                "marking_probability",
                |p| p > 0.0 && p <= 1.0,
                "greater than 0 and at most 1",
            )
            .map_or(MarkingRate::Rate(rate), MarkingRate::Probability)
        },
        marking: s.choice("marking", d.marking),
        mark_hops: s.choice("mark_hops", d.mark_hops),
        ccti_increase: s.int("ccti_increase", d.ccti_increase, 1, 1 << 14),
        ccti_limit: s.int("ccti_limit", d.ccti_limit, 0, (1 << 14) - 1),
        ccti_min: s.int("ccti_min", d.ccti_min, 0, (1 << 14) - 1),
        ccti_timer: s.float(
            "ccti_timer",
            d.ccti_timer,
            |t| t > 0.0 && t <= 1e7,
            "above 0, at most 1e7",
        ),
        timer_unit_us: s.float(
            "timer_unit_us",
            d.timer_unit_us,
            |u| u == 1.0 || u == 1.024,
            "1 or 1.024 (the specification's unit)",
        ),
        timer: s.choice("timer", d.timer),
        level: s.choice("level", d.level),
        cct: s.choice("cct", d.cct),
        cct_top_us: s.float(
            "cct_top_us",
            d.cct_top_us,
            |t| (0.0..=1e7).contains(&t),
            "from 0 to 1e7",
        ),
        cct_table_us,
        ird: s.choice("ird", d.ird),
        cnp_vl: s.choice("cnp_vl", d.cnp_vl),
        notification: s.choice("notification", d.notification),
        feedback,
        feedback_weight: s.int("feedback_weight", d.feedback_weight, 0, 64),
    }
}

/// Checks the settings against the rest of the configuration.
fn check(settings: &IbCcConfig, name: &str, cfg: &Config, issues: &Issues) {
    let problem = |path: &str, value: Option<toml::Value>, message: String| {
        issues.push(path.into(), value.as_ref(), message)
    };
    let mechanism = Some(toml::Value::String(name.into()));
    match &cfg.fabric {
        FabricConfig::Buffered(b) if b.link_gbps.is_some() => {}
        FabricConfig::Buffered(_) => problem(
            "congestion.mechanism",
            mechanism.clone(),
            "needs fabric.link (its timers and delays are in µs)".into(),
        ),
        FabricConfig::Vc => problem(
            "congestion.mechanism",
            mechanism.clone(),
            "needs fabric.kind = \"buffered\" (InfiniBand switches)".into(),
        ),
    }
    if cfg.nic.queues != NicQueues::PerDestination {
        problem(
            "congestion.mechanism",
            mechanism,
            "needs nic.queues = \"per_destination\" (an adapter's queue pairs)".into(),
        );
    }
    check_notifications(settings.cnp_vl, settings.notification, cfg, issues);
    if settings.ccti_min > settings.ccti_limit {
        problem(
            "congestion.ccti_min",
            Some(toml::Value::Integer(settings.ccti_min.into())),
            format!("must be at most ccti_limit ({})", settings.ccti_limit),
        );
    }
    let table_len = match (&settings.cct, &settings.cct_table_us) {
        (CctKind::Table, Some(table)) => Some(table.len()),
        (CctKind::Table, None) => {
            problem(
                "congestion.cct",
                Some(toml::Value::String("table".into())),
                "needs cct_table_us (the delays, µs)".into(),
            );
            None
        }
        (_, Some(_)) => {
            problem(
                "congestion.cct_table_us",
                None,
                "only applies with cct = \"table\"".into(),
            );
            None
        }
        _ => None,
    };
    if let Some(len) = table_len
        && settings.ccti_limit as usize >= len
    {
        problem(
            "congestion.ccti_limit",
            Some(toml::Value::Integer(settings.ccti_limit.into())),
            format!("must be below the {len} entries of cct_table_us"),
        );
    }
}

/// Checks the notifications' path, shared by IB CC and QCN: a priority lane needs a lane
/// besides the data, and a switch can send a notification back to a source only where its
/// routing reaches the sources from every switch: not through a butterfly, whose packets only
/// move forward.
pub(super) fn check_notifications(
    cnp_vl: CnpLane,
    notification: Notification,
    cfg: &Config,
    issues: &Issues,
) {
    if cnp_vl == CnpLane::Priority && cfg.router.vcs < 2 {
        issues.push(
            "congestion.cnp_vl".into(),
            Some(&toml::Value::String("priority".into())),
            format!(
                "needs a lane of its own besides the data: router.vcs must be at least 2 (it is {})",
                cfg.router.vcs
            ),
        );
    }
    let kind = cfg.topology.kind;
    if notification == Notification::Backward
        && matches!(kind, TopologyKind::Butterfly | TopologyKind::Multibutterfly)
    {
        issues.push(
            "congestion.notification".into(),
            Some(&toml::Value::String("backward".into())),
            format!(
                "needs routes from every switch back to the sources; a {} only leads from \
                 sources to destinations (use \"forward\")",
                kind.name()
            ),
        );
    }
}

impl Settings for IbCcConfig {
    const KEYS: &'static [&'static str] = &KEYS;

    fn read(s: &Section<'_>, _: Mechanism) -> IbCcConfig {
        read(s)
    }

    fn check(&self, mechanism: Mechanism, cfg: &Config, issues: &Issues) {
        check(self, mechanism.name(), cfg, issues);
    }
}
