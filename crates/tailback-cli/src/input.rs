//! Loading a configuration file and applying `--set` overrides.

use std::path::Path;

use tailback_core::config::{self, Config};

use crate::error::{CliError, CliResult};

/// The configuration tree from `path` (an empty tree, meaning all defaults, when `None`) with
/// `overrides` applied.
pub fn load_table(path: Option<&Path>, overrides: &[String]) -> CliResult<toml::Table> {
    let mut table = match path {
        None => toml::Table::new(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                CliError::Input(format!("cannot read config {}: {e}", path.display()))
            })?;
            let mut table = config::parse_table(&text, &path.display().to_string())?;
            resolve_topology_file(&mut table, path);
            table
        }
    };
    for assignment in overrides {
        let (key, value) = config::parse_assignment(assignment)
            .map_err(|e| CliError::Input(format!("--set {e}")))?;
        config::set_path(&mut table, &key, value)?;
    }
    Ok(table)
}

/// Makes a relative `topology.file` in the config at `config_path` relative to that config's
/// directory (`--set topology.file=...` stays relative to the working directory).
fn resolve_topology_file(table: &mut toml::Table, config_path: &Path) {
    let Some(toml::Value::Table(topology)) = table.get_mut("topology") else {
        return;
    };
    if let Some(toml::Value::String(file)) = topology.get_mut("file")
        && Path::new(file.as_str()).is_relative()
        && let Some(dir) = config_path.parent()
    {
        *file = dir.join(file.as_str()).display().to_string();
    }
}

/// The validated configuration from `path` (defaults when `None`) with `overrides` applied.
pub fn load_config(path: Option<&Path>, overrides: &[String]) -> CliResult<Config> {
    Ok(Config::from_table(&load_table(path, overrides)?)?)
}
