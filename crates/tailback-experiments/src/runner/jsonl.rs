//! Result files with one JSON record per line, written as results arrive so that an interrupted
//! run keeps everything it finished. A file is never rewritten in place: the records carried
//! over go to a new file, synced, which then replaces the old one, so a crash at any moment
//! leaves either the old file or the new one whole.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Result;

/// An open JSON-lines file.
pub struct JsonLines {
    file: File,
    /// Where it is, for errors (a full disk names the file).
    path: PathBuf,
}

impl JsonLines {
    /// Makes `path` hold exactly `keep` (records carried over from an earlier run), replacing
    /// any earlier file atomically, and opens it for appending.
    pub fn create<T: Serialize>(path: &Path, keep: &[T]) -> Result<JsonLines> {
        crate::atomic::replace(path, |file| {
            let mut lines = std::io::BufWriter::new(file);
            for record in keep {
                write_line(&mut lines, record)?;
            }
            lines.flush()
        })
        .with_context(|| format!("replacing {} whole", path.display()))?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        Ok(JsonLines {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one record and flushes it to disk.
    pub fn append<T: Serialize>(&mut self, record: &T) -> Result {
        write_line(&mut self.file, record)
            .and_then(|()| self.file.flush())
            .with_context(|| format!("writing {}", self.path.display()))?;
        Ok(())
    }
}

/// Writes `record` as one line.
fn write_line<T: Serialize>(out: &mut impl Write, record: &T) -> std::io::Result<()> {
    let line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    writeln!(out, "{line}")
}

/// The records of a JSON-lines file with their line numbers (from 1), skipping with a warning
/// a line cut short by an interrupt or otherwise unreadable (not JSON, not UTF-8).
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Vec<(usize, T)>> {
    let mut records = Vec::new();
    read_each(path, |line, _, record| records.push((line, record)))?;
    Ok(records)
}

/// Calls `each` with the line number (from 1), the text and the record of every readable line
/// of a JSON-lines file, skipping unreadable ones as [`read`] does.
pub fn read_each<T: DeserializeOwned>(
    path: &Path,
    mut each: impl FnMut(usize, &str, T),
) -> Result<()> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    for (i, bytes) in BufReader::new(file).split(b'\n').enumerate() {
        let bytes = bytes.with_context(|| format!("reading {}", path.display()))?;
        let line = i + 1;
        let Ok(text) = std::str::from_utf8(&bytes) else {
            eprintln!(
                "warning: skipping line {line} of {}: not UTF-8",
                path.display()
            );
            continue;
        };
        match serde_json::from_str::<T>(text) {
            Ok(record) => each(line, text, record),
            Err(_) if text.trim().is_empty() => {}
            Err(e) => eprintln!(
                "warning: skipping unreadable line {line} of {} ({e})",
                path.display()
            ),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full disk (`/dev/full` stands in) is an error naming the file being written.
    #[test]
    fn a_failed_append_names_the_file() {
        let Ok(file) = OpenOptions::new().append(true).open("/dev/full") else {
            return;
        };
        let mut lines = JsonLines {
            file,
            path: PathBuf::from("/out/results.jsonl"),
        };
        let err = lines.append(&1).unwrap_err().to_string();
        assert!(
            err.contains("writing /out/results.jsonl") && err.contains("No space left"),
            "{err}"
        );
    }

    #[test]
    fn unreadable_lines_are_skipped_and_the_rest_kept_with_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let mut bytes = b"[1]\n\xff\xfe not utf-8\n{\"cut sho\n\n[4]\n".to_vec();
        bytes.extend_from_slice(b"[5]");
        std::fs::write(&path, bytes).unwrap();
        let records: Vec<(usize, Vec<u32>)> = read(&path).unwrap();
        assert_eq!(records, [(1, vec![1]), (5, vec![4]), (6, vec![5])]);
    }

    #[test]
    fn creating_replaces_the_file_whole_and_appends_after_the_kept_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, "[9]\n[8]\n").unwrap();
        let mut lines = JsonLines::create(&path, &[[1], [2]]).unwrap();
        lines.append(&[3]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[1]\n[2]\n[3]\n");
        assert!(!crate::atomic::sibling(&path, "new").exists());
    }

    #[test]
    fn stored_floats_read_back_bit_for_bit() {
        // Shortest round-trip printing is only half of it: the parser must round correctly.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let values: Vec<f64> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                f64::from_bits(x >> 2 | 0x3000_0000_0000_0000)
            })
            .chain([0.1 + 0.2, 1.0 - f64::EPSILON, 2.225_073_858_507_201e-308])
            .collect();
        let text = serde_json::to_string(&values).unwrap();
        let back: Vec<f64> = serde_json::from_str(&text).unwrap();
        for (a, b) in values.iter().zip(&back) {
            assert_eq!(a.to_bits(), b.to_bits(), "{a:e} read back as {b:e}");
        }
    }
}
