//! One writer per output directory: an advisory lock on `.tailback.lock`, which names its
//! holder. The operating system releases the lock when the holder exits, however it exits, so
//! a crashed run never leaves a directory locked.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

use crate::{Error, Result};

/// The lock file's name inside an output directory.
pub const LOCK_FILE: &str = ".tailback.lock";

/// Holds the lock of an output directory until dropped.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
}

impl OutputLock {
    /// Locks `dir` for this process, or refuses naming the process that holds it.
    pub fn acquire(dir: &Path) -> Result<OutputLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::Failed(anyhow::anyhow!("cannot open {}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                // The holder may be rewriting it; an empty or partial name is still an answer.
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(Error::Busy(format!(
                    "{} is being written by another tailback ({}); wait for it to finish, or \
                     write elsewhere with --out",
                    dir.display(),
                    if holder.is_empty() {
                        "holder unknown"
                    } else {
                        holder
                    }
                )));
            }
            Err(TryLockError::Error(e)) => {
                return Err(Error::Failed(anyhow::anyhow!(
                    "cannot lock {}: {e}",
                    path.display()
                )));
            }
        }
        let holder = format!(
            "process {} started {} s after the epoch: {}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            std::env::args().collect::<Vec<_>>().join(" ")
        );
        file.set_len(0)?;
        file.rewind()?;
        writeln!(file, "{holder}")?;
        Ok(OutputLock { _file: file })
    }
}

/// Whether another process holds the lock of `dir` now (is writing there), found by trying to
/// take it and letting go at once; a directory without a lock file is not held.
pub fn is_held(dir: &Path) -> Result<bool> {
    let path = dir.join(LOCK_FILE);
    let file = match OpenOptions::new().read(true).open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => {
            return Err(Error::Failed(anyhow::anyhow!(
                "cannot open {}: {e}",
                path.display()
            )));
        }
    };
    match file.try_lock_shared() {
        Ok(()) => {
            file.unlock()?;
            Ok(false)
        }
        Err(TryLockError::WouldBlock) => Ok(true),
        Err(TryLockError::Error(e)) => Err(Error::Failed(anyhow::anyhow!(
            "cannot lock {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holder_named_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutputLock::acquire(dir.path()).unwrap();
        let refused = OutputLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            refused.contains("being written by another tailback"),
            "{refused}"
        );
        assert!(
            refused.contains(&format!("process {}", std::process::id())),
            "{refused}"
        );
        drop(first);
        OutputLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn a_held_lock_is_seen_held_and_a_free_one_is_left_free() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_held(dir.path()).unwrap(), "no lock file");
        let first = OutputLock::acquire(dir.path()).unwrap();
        assert!(is_held(dir.path()).unwrap());
        drop(first);
        assert!(!is_held(dir.path()).unwrap());
        // Looking did not keep it.
        OutputLock::acquire(dir.path()).unwrap();
    }
}
