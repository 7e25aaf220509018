//! Result files with one JSON record per line, written as results arrive so that an interrupted
//! run keeps everything it finished.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Result;

/// An open JSON-lines file.
pub struct JsonLines {
    file: File,
}

impl JsonLines {
    /// Creates `path` holding `keep` (records carried over from an earlier run).
    pub fn create<T: Serialize>(path: &Path, keep: &[T]) -> Result<JsonLines> {
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut lines = JsonLines { file };
        for record in keep {
            lines.write(record)?;
        }
        lines.file.flush()?;
        Ok(lines)
    }

    /// Appends one record and flushes it to disk.
    pub fn append<T: Serialize>(&mut self, record: &T) -> Result {
        self.write(record)?;
        self.file.flush()?;
        Ok(())
    }

    fn write<T: Serialize>(&mut self, record: &T) -> Result {
        let line = serde_json::to_string(record).map_err(anyhow::Error::from)?;
        writeln!(self.file, "{line}")?;
        Ok(())
    }
}

/// The records of a JSON-lines file, skipping a line cut short by an interrupt.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut records = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        match serde_json::from_str::<T>(&line) {
            Ok(record) => records.push(record),
            Err(_) if line.trim().is_empty() => {}
            Err(e) => eprintln!(
                "warning: skipping an unreadable result line in {} ({e})",
                path.display()
            ),
        }
    }
    Ok(records)
}
