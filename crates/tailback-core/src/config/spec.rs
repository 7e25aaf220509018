//! The validated configuration every run is built from.

use std::ops::Deref;

use serde::Serialize;

use super::{Config, ConfigError, parse_table};

/// A configuration that has been read and checked: every key within its range, every
/// cross-check passed, the topology file parsed. The simulator, the predictor and the analyses
/// take a `Spec`, so nothing is validated (or read from disk) twice on the way from a file to a
/// run. Read one from text or a TOML tree; a [`Config`] built or edited in code becomes one
/// through [`Spec::new`].
///
/// ```
/// use tailback_core::config::Spec;
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
        Config::read(table, None).map(Spec)
    }

    /// Checks a configuration built or edited in code. It is read back from its own
    /// serialization, so it passes exactly the checks a file does and gets the defaults of any
    /// setting it left out; its topology file is not parsed again while `file` still names it.
    pub fn new(config: Config) -> Result<Spec, ConfigError> {
        let table = toml::Table::try_from(&config).map_err(|e| ConfigError::Syntax {
            source_name: "<in-memory config>".into(),
            message: e.to_string(),
        })?;
        Config::read(&table, Some(&config)).map(Spec)
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
