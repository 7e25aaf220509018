//! `[record]`: what a run records besides its summary.

use serde::Serialize;

use super::Units;
use super::reader::{Section, choice_enum};

choice_enum! {
    /// The span of the measurement window over which `congested_port_vls` samples the Port VLs.
    #[derive(Default)]
    pub enum PortVlSpan {
        /// Its second half (a congestion tree that has settled).
        #[default]
        SecondHalf = "second_half",
        /// From the run's first cycle to the window's end (a tree's growth and its peak too).
        Run = "run",
    }
}

/// `[record]`: time series and buffer-occupancy snapshots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordConfig {
    /// Record a time series row every this many cycles (0: no time series).
    pub series_window: u64,
    /// Cycles at whose end the buffer occupancy of every router is recorded.
    pub occupancy_at: Vec<u64>,
    /// Record, every series window, the packets on their way to each node.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending_per_receiver: bool,
    /// Record the throughput of every flow (source–destination pair), over the measurement
    /// window and every series window.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flows: bool,
    /// With `flows`: only each flow's total over the measurement window, not its series
    /// windows (runs with very many flows).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flow_totals_only: bool,
    /// Buffered fabric: report the Port VLs congested over the second half of the measurement
    /// window (or from the run's start, with `port_vl_span`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub congested_port_vls: bool,
    /// The span `congested_port_vls` samples.
    #[serde(skip_serializing_if = "super::is_default")]
    pub port_vl_span: PortVlSpan,
}

impl RecordConfig {
    /// Reads `[record]`; with `units`, the series window may be given in µs instead.
    pub(crate) fn read(s: Section<'_>, units: Option<Units>) -> Self {
        let cfg = RecordConfig {
            series_window: s.duration("series_window", "series_window_us", 0, (0, 1 << 40), units),
            occupancy_at: s
                .opt_int_list("occupancy_at", 0, 1 << 40)
                .unwrap_or_default()
                .into_iter()
                .map(|c| c as u64)
                .collect(),
            pending_per_receiver: s.boolean("pending_per_receiver", false),
            flows: s.boolean("flows", false),
            flow_totals_only: s.boolean("flow_totals_only", false),
            congested_port_vls: s.boolean("congested_port_vls", false),
            port_vl_span: s.choice("port_vl_span", PortVlSpan::SecondHalf),
        };
        if cfg.pending_per_receiver && cfg.series_window == 0 {
            s.problem(
                "pending_per_receiver",
                "is recorded every series window: set record.series_window too",
            );
        }
        if cfg.flow_totals_only && !cfg.flows {
            s.problem(
                "flow_totals_only",
                "limits what record.flows records: set it to true too",
            );
        }
        if s.has("port_vl_span") && !cfg.congested_port_vls {
            s.problem(
                "port_vl_span",
                "is the span record.congested_port_vls samples: set it to true too",
            );
        }
        s.finish();
        cfg
    }
}
