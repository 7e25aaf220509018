//! Checks before a run starts: the memory it will need against what the process may really
//! have (or `--max-memory`), and a warning when its length means hours of simulation.
//!
//! The cap is the smallest of Linux's `MemAvailable`, the room the process's cgroup leaves
//! (v2's `memory.max` less `memory.current`, v1's `memory.limit_in_bytes` less
//! `memory.usage_in_bytes`, at its own level and every parent's) and the room the
//! address-space limit (`ulimit -v`, `RLIMIT_AS`) leaves above the process's present size, less
//! [`PER_THREAD_ADDRESS_SPACE`] per thread of the run or sweep. `--max-memory` takes the place
//! of the first two (the user knows the machine better, e.g. its swap), never of the
//! address-space limit: past it allocations fail and the process aborts.

use std::path::Path;

use tailback_core::config::Config;
use tailback_core::sim::estimated_bytes;

use crate::error::{CliError, CliResult};

/// Node-cycles per second assumed for run-time estimates: between the reference machine's
/// benchmarks, 3.2 M (8 x 8 mesh, 1-flit packets) and 8.2 M (16 x 16 torus near saturation);
/// lighter loads run faster (26 M at a tenth of a flit per node and cycle; docs/performance.md).
const NODE_CYCLES_PER_SECOND: f64 = 5e6;

/// Runs estimated to take longer than this get a warning before they start, seconds.
const LONG_RUN: f64 = 3600.0;

/// Address space each thread of a run or sweep takes besides what it allocates, bytes: its
/// stack (Rust's default for spawned threads, 2 MiB) and the malloc arena glibc reserves for
/// it on 64-bit systems (`HEAP_MAX_SIZE`, 2 x the 32 MiB largest mmap threshold: 64 MiB, in
/// the address space at once though touched only as used). Only the address-space limit
/// counts it: the other limits count memory in use.
pub const PER_THREAD_ADDRESS_SPACE: f64 = (2u64 << 20) as f64 + (64u64 << 20) as f64;

/// Values at or above this in a cgroup v1 limit mean "unlimited" (the kernel writes the
/// largest page-aligned 64-bit value, 9223372036854771712).
const V1_UNLIMITED: f64 = (1u64 << 62) as f64;

/// Which limit caps the memory a run may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    MaxMemory,
    MemAvailable,
    CgroupV2,
    CgroupV1,
    AddressSpace,
}

/// The memory a run may have: bytes, and the limit that sets them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cap {
    bytes: f64,
    limit: Limit,
}

/// The tighter of two caps, either of which may be unknown (the first on a tie).
fn tighter(a: Option<Cap>, b: Option<Cap>) -> Option<Cap> {
    match (a, b) {
        (Some(a), Some(b)) if b.bytes < a.bytes => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

impl Cap {
    /// What the cap leaves, in words: "the cgroup's memory.max leaves 3.1 GB".
    fn describe(&self) -> String {
        let bytes = size(self.bytes.max(0.0));
        match self.limit {
            Limit::MaxMemory => format!("--max-memory allows {bytes}"),
            Limit::MemAvailable => format!("the machine has {bytes} available (MemAvailable)"),
            Limit::CgroupV2 => format!("the cgroup's memory.max leaves {bytes}"),
            Limit::CgroupV1 => format!("the cgroup's memory.limit_in_bytes leaves {bytes}"),
            Limit::AddressSpace => format!(
                "the address-space limit (ulimit -v) leaves {bytes} (above the process's present \
                 size, less {:.0} MiB per thread for its stack and malloc arena)",
                PER_THREAD_ADDRESS_SPACE / f64::from(1u32 << 20)
            ),
        }
    }

    /// How the user may get more.
    fn remedy(&self) -> &'static str {
        match self.limit {
            Limit::AddressSpace => {
                "simulate a smaller network, run fewer jobs at once (-j), or raise the \
                 address-space limit (ulimit -v)"
            }
            _ => {
                "simulate a smaller network, run fewer jobs at once (-j), or pass --max-memory \
                 SIZE (e.g. --max-memory 64G) to allow more"
            }
        }
    }
}

/// Refuses when `copies` runs of the largest of `configs` at once (each on a thread of its
/// own) would need more memory than the process may have: `max_memory` bytes, or without it
/// what the machine and the cgroup leave, and never more than the address-space limit leaves.
pub fn check_memory<'a>(
    configs: impl IntoIterator<Item = &'a Config>,
    copies: usize,
    max_memory: Option<u64>,
) -> CliResult {
    match memory_shortfall(configs, copies, max_memory) {
        None => Ok(()),
        Some(shortfall) => Err(CliError::Input(shortfall)),
    }
}

