//! `tailback report`: a static HTML report of the experiments and sweeps under some
//! directories, viewable offline: `index.html` lists them, and `entries/<name>/index.html`
//! shows each one's comparisons or curves, its figures (copied beside the page with their
//! data), its runs, configuration and the command that makes it again.

mod entry;
mod html;
mod pages;

pub use entry::read_json;

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::error::{CliError, CliResult};
use entry::{Entry, Kind};

/// The lock a report's writer holds on its folder; it also marks the folder as a report.
const LOCK_FILE: &str = ".tailback-report.lock";

/// How deep under a given directory entries are looked for.
const MAX_DEPTH: usize = 12;

/// Builds the report of every experiment and sweep under `dirs` into `out` (by default
/// `report/` in the first directory); returns the path of its `index.html`.
pub fn build(dirs: &[PathBuf], out: Option<&Path>) -> CliResult<PathBuf> {
    let Some(first) = dirs.first() else {
        return Err(CliError::Input("no directory to report on".into()));
    };
    for dir in dirs {
        if !dir.exists() {
            return Err(CliError::Input(format!("{} does not exist", dir.display())));
        }
        if !dir.is_dir() {
            return Err(CliError::Input(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
    }
    let out = out.map_or_else(|| first.join("report"), Path::to_path_buf);
    if out.exists() && !is_report(&out) {
        return Err(CliError::Input(format!(
            "{} exists and is not a tailback report; pass another --out",
            out.display()
        )));
    }
    // Locked before looking, so that of two builders at once the second sees what the first
    // did; a folder made for nothing is removed.
    let created = !out.exists();
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let lock = lock(&out)?;
    let entries = match discover(dirs, &out) {
        Ok(entries) => entries,
        Err(e) => {
            if created {
                drop(lock);
                let _ = std::fs::remove_file(out.join(LOCK_FILE));
                let _ = std::fs::remove_dir(&out);
            }
            return Err(e);
        }
    };

    let pages = out.join("entries");
    if pages.exists() {
        std::fs::remove_dir_all(&pages)
            .with_context(|| format!("removing the old {}", pages.display()))?;
    }
    for entry in &entries {
        write_entry(entry, &out)?;
    }
    let roots: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let index = out.join("index.html");
    tailback_experiments::atomic::write(&index, pages::index(&entries, &roots).as_bytes())
        .with_context(|| format!("writing {}", index.display()))?;
    Ok(index)
}

/// The entries under `dirs` (each at least one), sorted by name, with their folder names;
/// `out` is not looked in.
fn discover(dirs: &[PathBuf], out: &Path) -> CliResult<Vec<Entry>> {
    let skip = out.canonicalize()?;
    // Every entry once (directories given twice, or one inside another, find the same).
    let mut seen = BTreeSet::new();
    let mut entries = Vec::new();
    for dir in dirs {
        let mut found = Vec::new();
        find(dir, 0, &skip, &mut found);
        if found.is_empty() {
            return Err(CliError::Input(format!(
                "{} holds no experiment (a summary.json with an `experiment` key) or sweep (a \
                 sweep.json)",
                dir.display()
            )));
        }
        for path in found {
            if !seen.insert(path.canonicalize()?) {
                continue;
            }
            let name = name(dir, &path, dirs.len() > 1);
            match entry::load(&path, name) {
                Ok(entry) => entries.push(entry),
                Err(e) => eprintln!("warning: {} left out of the report: {e:#}", path.display()),
            }
        }
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.dir.cmp(&b.dir)));
    assign_slugs(&mut entries);
    Ok(entries)
}

/// The folder holds a report (or nothing): `build` may replace what it holds.
fn is_report(dir: &Path) -> bool {
    if dir.join(LOCK_FILE).exists() {
        return true;
    }
    if let Ok(text) = std::fs::read_to_string(dir.join("index.html")) {
        return text.contains(&format!(
            "<meta name=\"generator\" content=\"{}",
            html::GENERATOR
        ));
    }
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

/// Waits for any other writer of the report in `dir` and locks it until dropped.
fn lock(dir: &Path) -> CliResult<File> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    file.lock()
        .with_context(|| format!("locking {}", path.display()))?;
    Ok(file)
}

/// The experiments' directories (holding a `summary.json` that names its experiment) at or
/// under `dirs`, sorted.
pub fn experiment_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in dirs {
        find(dir, 0, Path::new(""), &mut found);
    }
    found.retain(|d| entry::kind_of(d) == Some("experiment"));
    found.sort();
    found
}

/// Appends to `found` the entries at or under `dir`, in no particular order. Hidden folders,
/// `shards/` (pieces of a batch run), reports and cache folders (such as Cargo's `target/`)
/// are not entered; nor are symbolic links.
fn find(dir: &Path, depth: usize, skip: &Path, found: &mut Vec<PathBuf>) {
    if entry::kind_of(dir).is_some() {
        found.push(dir.to_path_buf());
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(children) = std::fs::read_dir(dir) else {
        return;
    };
    for child in children.filter_map(Result::ok) {
        if !child.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = child.file_name();
        let name = name.to_string_lossy();
        let path = child.path();
        if name.starts_with('.')
            || name == "shards"
            || path.join(LOCK_FILE).exists()
            || path.join("CACHEDIR.TAG").exists()
            || path.canonicalize().is_ok_and(|p| p == skip)
        {
            continue;
        }
        find(&path, depth + 1, skip, found);
    }
}

/// An entry's name: its path under the directory given (prefixed with that directory's name
/// when several are given); the directory's own name for the directory itself.
fn name(root: &Path, dir: &Path, several: bool) -> String {
    let root_name = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| root.display().to_string());
    let relative: Vec<String> = dir
        .strip_prefix(root)
        .unwrap_or(dir)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if relative.is_empty() {
        root_name
    } else if several {
        format!("{root_name}/{}", relative.join("/"))
    } else {
        relative.join("/")
    }
}

/// Gives every entry a distinct folder name made of its name's safe characters.
fn assign_slugs(entries: &mut [Entry]) {
    let mut taken = BTreeSet::new();
    for entry in entries {
        let base: String = entry
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let base = base.trim_start_matches('.').to_string();
        let base = if base.is_empty() {
            "entry".to_string()
        } else {
            base
        };
        let mut slug = base.clone();
        let mut n = 2;
        while !taken.insert(slug.clone()) {
            slug = format!("{base}-{n}");
            n += 1;
        }
        entry.slug = slug;
    }
}

/// Writes `entry`'s folder: its page, its figures and their data, and for a sweep its base
/// configuration and curves.
fn write_entry(entry: &Entry, out: &Path) -> CliResult {
    let folder = out.join("entries").join(&entry.slug);
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let copy = |name: &str| -> CliResult {
        let from = entry.dir.join(name);
        std::fs::copy(&from, folder.join(name))
            .with_context(|| format!("copying {}", from.display()))?;
        Ok(())
    };
    for figure in &entry.figures {
        copy(&figure.png)?;
        if let Some(data) = &figure.data {
            copy(data)?;
        }
    }
    if let Kind::Sweep(sweep) = &entry.kind {
        std::fs::write(folder.join("config.toml"), pages::sweep_config_file(sweep))
            .with_context(|| format!("writing {}", folder.join("config.toml").display()))?;
        if sweep.curves.is_some() {
            copy("curves.csv")?;
        }
    }
    let page = folder.join("index.html");
    std::fs::write(&page, pages::entry(entry, out))
        .with_context(|| format!("writing {}", page.display()))?;
    Ok(())
}
