//! `[congestion]`: which congestion management mechanism runs, and its settings.

use serde::Serialize;

use super::reader::{Section, choice_enum};

choice_enum! {
    /// Congestion management mechanism.
    pub enum Mechanism {
        /// No congestion management.
        None = "none",
    }
}

/// `[congestion]`: the congestion management mechanism.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CongestionConfig {
    /// Which mechanism runs.
    pub mechanism: Mechanism,
}

impl CongestionConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let cfg = CongestionConfig {
            mechanism: s.choice("mechanism", Mechanism::None),
        };
        s.finish();
        cfg
    }
}
