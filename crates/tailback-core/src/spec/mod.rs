//! The validated configuration every run is built from: the stage above the configuration,
//! routing, traffic and the mechanisms' settings that checks them against each other.

mod check;

use std::ops::Deref;

use serde::Serialize;

use crate::config::reader::Issues;
use crate::config::{CnpLane, Config, ConfigError, CongestionConfig, parse_table};

/// A configuration that has been read and checked: every key within its range, every
/// cross-check passed, the topology file parsed. The simulator, the predictor and the analyses
/// take a `Spec`, so nothing is validated (or read from disk) twice on the way from a file to a
/// run. Read one from text or a TOML tree; a [`Config`] built or edited in code becomes one
/// through [`Spec::new`].
///
/// ```
/// use tailback_core::spec::Spec;
/// let spec = Spec::from_toml_str("[topology]\nk = 4\n[traffic]\nrate = 0.2", "<doc>").unwrap();
/// assert_eq!(spec.topology.dims, vec![4, 4]);
/// let err = Spec::from_toml_str("[router]\nvcs = 0\nvcz = 3", "<doc>").unwrap_err();
/// assert_eq!(err.issues().len(), 2);
///
/// let faster = spec.edited(|c| c.traffic.rate = 0.4).unwrap();
/// assert_eq!(faster.traffic.rate, 0.4);
/// assert!(spec.edited(|c| c.traffic.rate = 9.0).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Spec(Config);

impl Spec {
    /// Parses and checks TOML (or JSON) text; `source_name` labels syntax errors.
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<Spec, ConfigError> {
        Spec::from_table(&parse_table(text, source_name)?)
    }

    /// Reads and checks a TOML tree, reporting every problem at once.
    pub fn from_table(table: &toml::Table) -> Result<Spec, ConfigError> {
        Spec::read(table, None)
    }

    /// Checks a configuration built or edited in code. It is read back from its own
    /// serialization, so it passes exactly the checks a file does and gets the defaults of any
    /// setting it left out; its topology file is not parsed again while `file` still names it.
    pub fn new(config: Config) -> Result<Spec, ConfigError> {
        let table = toml::Table::try_from(&config).map_err(|e| ConfigError::Syntax {
            source_name: "<in-memory config>".into(),
            message: e.to_string(),
        })?;
        Spec::read(&table, Some(&config))
    }

    /// Reads `table` (`known`: a configuration read before whose topology file need not be
    /// parsed again), then checks the sections against each other; every problem at once.
    fn read(table: &toml::Table, known: Option<&Config>) -> Result<Spec, ConfigError> {
        let issues = Issues::default();
        let config = Config::read(table, known, &issues);
        check::check_consistency(&config, &issues);
        let issues = issues.into_vec();
        if issues.is_empty() {
            Ok(Spec(config))
        } else {
            Err(ConfigError::Invalid(issues))
        }
    }

    /// A copy with `edit` applied, checked again.
    pub fn edited(&self, edit: impl FnOnce(&mut Config)) -> Result<Spec, ConfigError> {
        let mut config = self.0.clone();
        edit(&mut config);
        Spec::new(config)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.0
    }

    /// The configuration, to edit (and check again with [`Spec::new`]).
    pub fn into_config(self) -> Config {
        self.0
    }

    /// The lane served before all others at every switch output and kept for control packets
    /// at the adapters (InfiniBand congestion control or QCN with `cnp_vl = "priority"`).
    pub(crate) fn priority_lane(&self) -> Option<usize> {
        priority_lane(&self.0)
    }

    /// The lanes priority flow control paces (a mask; 0 without it): every lane but the
    /// priority lane, which keeps credits so that control is never paused.
    pub(crate) fn pfc_lanes(&self) -> u32 {
        if self.0.pfc_thresholds().is_none() {
            return 0;
        }
        let all = u32::MAX >> (32 - self.0.router.vcs);
        all & !self.priority_lane().map_or(0, |lane| 1 << lane)
    }
}

/// [`Spec::priority_lane`] of a configuration being checked.
pub(crate) fn priority_lane(cfg: &Config) -> Option<usize> {
    match &cfg.congestion {
        CongestionConfig::IbCc(settings) if settings.cnp_vl == CnpLane::Priority => {
            Some(cfg.router.vcs as usize - 1)
        }
        CongestionConfig::Qcn(settings) if settings.cnp_vl == CnpLane::Priority => {
            Some(cfg.router.vcs as usize - 1)
        }
        _ => None,
    }
}

impl Default for Spec {
    /// Every setting at its default: the 8x8 torus under uniform traffic.
    fn default() -> Self {
        Spec::from_table(&toml::Table::new()).expect("the default configuration is valid")
    }
}

impl Deref for Spec {
    type Target = Config;

    fn deref(&self) -> &Config {
        &self.0
    }
}
