//! Loading a configuration file and applying `--set` overrides.

use std::path::Path;

use tailback_core::config;
use tailback_core::files;
use tailback_core::spec::Spec;

use crate::cli::ConfigSource;
use crate::error::{CliError, CliResult};

/// The configuration tree from `path` (an empty tree, meaning all defaults, when `None`) with
/// `source`'s removals and then its overrides applied.
pub fn load_table(path: Option<&Path>, source: &ConfigSource) -> CliResult<toml::Table> {
    Ok(load_table_and_slurm(path, source)?.0)
}

/// [`load_table`], and the file's `[slurm]` table (options of `--slurm` job scripts, see
/// `docs/cluster.md`), which is taken out of the configuration before anything checks it.
pub fn load_table_and_slurm(
    path: Option<&Path>,
    source: &ConfigSource,
) -> CliResult<(toml::Table, Option<toml::Value>)> {
    let mut slurm = None;
    let mut table = match path {
        None => toml::Table::new(),
        Some(path) => {
            let text = read_config_text(path)?;
            let mut table = config::parse_table(&text, &path.display().to_string())?;
            slurm = table.remove("slurm");
            resolve_relative_paths(&mut table, path);
            table
        }
    };
    for key in &source.unset {
        config::unset_path(&mut table, key.trim())?;
    }
    for assignment in &source.set {
        let (key, value) = config::parse_assignment(assignment)
            .map_err(|e| CliError::Input(format!("--set {e}")))?;
        config::set_path(&mut table, &key, value)?;
    }
    Ok((table, slurm))
}

/// The text of the configuration at `path`: a regular file, or standard input for `-`, of at
/// most [`MAX_CONFIG_BYTES`](files::MAX_CONFIG_BYTES) either way.
fn read_config_text(path: &Path) -> CliResult<String> {
    let text = if path == Path::new("-") {
        files::read_limited(std::io::stdin().lock(), files::MAX_CONFIG_BYTES)
    } else {
        files::read_text(path, files::MAX_CONFIG_BYTES)
    };
    text.map_err(|why| CliError::Input(format!("cannot read config {}: {why}", path.display())))
}

/// Makes relative file paths in the config at `config_path` (`topology.file`,
/// `traffic.trace_file`) relative to that config's directory (`--set` paths stay relative to
/// the working directory).
fn resolve_relative_paths(table: &mut toml::Table, config_path: &Path) {
    for (section, key) in [("topology", "file"), ("traffic", "trace_file")] {
        let Some(toml::Value::Table(section)) = table.get_mut(section) else {
            continue;
        };
        if let Some(toml::Value::String(file)) = section.get_mut(key)
            && Path::new(file.as_str()).is_relative()
            && let Some(dir) = config_path.parent()
        {
            *file = dir.join(file.as_str()).display().to_string();
        }
    }
}

/// The validated configuration from `path` (defaults when `None`) with `source`'s changes.
pub fn load_config(path: Option<&Path>, source: &ConfigSource) -> CliResult<Spec> {
    Ok(Spec::from_table(&load_table(path, source)?)?)
}
