//! Files replaced whole: the new contents go to a sibling file, synced, which then takes the
//! old one's place, so a crash at any moment leaves either the old file or the new one.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `contents` to `path`, replacing any earlier file atomically.
pub fn write(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    replace(path, |file| file.write_all(contents))
}

/// Makes `path` hold what `fill` writes to a fresh file, replacing any earlier file
/// atomically.
pub fn replace(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let fresh = sibling(path, "new");
    let mut file = File::create(&fresh)?;
    fill(&mut file)?;
    file.sync_all()?;
    std::fs::rename(&fresh, path)
}

/// `path` with `.suffix` appended to its file name.
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    path.with_file_name(name)
}