/// What is missing when `copies` runs of the largest of `configs` at once need more memory than
/// the process may have (see [`check_memory`]), and what to do about the limit that applied:
/// "this run needs about 70 GB but the cgroup's memory.max leaves 21 GB; simulate a smaller
/// network, ...".
pub fn memory_shortfall<'a>(
    configs: impl IntoIterator<Item = &'a Config>,
    copies: usize,
    max_memory: Option<u64>,
) -> Option<String> {
    shortfall(configs, copies, max_memory).map(|(text, cap)| format!("{text}; {}", cap.remedy()))
}

/// [`memory_shortfall`], and the cap that applied.
fn shortfall<'a>(
    configs: impl IntoIterator<Item = &'a Config>,
    copies: usize,
    max_memory: Option<u64>,
) -> Option<(String, Cap)> {
    let each = configs.into_iter().map(estimated_bytes).fold(0.0, f64::max);
    let needed = each * copies as f64;
    let cap = memory_cap(copies, max_memory)?;
    if needed <= cap.bytes {
        return None;
    }
    let runs = if copies > 1 {
        format!(
            "{copies} runs at once need about {} ({} each)",
            size(needed),
            size(each)
        )
    } else {
        format!("this run needs about {}", size(needed))
    };
    Some((format!("{runs} but {}", cap.describe()), cap))
}

/// The memory `threads` runs at once may have together (`None`: no limit is known).
fn memory_cap(threads: usize, max_memory: Option<u64>) -> Option<Cap> {
    let soft = match max_memory {
        Some(bytes) => Some(Cap {
            bytes: bytes as f64,
            limit: Limit::MaxMemory,
        }),
        None => {
            let available = std::fs::read_to_string("/proc/meminfo")
                .ok()
                .and_then(|text| mem_available(&text))
                .map(|bytes| Cap {
                    bytes,
                    limit: Limit::MemAvailable,
                });
            tighter(available, cgroup_room(Path::new("/sys/fs/cgroup")))
        }
    };
    tighter(soft, address_space_room(threads))
}

/// `MemAvailable` of `/proc/meminfo`'s text, bytes.
fn mem_available(meminfo: &str) -> Option<f64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// The room the process's cgroups leave (v2, else v1), with the cgroup file systems mounted
/// under `root` (`/sys/fs/cgroup`).
fn cgroup_room(root: &Path) -> Option<Cap> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let v2 = cgroup_v2_path(&cgroups)
        .and_then(|path| cgroup_limit_room(root, path, "memory.max", "memory.current"))
        .map(|bytes| Cap {
            bytes,
            limit: Limit::CgroupV2,
        });
    let v1 = cgroup_v1_memory_path(&cgroups)
        .and_then(|path| {
            cgroup_limit_room(
                &root.join("memory"),
                path,
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        })
        .map(|bytes| Cap {
            bytes,
            limit: Limit::CgroupV1,
        });
    tighter(v2, v1)
}

/// The unified (v2) hierarchy's path of the process in `/proc/self/cgroup`'s text (`0::PATH`).
fn cgroup_v2_path(cgroups: &str) -> Option<&str> {
    cgroups.lines().find_map(|l| l.strip_prefix("0::"))
}

/// The v1 memory controller's path of the process in `/proc/self/cgroup`'s text
/// (`ID:memory[,other]:PATH`).
fn cgroup_v1_memory_path(cgroups: &str) -> Option<&str> {
    cgroups.lines().find_map(|l| {
        let mut fields = l.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    })
}

/// The least room any limit leaves on the way from cgroup `path` (under `root`) up to the
/// root: each level's `limit_file` less its `usage_file` (levels without the files, or not
/// mounted here, are skipped).
fn cgroup_limit_room(root: &Path, path: &str, limit_file: &str, usage_file: &str) -> Option<f64> {
    let mut dir = root.join(path.trim_start_matches('/'));
    let mut room: Option<f64> = None;
    loop {
        let read = |file: &str| std::fs::read_to_string(dir.join(file)).ok();
        if let Some(limit) = read(limit_file).as_deref().and_then(cgroup_limit) {
            let used = read(usage_file)
                .as_deref()
                .and_then(cgroup_bytes)
                .unwrap_or(0.0);
            let here = (limit - used).max(0.0);
            room = Some(room.map_or(here, |r| r.min(here)));
        }
        if dir == root || !dir.pop() || !dir.starts_with(root) {
            return room;
        }
    }
}

