//! NIFDY's settings: the keys under `[congestion]` with `mechanism = "nifdy"` or
//! `"nifdy_buffers_only"`, read and checked against the rest of the configuration.

use serde::Serialize;

use super::{Mechanism, Settings};
use crate::config::reader::{Issues, Section};
use crate::config::{Choice, Config};

/// Settings of NIFDY (keys directly under `[congestion]`), named as in the paper.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NifdyConfig {
    /// Entries of the outstanding packet table: scalar packets in flight per node (`nifdy`
    /// only; absent in buffers-only mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub o: Option<u32>,
    /// Packets the outgoing pool holds.
    pub b: u32,
    /// Bulk dialogs a receiver grants at once.
    pub d: u32,
    /// Window of a bulk dialog: unacknowledged packets, and reorder buffers at the receiver.
    pub w: u32,
    /// Length of an ack packet, flits.
    pub ack_flits: u32,
    /// A packet asks for a bulk dialog when at least this many packets of its message follow.
    pub bulk_request_packets: u32,
}

impl NifdyConfig {
    /// Buffers-only mode's packet buffers, (pool, arrivals queue): the unit's buffers (the pool
    /// and `d` reorder windows of `w` packets) and an `arrivals`-packet arrivals queue together,
    /// split evenly with the odd one to the arrivals queue.
    pub fn buffers_only_split(&self, arrivals: u32) -> (u32, u32) {
        let total = self.b + self.d * self.w + arrivals;
        (total / 2, total.div_ceil(2))
    }
}

/// The keys that belong to NIFDY.
const KEYS: [&str; 6] = ["o", "b", "d", "w", "ack_flits", "bulk_request_packets"];

/// Reads the NIFDY keys (defaults: the paper's conclusion, O = 8, B = 16, D = 1, W = 8).
fn read(s: &Section<'_>, buffers_only: bool) -> NifdyConfig {
    if buffers_only && s.has("o") {
        s.problem(
            "o",
            "only applies when congestion.mechanism = \"nifdy\" (buffers-only mode has no \
             outstanding packet table)",
        );
    }
    let cfg = NifdyConfig {
        o: Some(s.int("o", 8, 1, 1024)).filter(|_| !buffers_only),
        b: s.int("b", 16, 1, 1 << 16),
        d: s.int("d", 1, 0, 255),
        w: s.int("w", 8, 0, 255),
        ack_flits: s.int("ack_flits", 4, 1, 4096),
        bulk_request_packets: s.int("bulk_request_packets", 2, 1, 1 << 20),
    };
    if cfg.d > 0 && cfg.w == 0 {
        s.problem(
            "w",
            format!(
                "must be at least 1 when receivers grant bulk dialogs (d = {})",
                cfg.d
            ),
        );
    }
    cfg
}

/// Checks NIFDY against the rest of the configuration: it needs processors (an ack is sent
/// when the processor takes a packet) and a reply network, and an ack must fit a VC buffer
/// under whole-packet switching. `mechanism` is the configured name.
fn check(nifdy: &NifdyConfig, mechanism: &str, cfg: &Config, issues: &Issues) {
    let named = toml::Value::String(mechanism.into());
    if cfg.processor.is_none() {
        issues.push(
            "congestion.mechanism".into(),
            Some(&named),
            "needs a [processor] section: NIFDY acknowledges a packet when the processor takes it"
                .to_string(),
        );
    }
    if cfg.router.logical_networks != 2 {
        issues.push(
            "congestion.mechanism".into(),
            Some(&named),
            "needs router.logical_networks = 2: NIFDY's acks travel on the reply network"
                .to_string(),
        );
    }
    let router = &cfg.router;
    let clean = !issues.touches("router.switching") && !issues.touches("router.vc_buffer_flits");
    if clean && router.switching.whole_packets() && nifdy.ack_flits > router.vc_buffer_flits {
        issues.push(
            "congestion.ack_flits".into(),
            Some(&toml::Value::Integer(nifdy.ack_flits.into())),
            format!(
                "an ack must fit in one {}-flit VC buffer under {}",
                router.vc_buffer_flits,
                router.switching.name().replace('_', " ")
            ),
        );
    }
}

impl Settings for NifdyConfig {
    const KEYS: &'static [&'static str] = &KEYS;

    fn read(s: &Section<'_>, mechanism: Mechanism) -> NifdyConfig {
        read(s, mechanism == Mechanism::NifdyBuffersOnly)
    }

    fn check(&self, mechanism: Mechanism, cfg: &Config, issues: &Issues) {
        check(self, mechanism.name(), cfg, issues);
    }
}
