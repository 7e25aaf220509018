//! Settings of quantized congestion notification (IEEE 802.1Qau, QCN): the keys under
//! `[congestion]` with `mechanism = "qcn"`. Defaults are the standard's as its management
//! information base (IEEE8021-CN-MIB) and switch vendors' configuration guides give them;
//! `docs/config.md` names the source of each.

use serde::Serialize;

use super::ib::{CnpLane, Feedback, Notification, QCN_GD, QCN_WEIGHT, check_notifications};
use super::{Mechanism, Settings};
use crate::config::reader::{Issues, Section};
use crate::config::{Choice, Config, FabricConfig, NicQueues, QueueKind};

/// Settings of QCN: a congestion point at every switch output, a reaction point (rate
/// limiter) per queue pair at every adapter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QcnConfig {
    /// The congestion point's set point `Q_eq`, bytes queued for the output at all inputs.
    pub set_point_bytes: u32,
    /// `w`, the weight of the queue's growth in the feedback.
    pub feedback_weight: u32,
    /// Bytes arriving between samples while the feedback is 0 (faster as it grows).
    pub sample_base_bytes: u32,
    /// Each sampling interval is drawn uniformly within this fraction around its value.
    pub sample_jitter: f64,
    /// `G_d`: the rate falls by `G_d · Fb_q` per notification.
    pub gd: f64,
    /// No notification cuts the rate below this factor of it.
    pub min_decrease_factor: f64,
    /// The lowest rate, Mbit/s.
    pub min_rate_mbps: f64,
    /// Bytes sent per byte-counter cycle (half of it once past fast recovery).
    pub byte_counter_bytes: u32,
    /// The timer's cycle, ms (half of it once past fast recovery).
    pub timer_ms: f64,
    /// Cycles of fast recovery before active increase.
    pub fast_recovery_cycles: u32,
    /// Active increase of the target rate per cycle, Mbit/s.
    pub ai_rate_mbps: f64,
    /// Hyper-active increase of the target rate per cycle, Mbit/s.
    pub hai_rate_mbps: f64,
    /// How notifications reach the source.
    pub notification: Notification,
    /// What a notification says.
    pub feedback: Feedback,
    /// With binary feedback: the quantized feedback a notification stands for at the source
    /// (ours).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_feedback: Option<u32>,
    /// The lane of notifications.
    pub cnp_vl: CnpLane,
}

/// The keys that belong to QCN.
const KEYS: [&str; 16] = [
    "set_point_bytes",
    "feedback_weight",
    "sample_base_bytes",
    "sample_jitter",
    "gd",
    "min_decrease_factor",
    "min_rate_mbps",
    "byte_counter_bytes",
    "timer_ms",
    "fast_recovery_cycles",
    "ai_rate_mbps",
    "hai_rate_mbps",
    "notification",
    "feedback",
    "binary_feedback",
    "cnp_vl",
];

/// The quantized feedback a binary notification stands for by default: the middle of the
/// 6-bit range (ours; the rate falls by a quarter).
const BINARY_FEEDBACK: u32 = 32;

impl Default for QcnConfig {
    /// IEEE 802.1Qau's defaults, notifications sent back by the switch with quantized feedback.
    fn default() -> QcnConfig {
        QcnConfig {
            set_point_bytes: 26_000,
            feedback_weight: QCN_WEIGHT,
            sample_base_bytes: 150_000,
            sample_jitter: 0.15,
            gd: QCN_GD,
            min_decrease_factor: 0.5,
            min_rate_mbps: 5.0,
            byte_counter_bytes: 150_000,
            timer_ms: 15.0,
            fast_recovery_cycles: 5,
            ai_rate_mbps: 5.0,
            hai_rate_mbps: 50.0,
            notification: Notification::Backward,
            feedback: Feedback::Quantized,
            binary_feedback: None,
            cnp_vl: CnpLane::Data,
        }
    }
}

impl QcnConfig {
    /// The quantized feedback a binary notification stands for.
    pub fn binary_feedback(&self) -> u32 {
        self.binary_feedback.unwrap_or(BINARY_FEEDBACK)
    }
}