/// A cgroup memory limit, bytes (`None`: unlimited, v2's `max` or v1's huge value, or
/// unreadable).
fn cgroup_limit(text: &str) -> Option<f64> {
    cgroup_bytes(text).filter(|&b| b < V1_UNLIMITED)
}

/// A cgroup file's single number, bytes.
fn cgroup_bytes(text: &str) -> Option<f64> {
    text.trim().parse::<u64>().ok().map(|b| b as f64)
}

/// The room the address-space limit leaves `threads` threads above the process's present
/// size (`None`: no limit).
fn address_space_room(threads: usize) -> Option<Cap> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limits into `limit`, a valid rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as f64;
    let present = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|text| statm_size(&text, page))
        .unwrap_or(0.0);
    Some(Cap {
        bytes: limit.rlim_cur as f64 - present - PER_THREAD_ADDRESS_SPACE * threads as f64,
        limit: Limit::AddressSpace,
    })
}

/// The process's virtual size in `/proc/self/statm`'s text (its first field, in pages of
/// `page` bytes), bytes.
fn statm_size(statm: &str, page: f64) -> Option<f64> {
    let pages: f64 = statm.split_whitespace().next()?.parse().ok()?;
    Some(pages * page)
}

/// Warns on standard error when `rounds` runs of `config` one after another (a sweep's share
/// per job) take hours.
pub fn warn_if_long(config: &Config, rounds: usize) {
    let sim = &config.sim;
    let cycles = (sim.warmup_cycles + sim.measure_cycles) as f64;
    let nodes = config.topology.layout.nodes();
    let seconds = cycles * nodes as f64 * rounds as f64 / NODE_CYCLES_PER_SECOND;
    if seconds > LONG_RUN {
        let share = if rounds > 1 {
            format!(" for {rounds} runs in a row on each job")
        } else {
            String::new()
        };
        eprintln!(
            "warning: a run simulates {cycles:.3e} cycles of {nodes} nodes: about {}{share} at \
             {:.0} million node-cycles per second per core (the reference machine under heavy \
             load; lighter loads run faster); lower sim.measure_cycles for a shorter run",
            duration(seconds),
            NODE_CYCLES_PER_SECOND / 1e6
        );
    }
}

/// Parses `--max-memory`: bytes, or a number with K, M, G or T (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let digits = upper.trim_end_matches(['B', 'I']);
    let (number, scale) = match digits.char_indices().last() {
        Some((i, 'K')) => (&digits[..i], 1u64 << 10),
        Some((i, 'M')) => (&digits[..i], 1 << 20),
        Some((i, 'G')) => (&digits[..i], 1 << 30),
        Some((i, 'T')) => (&digits[..i], 1 << 40),
        _ => (digits, 1),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a size; give bytes or e.g. 512M, 16G, 1T"))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("`{text}` is not a size above zero"));
    }
    if value * scale as f64 > u64::MAX as f64 {
        return Err(format!(
            "`{text}` is more than this machine can address ({}); give a smaller size",
            size(u64::MAX as f64)
        ));
    }
    Ok((value * scale as f64) as u64)
}

/// Bytes in words: "3.4 GB".
pub fn size(bytes: f64) -> String {
    match bytes {
        b if b >= 1e12 => format!("{:.1} TB", b / 1e12),
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} kB", b / 1e3),
    }
}

