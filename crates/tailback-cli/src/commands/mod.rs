//! The subcommands.

pub mod bench;
pub mod check;
pub mod experiment;
pub mod merge;
pub mod predict;
pub mod report;
pub mod run;
pub mod shard;
pub mod status;
pub mod sweep;

use std::path::Path;

use anyhow::Context;
use serde::Serialize;

/// Writes `value` as pretty JSON to `path`.
pub fn write_json(path: &Path, value: &impl Serialize) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    tailback_experiments::atomic::write(path, (text + "\n").as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}