/// Reads the QCN keys.
fn read(s: &Section<'_>) -> QcnConfig {
    let d = QcnConfig::default();
    let feedback = s.choice("feedback", d.feedback);
    let binary_feedback = s.opt_int("binary_feedback", 1, 63);
    if binary_feedback.is_some() && feedback == Feedback::Quantized {
        s.problem("binary_feedback", "only applies with feedback = \"binary\"");
    }
    let rate = |key: &'static str, default: f64| {
        s.float(
            key,
            default,
            |r| r > 0.0 && r <= 1e6,
            "above 0, at most 1e6",
        )
    };
    QcnConfig {
        set_point_bytes: s.int("set_point_bytes", d.set_point_bytes, 64, 1 << 30),
        feedback_weight: s.int("feedback_weight", d.feedback_weight, 0, 64),
        sample_base_bytes: s.int("sample_base_bytes", d.sample_base_bytes, 64, 1 << 30),
        sample_jitter: s.float(
            "sample_jitter",
            d.sample_jitter,
            |j| (0.0..1.0).contains(&j),
            "from 0 to below 1",
        ),
        gd: s.float(
            "gd",
            d.gd,
            |g| g > 0.0 && g * 63.0 < 1.0,
            "above 0 and below 1/63 (the largest feedback must leave a rate)",
        ),
        min_decrease_factor: s.float(
            "min_decrease_factor",
            d.min_decrease_factor,
            |f| f > 0.0 && f <= 1.0,
            "above 0, at most 1",
        ),
        min_rate_mbps: rate("min_rate_mbps", d.min_rate_mbps),
        byte_counter_bytes: s.int("byte_counter_bytes", d.byte_counter_bytes, 64, 1 << 30),
        timer_ms: s.float(
            "timer_ms",
            d.timer_ms,
            |t| t > 0.0 && t <= 1e4,
            "above 0, at most 1e4",
        ),
        fast_recovery_cycles: s.int("fast_recovery_cycles", d.fast_recovery_cycles, 1, 1000),
        ai_rate_mbps: rate("ai_rate_mbps", d.ai_rate_mbps),
        hai_rate_mbps: rate("hai_rate_mbps", d.hai_rate_mbps),
        notification: s.choice("notification", d.notification),
        feedback,
        binary_feedback,
        cnp_vl: s.choice("cnp_vl", d.cnp_vl),
    }
}

/// Checks the settings against the rest of the configuration.
fn check(settings: &QcnConfig, cfg: &Config, issues: &Issues) {
    let mechanism = Some(toml::Value::String("qcn".into()));
    let problem = |path: &str, value: Option<toml::Value>, message: &str| {
        issues.push(path.into(), value.as_ref(), message.into())
    };
    match &cfg.fabric {
        FabricConfig::Buffered(b) if b.link_gbps.is_none() => problem(
            "congestion.mechanism",
            mechanism.clone(),
            "needs fabric.link (its rates are in Mbit/s and its timer in ms)",
        ),
        FabricConfig::Buffered(b) if matches!(b.queues, QueueKind::NfqCfq | QueueKind::VoqHpq) => {
            problem(
                "fabric.queues",
                Some(toml::Value::String(b.queues.name().into())),
                "isolates congested flows, which QCN's congestion points do not watch; use \
                 \"voq\" or \"fifo\"",
            )
        }
        FabricConfig::Buffered(_) => {}
        FabricConfig::Vc => problem(
            "congestion.mechanism",
            mechanism.clone(),
            "needs fabric.kind = \"buffered\" (switches with Port VLs to watch)",
        ),
    }
    if cfg.nic.queues != NicQueues::PerDestination {
        problem(
            "congestion.mechanism",
            mechanism,
            "needs nic.queues = \"per_destination\" (a rate limiter per queue pair)",
        );
    }
    check_notifications(settings.cnp_vl, settings.notification, cfg, issues);
}

impl Settings for QcnConfig {
    const KEYS: &'static [&'static str] = &KEYS;

    fn read(s: &Section<'_>, _: Mechanism) -> QcnConfig {
        read(s)
    }

    fn check(&self, _: Mechanism, cfg: &Config, issues: &Issues) {
        check(self, cfg, issues);
    }
}