/// Seconds in words: "3.2 hours", "41 days".
fn duration(seconds: f64) -> String {
    match seconds {
        s if s >= 2.0 * 86400.0 * 365.0 => format!("{:.0} years", s / (86400.0 * 365.0)),
        s if s >= 2.0 * 86400.0 => format!("{:.0} days", s / 86400.0),
        s => format!("{:.1} hours", s / 3600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_and_statm_read() {
        let meminfo = "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(mem_available(meminfo), Some(2048.0 * 1024.0));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(statm_size("1000 200 30 4 0 50 0\n", 4096.0), Some(4096e3));
        assert_eq!(statm_size("", 4096.0), None);
    }

    #[test]
    fn cgroup_paths_of_both_hierarchies_read() {
        let hybrid = "9:name=systemd:/\n4:memory:/jobs/42\n3:cpu,cpuacct:/\n0::/user.slice/x\n";
        assert_eq!(cgroup_v2_path(hybrid), Some("/user.slice/x"));
        assert_eq!(cgroup_v1_memory_path(hybrid), Some("/jobs/42"));
        assert_eq!(
            cgroup_v1_memory_path("5:cpuset,memory:/a:b\n"),
            Some("/a:b")
        );
        let v1_only = "4:memory:/\n2:cpu:/\n";
        assert_eq!(cgroup_v2_path(v1_only), None);
        assert_eq!(cgroup_v1_memory_path("0::/\n1:cpu:/\n"), None);
        assert_eq!(cgroup_limit("max\n"), None);
        assert_eq!(cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(cgroup_limit("4294967296\n"), Some(4294967296.0));
        assert_eq!(cgroup_limit(""), None);
    }

    #[test]
    fn the_tightest_cgroup_level_on_the_way_up_applies() {
        let root = tempfile::tempdir().unwrap();
        let leaf = root.path().join("a/b");
        std::fs::create_dir_all(&leaf).unwrap();
        let write =
            |dir: &Path, file: &str, text: &str| std::fs::write(dir.join(file), text).unwrap();
        // v2: the leaf is unlimited, its parent allows 1 GB of which 0.25 GB are used.
        write(&leaf, "memory.max", "max\n");
        write(&leaf, "memory.current", "1000\n");
        write(&root.path().join("a"), "memory.max", "1000000000\n");
        write(&root.path().join("a"), "memory.current", "250000000\n");
        let room =
            |path: &str| cgroup_limit_room(root.path(), path, "memory.max", "memory.current");
        assert_eq!(room("/a/b"), Some(750e6));
        // A tighter leaf wins; a level without a usage file counts as unused.
        write(&leaf, "memory.max", "600000000\n");
        assert_eq!(room("/a/b"), Some(600e6 - 1000.0));
        // Paths not mounted here (another namespace's) walk up to what is.
        assert_eq!(room("/a/elsewhere/c"), Some(750e6));
        // No limit anywhere, or no files at all: no cap.
        assert_eq!(room("/"), None);
        let v1 = |path: &str| {
            cgroup_limit_room(
                root.path(),
                path,
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        };
        write(&leaf, "memory.limit_in_bytes", "9223372036854771712\n");
        assert_eq!(v1("/a/b"), None);
        write(&leaf, "memory.limit_in_bytes", "2000\n");
        write(&leaf, "memory.usage_in_bytes", "3000\n");
        assert_eq!(v1("/a/b"), Some(0.0));
    }

    #[test]
    fn the_smallest_cap_applies_and_is_named() {
        let cap = |bytes, limit| Cap { bytes, limit };
        let mem = cap(8e9, Limit::MemAvailable);
        assert_eq!(
            tighter(Some(mem), Some(cap(4e9, Limit::CgroupV2)))
                .unwrap()
                .limit,
            Limit::CgroupV2
        );
        assert_eq!(
            tighter(Some(mem), Some(cap(9e9, Limit::AddressSpace)))
                .unwrap()
                .limit,
            Limit::MemAvailable
        );
        assert_eq!(tighter(Some(mem), None), Some(mem));
        assert_eq!(tighter(None, Some(mem)), Some(mem));
        assert!(
            cap(3e9, Limit::AddressSpace)
                .describe()
                .starts_with("the address-space limit (ulimit -v) leaves 3.0 GB")
        );
        assert!(
            cap(-1.0, Limit::AddressSpace)
                .describe()
                .contains("leaves 0 kB")
        );
        assert_eq!(
            cap(2e9, Limit::CgroupV1).describe(),
            "the cgroup's memory.limit_in_bytes leaves 2.0 GB"
        );
        assert!(cap(3e9, Limit::AddressSpace).remedy().contains("ulimit -v"));
        assert!(
            cap(3e9, Limit::MemAvailable)
                .remedy()
                .contains("--max-memory")
        );
    }

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("16G"), Ok(16 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        for bad in ["", "G", "-1G", "0", "lots", "1e30T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        // Too large is said to be too large, not "not above zero".
        let err = parse_size("99999999999999999999G").unwrap_err();
        assert!(err.contains("more than this machine can address"), "{err}");
        assert!(parse_size("0G").unwrap_err().contains("above zero"));
    }
}
