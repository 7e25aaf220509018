//! Fuzzing of the three kinds of user input: configuration trees, topology files and packet
//! traces. Nothing a user can write may panic, hang or crash the simulator: bad input is an
//! `Err`, good input builds, analyses, predicts and runs.
//!
//! - **Config trees** start from every `experiments/**/*.toml` (four in five cases from one
//!   that is a valid configuration), the default configuration (empty and written out in full),
//!   `base.toml` overlays and the seeds in `tests/fixtures/fuzz/` (among them a valid
//!   configuration of every congestion mechanism and every queue scheme of the buffered fabric,
//!   which `fuzz_seeds_are_valid` checks), and mutate them
//!   structurally: one to three keys at any depth are set, replaced, deleted, grafted from
//!   another seed or set through `--set` text (`parse_assignment` + `set_path`), taking
//!   documented keys (read from `docs/config.md`), keys of the seeds and unknown keys, and
//!   adversarial values (0, -1, 2^53 + 1, 2^63 - 1, NaN, ±inf, -0.0, 1e308, subnormals, empty
//!   and long strings, every documented enum name, file paths, booleans, dates, empty and
//!   nested arrays, tables) or values near the one replaced. The tree is read directly, as TOML
//!   text, as JSON text or as byte-edited TOML text (relative file paths resolved against the
//!   seed's directory, as `tailback` does). A valid configuration must read back from its own
//!   serialization (`Spec::new`); if it has at most 256 nodes its network is built and routed,
//!   and the analyses of `tailback check` (channel loads, deadlock freedom, bisection,
//!   zero-load latency, CAM cost, a replayed trace), the predictor (`tailback predict`, with
//!   adversarial intervals) and a run (`tailback run`, writing a trace) shortened to at most
//!   50 + 200 + 500 cycles with the engine's invariant checker on must not panic.
//! - **Topology files** (`experiments/topologies/*.topo`, the fixtures and four larger files
//!   written here) get line edits (delete, duplicate, swap, insert generated directives), token
//!   edits (adversarial numbers, other names), truncation and garbage or non-UTF-8 bytes; they
//!   are parsed directly and, half the time, through a configuration (`topology.kind =
//!   "file"`, virtual-channel or buffered switches), which must agree with the parser. A file
//!   that parses is routed, analysed, predicted and run as above.
//! - **Packet traces** are generated for small networks, edited the same way and written plain
//!   or gzip-compressed (then possibly truncated, corrupted, concatenated or not compressed at
//!   all); `trace::read` must answer (also for 0 and 1 nodes), and a trace it accepts is
//!   replayed (alone or beside a flow, on five networks, at adversarial time scales), checked
//!   (`sim::check_trace`), predicted and run as above. A replay is run only if it is short
//!   (`MAX_REPLAY_FLITS`, `MAX_REPLAY_CYCLES`): a trace that keeps the network busy for 2^33
//!   cycles is a long run, not a hang.
//!
//! Every case runs on its own thread and fails if it panics (the message names the panic's
//! location and prints the input; proptest then shrinks it) or runs longer than
//! `TAILBACK_FUZZ_TIMEOUT_SECS` (default 20 s; a hang is reported with its input, unshrunk).
//! The bugs it found have a regression test at the end of this file.
//!
//! **CI budget**: a fixed number of cases per target (`CONFIG_CASES`, `TOPOLOGY_CASES`,
//! `TRACE_CASES`) from a fixed RNG seed (`CI_SEED`), so a CI run is reproducible: about 20 s in
//! release on two cores for the three together.
//!
//! **Long campaign**: the cases per target and a fresh seed, e.g.
//!
//! ```text
//! TAILBACK_FUZZ_CASES=250000 TAILBACK_FUZZ_SEED=$RANDOM \
//!     cargo test --release -p tailback-core --test fuzz_inputs -- --nocapture
//! ```
//!
//! (34 minutes on two shared cores, overflow checks on; progress every 25,000 cases).
//! `TAILBACK_FUZZ_LAST_INPUT=FILE` keeps each case's input in `FILE.config`, `FILE.topology`
//! or `FILE.trace` before it runs, so that a crash that kills the process (an abort, running
//! out of memory) leaves its input behind. Building with
//! `CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true` and `CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true`
//! (in a separate `CARGO_TARGET_DIR`) also catches arithmetic overflow and debug assertions.
//! Each target prints its tally at the end: cases, inputs accepted, and how many were analysed,
//! predicted and simulated.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::fmt::Debug;
use std::io::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{
    Config as RunnerConfig, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
};
use tailback_core::analysis::{ZeroLoad, bisection_links, channel_load, is_deadlock_free};
use tailback_core::cam_cost::CamCost;
use tailback_core::config::{
    BufferedConfig, Choice, ConfigError, FabricConfig, IsolatingQueues, ProcessConfig,
};
use tailback_core::predict::{self, PredictOptions};
use tailback_core::routing::Routing;
use tailback_core::spec::Spec;
use tailback_core::topology::{CustomShape, Topology};
use tailback_core::trace;
use tailback_core::traffic::Workload;

/// Config-tree cases per CI run.
const CONFIG_CASES: u32 = 4000;
/// Topology-file cases per CI run.
const TOPOLOGY_CASES: u32 = 3000;
/// Trace cases per CI run.
const TRACE_CASES: u32 = 5000;
/// A long campaign reports its progress every this many cases.
const PROGRESS_EVERY: u64 = 25_000;
/// The RNG seed of a CI run (`TAILBACK_FUZZ_SEED` replaces it).
const CI_SEED: u64 = 0x7a11_bac4;
/// Largest network that is built, analysed and simulated.
const MAX_FUZZ_NODES: usize = 256;
/// Largest buffer volume simulated: ports x VCs x flits per VC buffer.
const MAX_BUFFER_SLOTS: usize = 1 << 22;
/// A replayed trace is run if it holds at most this many flits...
const MAX_REPLAY_FLITS: u64 = 100_000;
/// ...or its last packet is created by this cycle.
const MAX_REPLAY_CYCLES: u64 = 20_000;

// ---------------------------------------------------------------------------------------------
// Budget, time box and panic capture
// ---------------------------------------------------------------------------------------------

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} = {text:?} is not a whole number")),
    )
}

/// Cases per target: `TAILBACK_FUZZ_CASES`, else the CI budget (a tenth of it in a debug
/// build, where each case runs about ten times slower).
fn budget(ci_cases: u32) -> u32 {
    let ci_cases = if cfg!(debug_assertions) {
        ci_cases / 10
    } else {
        ci_cases
    };
    env_number("TAILBACK_FUZZ_CASES").map_or(ci_cases, |n| n.min(u64::from(u32::MAX)) as u32)
}

fn fuzz_seed() -> u64 {
    env_number("TAILBACK_FUZZ_SEED").unwrap_or(CI_SEED)
}

fn case_timeout() -> Duration {
    Duration::from_secs(env_number("TAILBACK_FUZZ_TIMEOUT_SECS").unwrap_or(20))
}

/// A runner of `cases` cases from the fuzz seed (salted per target), shrinking failures and
/// persisting nothing (regressions are plain tests at the end of this file).
fn runner(cases: u32, salt: u64) -> TestRunner {
    let config = RunnerConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        max_shrink_time: 300_000,
        ..RunnerConfig::default()
    };
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&fuzz_seed().to_le_bytes());
    seed[8..16].copy_from_slice(&salt.to_le_bytes());
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed))
}

thread_local! {
    /// Whether this thread runs fuzz cases (its panics are recorded, not printed).
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    /// The last panic on this thread: location and message.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Routes the panics of fuzz threads into `LAST_PANIC` (others print as usual).
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                let location = info
                    .location()
                    .map_or_else(|| "an unknown location".to_string(), |l| l.to_string());
                let message = info.payload_as_str().unwrap_or("(no message)");
                LAST_PANIC
                    .with(|p| *p.borrow_mut() = Some(format!("panicked at {location}: {message}")));
            } else {
                default(info);
            }
        }));
    });
}

/// What one case is run on, for the failure message: filled in by the case as it builds its
/// input (and written to `TAILBACK_FUZZ_LAST_INPUT` + `.` + the target's name, if set, before
/// the input is used).
#[derive(Clone)]
struct InputLog {
    text: Arc<Mutex<String>>,
    keep: Option<PathBuf>,
}

impl InputLog {
    fn new(target: &str) -> InputLog {
        InputLog {
            text: Arc::default(),
            keep: std::env::var("TAILBACK_FUZZ_LAST_INPUT")
                .ok()
                .map(|path| PathBuf::from(format!("{path}.{target}"))),
        }
    }

    fn record(&self, part: &str) {
        let mut log = self.text.lock().unwrap_or_else(|e| e.into_inner());
        log.push_str(part);
        if !part.ends_with('\n') {
            log.push('\n');
        }
        if let Some(path) = &self.keep {
            let _ = std::fs::write(path, log.as_bytes());
        }
    }

    fn text(&self) -> String {
        self.text.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The first hang of a target: once set, its later cases pass at once, so that proptest does
/// not shrink a hang by running more hangs.
type Hang = Arc<Mutex<Option<String>>>;

/// Runs `body` on its own thread, failing the case if it panics or returns an error, and
/// recording a hang if it runs past the time box.
fn time_boxed(
    target: &str,
    hang: &Hang,
    body: impl FnOnce(&InputLog) -> Result<(), String> + Send + 'static,
) -> Result<(), TestCaseError> {
    if hang.lock().unwrap().is_some() {
        return Ok(());
    }
    install_panic_hook();
    let log = InputLog::new(target);
    let (tx, rx) = mpsc::channel();
    let worker_log = log.clone();
    let worker = std::thread::Builder::new()
        .name(format!("fuzz-{target}"))
        .spawn(move || {
            CAPTURING.with(|c| c.set(true));
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| body(&worker_log)))
                .unwrap_or_else(|_| {
                    Err(LAST_PANIC
                        .with(|p| p.borrow_mut().take())
                        .unwrap_or_else(|| "panicked".to_string()))
                });
            let _ = tx.send(outcome);
        })
        .expect("spawn a fuzz thread");
    let limit = case_timeout();
    match rx.recv_timeout(limit) {
        Ok(outcome) => {
            let _ = worker.join();
            outcome.map_err(|problem| {
                TestCaseError::fail(format!("{problem}\n--- {target} input ---\n{}", log.text()))
            })
        }
        Err(RecvTimeoutError::Timeout) => {
            let message = format!(
                "HANG: a {target} case ran for more than {limit:?} (left running, not shrunk)\n\
                 --- {target} input ---\n{}",
                log.text()
            );
            *hang.lock().unwrap() = Some(message.clone());
            Err(TestCaseError::fail(message))
        }
        Err(RecvTimeoutError::Disconnected) => Err(TestCaseError::fail(format!(
            "the fuzz thread died without an answer\n--- {target} input ---\n{}",
            log.text()
        ))),
    }
}

/// How far the cases of a target got.
#[derive(Default)]
struct Tally {
    cases: AtomicU64,
    accepted: AtomicU64,
    analysed: AtomicU64,
    predicted: AtomicU64,
    simulated: AtomicU64,
}

impl Tally {
    fn count(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn add(&self, reached: Reached) {
        if reached.analysed {
            self.count(&self.analysed);
        }
        if reached.predicted {
            self.count(&self.predicted);
        }
        if reached.simulated {
            self.count(&self.simulated);
        }
    }
}

/// Runs one fuzz target and fails the test with the minimal failing case (or the first hang).
fn run_target<S>(
    target: &str,
    salt: u64,
    ci_cases: u32,
    strategy: S,
    case: impl Fn(S::Value, &Hang, &Arc<Tally>) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: Debug,
{
    let cases = budget(ci_cases);
    let hang = Hang::default();
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let result = runner(cases, salt).run(&strategy, |value| {
        let outcome = case(value, &hang, &tally);
        let done = tally.cases.load(Ordering::Relaxed);
        if done.is_multiple_of(PROGRESS_EVERY) {
            eprintln!(
                "fuzz {target}: {done} of {cases} cases after {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
        outcome
    });
    let seed = fuzz_seed();
    if let Some(message) = hang.lock().unwrap().take() {
        panic!("{target} fuzzing (seed {seed}) found a hang:\n{message}");
    }
    match result {
        Ok(()) => eprintln!(
            "fuzz {target}: {cases} cases (seed {seed}) in {:.1} s: {} accepted, {} analysed, \
             {} predicted, {} simulated",
            started.elapsed().as_secs_f64(),
            tally.accepted.load(Ordering::Relaxed),
            tally.analysed.load(Ordering::Relaxed),
            tally.predicted.load(Ordering::Relaxed),
            tally.simulated.load(Ordering::Relaxed),
        ),
        Err(TestError::Fail(reason, value)) => {
            panic!("{target} fuzzing (seed {seed}) failed: {reason}\nminimal case: {value:#?}")
        }
        Err(TestError::Abort(reason)) => {
            panic!("{target} fuzzing (seed {seed}) aborted: {reason}")
        }
    }
    assert!(tally.cases.load(Ordering::Relaxed) > 0);
}

// ---------------------------------------------------------------------------------------------
// What a valid configuration goes through
// ---------------------------------------------------------------------------------------------

/// How far a valid configuration got.
#[derive(Debug, Default, Clone, Copy)]
struct Reached {
    analysed: bool,
    predicted: bool,
    simulated: bool,
}

/// `spec` with its run cut to at most 50 cycles of warm-up, 200 measured and 500 of drain, a
/// ramp of at most about 1,000 cycles and collectives of at most 100 packets per node; with
/// `checked`, the engine's invariant checker on (an inconsistency then panics).
fn shortened(spec: &Spec, checked: bool) -> Result<Spec, ConfigError> {
    spec.edited(|c| {
        c.sim.warmup_cycles = c.sim.warmup_cycles.min(50);
        c.sim.measure_cycles = c.sim.measure_cycles.min(200);
        c.sim.drain_cycles_max = c.sim.drain_cycles_max.min(500);
        c.sim.check_invariants = checked;
        let last = c.sim.warmup_cycles + c.sim.measure_cycles + c.sim.drain_cycles_max - 1;
        c.record.occupancy_at.retain(|&cycle| cycle <= last);
        let rate = c.traffic.rate;
        match &mut c.traffic.process {
            ProcessConfig::Ramp(ramp) => ramp.slope = ramp.slope.max((rate / 1000.0).min(1.0)),
            ProcessConfig::Collective { packets_per_node } => {
                *packets_per_node = (*packets_per_node).min(100)
            }
            _ => {}
        }
    })
}

/// What `tailback check`, `predict` and `run` do with a valid configuration, on networks of
/// at most [`MAX_FUZZ_NODES`] nodes (the run shortened); `Err` for an inconsistency a panic
/// would not show.
fn exercise(spec: &Spec, options: PredictOptions) -> Result<Reached, String> {
    let cfg = spec.config();
    let again = Spec::new(cfg.clone())
        .map_err(|e| format!("a valid config is refused when read back: {e}"))?;
    if &again != spec {
        return Err(format!(
            "a valid config reads back differently:\n{spec:#?}\nversus\n{again:#?}"
        ));
    }
    let mut reached = Reached::default();
    if spec.node_count() > MAX_FUZZ_NODES {
        return Ok(reached);
    }
    // `tailback check`.
    tailback_core::sim::check_trace(spec).ok();
    let topology = Topology::from_config(cfg);
    if topology.node_count() != spec.node_count() {
        return Err(format!(
            "the config has {} nodes but its network {}",
            spec.node_count(),
            topology.node_count()
        ));
    }
    let routing = Routing::from_config(cfg, &topology);
    let workload = Workload::new(&cfg.traffic, topology.addresses(), cfg.seed);
    let mut mean_hops = 0.0;
    for phase in 0..workload.phase_count() {
        mean_hops = channel_load(&topology, &routing, workload.phase_destinations(phase)).mean_hops;
    }
    ZeroLoad::new(cfg, &topology).latency(mean_hops, cfg.traffic.packet_flits);
    is_deadlock_free(&topology, &routing);
    bisection_links(&topology);
    tailback_core::congestion::view_staleness(&cfg.congestion, &topology);
    if let FabricConfig::Buffered(BufferedConfig {
        isolation: Some(isolation),
        ..
    }) = &cfg.fabric
    {
        let lines = match isolation.queues {
            IsolatingQueues::Cfqs { cfqs, .. } => 2 * cfqs,
            IsolatingQueues::Hpqs { hpqs, .. } => topology.max_ports() as u32 - 1 + hpqs,
        };
        CamCost::new(
            topology.node_count() as u32,
            isolation.cam_destinations,
            lines,
        );
    }
    reached.analysed = true;
    // `tailback predict`.
    reached.predicted = predict::predict(spec, &options).is_ok();
    // `tailback run`, shortened.
    let slots =
        topology.ports().len() * cfg.router.vcs as usize * cfg.router.vc_buffer_flits as usize;
    let replay = replay_span(cfg);
    if slots <= MAX_BUFFER_SLOTS && replay.is_short() {
        // The checker steps every cycle (no skipping over idle stretches).
        let checked = replay.last_creation <= MAX_REPLAY_CYCLES as f64;
        let short =
            shortened(spec, checked).map_err(|e| format!("the shortened run is refused: {e}"))?;
        let traced =
            tailback_core::run_traced(&short, 97, |_| {}, Box::new(std::io::sink())).is_ok();
        reached.simulated = traced;
    }
    Ok(reached)
}

/// The extent of a replayed trace (`process = "trace"`, whose run lasts until its last packet
/// is created and then drains): its flits and the (scaled) creation time of its last packet.
struct ReplaySpan {
    flits: u64,
    last_creation: f64,
}

impl ReplaySpan {
    /// Whether the replay makes a short run: at most [`MAX_REPLAY_FLITS`] flits in all (the
    /// network is then idle, and skipped over, most of the time) or the last packet created by
    /// cycle [`MAX_REPLAY_CYCLES`]. A long trace that keeps the network busy (a packet of
    /// 2^32 - 1 flits) is a long run, not a hang.
    fn is_short(&self) -> bool {
        self.flits <= MAX_REPLAY_FLITS || self.last_creation <= MAX_REPLAY_CYCLES as f64
    }
}

fn replay_span(cfg: &tailback_core::config::Config) -> ReplaySpan {
    let none = ReplaySpan {
        flits: 0,
        last_creation: 0.0,
    };
    let ProcessConfig::Trace(replay) = &cfg.traffic.process else {
        return none;
    };
    let Ok(records) = trace::read(Path::new(&replay.file), cfg.node_count()) else {
        return none;
    };
    ReplaySpan {
        flits: records.iter().map(|r| u64::from(r.flits)).sum(),
        last_creation: records
            .last()
            .map_or(0.0, |r| r.created as f64 * replay.time_scale),
    }
}

/// Prediction intervals, the adversarial ones included (`--interval` takes 1 and up).
const INTERVALS: &[Option<u64>] = &[
    None,
    Some(1),
    Some(2),
    Some(7),
    Some(100),
    Some(1 << 20),
    Some(1 << 53),
    Some(u64::MAX - (1 << 53)),
    Some(u64::MAX),
];

fn predict_options((interval, correction, channels): (usize, bool, bool)) -> PredictOptions {
    PredictOptions::new(correction)
        .interval(INTERVALS[interval % INTERVALS.len()])
        .channels(channels)
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn experiments_dir() -> PathBuf {
    manifest_dir().join("../../experiments")
}

fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests/fixtures/fuzz")
}

/// Files under `dir` (recursively) whose names end in `suffix`, sorted.
fn files_under(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

// ---------------------------------------------------------------------------------------------
// Shared text mutations (topology files and traces)
// ---------------------------------------------------------------------------------------------

/// Numbers written into topology files and traces in place of the ones there.
const NUMBER_TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-0",
    "+1",
    "00",
    "007",
    "63",
    "64",
    "65",
    "127",
    "128",
    "254",
    "255",
    "256",
    "1023",
    "1024",
    "1025",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9007199254740992",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e3",
    "0x10",
    "1.5",
    "NaN",
    "\u{663}",
    "\u{ff11}",
];

/// Byte strings inserted into text.
const GARBAGE: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\0",
    b"\r",
    b"\r\n",
    b"\t",
    b"\x0b",
    b"\x0c",
    b"#",
    b" ",
    b"\n",
    b"\n\n",
    b".",
    b"\xef\xbb\xbf",
    "\u{a0}".as_bytes(),
    "\u{2028}".as_bytes(),
    "\u{3000}".as_bytes(),
    "\u{e9}".as_bytes(),
];

/// An edit of a text file, its numbers picked modulo the text's lines, tokens and bytes.
#[derive(Debug, Clone)]
enum TextOp {
    DeleteLine(usize),
    /// Copies line `.0` before line `.1`.
    DuplicateLine(usize, usize),
    SwapLines(usize, usize),
    /// Inserts a generated line (pick `.1`) before line `.0`.
    InsertLine(usize, u64),
    /// Replaces token `.1` of line `.0` with a generated token (pick `.2`).
    ReplaceToken(usize, usize, u64),
    /// Appends a generated token to line `.0`.
    AppendToken(usize, u64),
    DropToken(usize, usize),
    Truncate(usize),
    InsertBytes(usize, usize),
    FlipByte(usize, u8),
}

fn text_op() -> impl Strategy<Value = TextOp> {
    prop_oneof![
        2 => any::<usize>().prop_map(TextOp::DeleteLine),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| TextOp::DuplicateLine(a, b)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| TextOp::SwapLines(a, b)),
        3 => (any::<usize>(), any::<u64>()).prop_map(|(a, p)| TextOp::InsertLine(a, p)),
        5 => (any::<usize>(), any::<usize>(), any::<u64>())
            .prop_map(|(l, t, p)| TextOp::ReplaceToken(l, t, p)),
        1 => (any::<usize>(), any::<u64>()).prop_map(|(l, p)| TextOp::AppendToken(l, p)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(l, t)| TextOp::DropToken(l, t)),
        1 => any::<usize>().prop_map(TextOp::Truncate),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(at, g)| TextOp::InsertBytes(at, g)),
        1 => (any::<usize>(), 1u8..=255).prop_map(|(at, x)| TextOp::FlipByte(at, x)),
    ]
}

/// What a kind of text generates: whole lines and single tokens, from a pick.
trait TextGrammar {
    fn line(&self, pick: u64) -> String;
    fn token(&self, pick: u64) -> String;
}

fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

fn join_lines(lines: &[Vec<u8>]) -> Vec<u8> {
    lines.join(&b'\n')
}

/// The tokens of a line (split on ASCII whitespace), to edit and join with spaces.
fn tokens(line: &[u8]) -> Vec<Vec<u8>> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn apply_text_ops(mut bytes: Vec<u8>, ops: &[TextOp], grammar: &dyn TextGrammar) -> Vec<u8> {
    for op in ops {
        let mut lines = split_lines(&bytes);
        let n = lines.len();
        match *op {
            TextOp::DeleteLine(i) => {
                lines.remove(i % n);
            }
            TextOp::DuplicateLine(from, to) => {
                let line = lines[from % n].clone();
                lines.insert(to % (n + 1), line);
            }
            TextOp::SwapLines(a, b) => lines.swap(a % n, b % n),
            TextOp::InsertLine(at, pick) => lines.insert(at % (n + 1), grammar.line(pick).into()),
            TextOp::ReplaceToken(l, t, pick) => {
                let line = &mut lines[l % n];
                let mut words = tokens(line);
                if !words.is_empty() {
                    let at = t % words.len();
                    words[at] = grammar.token(pick).into();
                    *line = words.join(&b' ');
                }
            }
            TextOp::DropToken(l, t) => {
                let line = &mut lines[l % n];
                let mut words = tokens(line);
                if !words.is_empty() {
                    words.remove(t % words.len());
                    *line = words.join(&b' ');
                }
            }
            TextOp::AppendToken(l, pick) => {
                let line = &mut lines[l % n];
                line.push(b' ');
                line.extend_from_slice(grammar.token(pick).as_bytes());
            }
            TextOp::Truncate(at) => {
                bytes.truncate(at % (bytes.len() + 1));
                continue;
            }
            TextOp::InsertBytes(at, g) => {
                let at = at % (bytes.len() + 1);
                let garbage = GARBAGE[g % GARBAGE.len()];
                bytes.splice(at..at, garbage.iter().copied());
                continue;
            }
            TextOp::FlipByte(at, x) => {
                if !bytes.is_empty() {
                    let at = at % bytes.len();
                    bytes[at] ^= x;
                }
                continue;
            }
        }
        bytes = join_lines(&lines);
    }
    bytes
}

fn number_token(pick: u64) -> String {
    let index = (pick % (NUMBER_TOKENS.len() as u64 + 8)) as usize;
    match NUMBER_TOKENS.get(index) {
        Some(token) => token.to_string(),
        // Plain numbers, small ones most often.
        None if index.is_multiple_of(2) => (pick >> 8).to_string(),
        None => ((pick >> 8) % 40).to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Config trees
// ---------------------------------------------------------------------------------------------

/// One step of a path into a TOML tree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Seg {
    Key(String),
    Index(usize),
}

type TreePath = Vec<Seg>;

fn render_path(path: &[Seg]) -> String {
    path.iter()
        .map(|s| match s {
            Seg::Key(k) => k.clone(),
            Seg::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A seed configuration: its tree and the directory its relative paths are relative to.
struct ConfigSeed {
    name: String,
    table: toml::Table,
    dir: PathBuf,
}

/// What config mutations draw from.
struct ConfigContext {
    seeds: Vec<ConfigSeed>,
    /// The indices of the seeds that are valid configurations.
    valid: Vec<usize>,
    /// Every path documented in `docs/config.md` or present in a seed.
    known: Vec<TreePath>,
    /// Every enum name (documented, or a choice of the config module).
    names: Vec<String>,
    /// Other strings: special values and file paths.
    strings: Vec<String>,
}

const INTS: &[i64] = &[
    0,
    -1,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    9,
    15,
    16,
    17,
    31,
    32,
    33,
    63,
    64,
    65,
    100,
    127,
    128,
    255,
    256,
    257,
    1000,
    1023,
    1024,
    1025,
    4095,
    4096,
    4097,
    16383,
    65535,
    65536,
    1 << 20,
    (1 << 20) + 1,
    1 << 22,
    (1 << 22) + 1,
    1 << 24,
    1_000_000,
    1_000_001,
    10_000_000,
    i32::MAX as i64,
    1 << 31,
    u32::MAX as i64,
    1 << 32,
    1 << 40,
    (1 << 40) + 1,
    1 << 53,
    (1 << 53) + 1,
    i64::MAX,
    i64::MIN,
    -(1 << 53),
    -1000,
];

const FLOATS: &[f64] = &[
    0.0,
    -0.0,
    0.5,
    1.0,
    -1.0,
    0.999_999_999,
    1.000_000_001,
    2.0,
    8.0,
    0.1,
    0.3,
    0.75,
    1.024,
    13.5,
    16.0,
    40.0,
    100.0,
    1e-9,
    1e-300,
    f64::MIN_POSITIVE,
    5e-324,
    1e6,
    1e6 + 1.0,
    1e7,
    1e10,
    1e308,
    f64::MAX,
    f64::NAN,
    -f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    9_007_199_254_740_993.0,
    10_000.0,
    10_000.1,
];

/// Keys that no section has.
const JUNK_KEYS: &[&str] = &[
    "vcz",
    "",
    " ",
    "a.b",
    "KIND",
    "kind ",
    "\u{fc}ber",
    "0",
    "[x]",
];

/// A value to write: `kind` picks the family, `pick` and `raw` the member.
#[derive(Debug, Clone, Copy)]
struct ValuePick {
    kind: u8,
    pick: usize,
    raw: u64,
}

#[derive(Debug, Clone, Copy)]
enum PathPick {
    /// A documented path or one from a seed.
    Known(usize),
    /// A path present in the tree being mutated.
    Existing(usize),
    /// An unknown key in a table of the tree.
    Unknown(usize, usize),
}

#[derive(Debug, Clone)]
enum ConfigOp {
    Set(PathPick, ValuePick),
    Delete(PathPick),
    /// Copies the value at the path from another seed (deleting it if that seed has none).
    Graft(PathPick, usize),
    /// `--set PATH=TEXT` through `parse_assignment` and `set_path`, the value written as a
    /// TOML literal or bare.
    Override(PathPick, ValuePick, bool),
}

#[derive(Debug, Clone)]
struct ConfigCase {
    /// The seed: a valid one unless `.0` is 0 (then any, valid or not).
    seed: (u8, usize),
    ops: Vec<ConfigOp>,
    /// How the tree is read: 0 directly, 1 as TOML text, 2 as JSON text, 3 as byte-edited TOML.
    via: u8,
    edit: (usize, u8),
    predict: (usize, bool, bool),
}

fn value_pick() -> impl Strategy<Value = ValuePick> {
    (0u8..24, any::<usize>(), any::<u64>()).prop_map(|(kind, pick, raw)| ValuePick {
        kind,
        pick,
        raw,
    })
}

fn path_pick() -> impl Strategy<Value = PathPick> {
    prop_oneof![
        4 => any::<usize>().prop_map(PathPick::Known),
        4 => any::<usize>().prop_map(PathPick::Existing),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(t, k)| PathPick::Unknown(t, k)),
    ]
}

fn config_op() -> impl Strategy<Value = ConfigOp> {
    prop_oneof![
        6 => (path_pick(), value_pick()).prop_map(|(p, v)| ConfigOp::Set(p, v)),
        2 => path_pick().prop_map(ConfigOp::Delete),
        2 => (path_pick(), any::<usize>()).prop_map(|(p, s)| ConfigOp::Graft(p, s)),
        2 => (path_pick(), value_pick(), any::<bool>())
            .prop_map(|(p, v, bare)| ConfigOp::Override(p, v, bare)),
    ]
}

fn config_case() -> impl Strategy<Value = ConfigCase> {
    (
        (0u8..5, any::<usize>()),
        prop::collection::vec(config_op(), 1..=3),
        prop_oneof![4 => Just(0u8), 3 => Just(1), 2 => Just(2), 1 => Just(3)],
        (any::<usize>(), 1u8..=255),
        (any::<usize>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(|(seed, ops, via, edit, predict)| ConfigCase {
            seed,
            ops,
            via,
            edit,
            predict,
        })
}

/// The paths of every value under `node` (`tables_only`: of its tables, the root included).
fn collect_paths(
    node: &toml::Value,
    prefix: &mut TreePath,
    tables_only: bool,
    out: &mut Vec<TreePath>,
) {
    match node {
        toml::Value::Table(table) => {
            if tables_only {
                out.push(prefix.clone());
            }
            for (key, value) in table {
                prefix.push(Seg::Key(key.clone()));
                if !tables_only && !prefix.is_empty() {
                    out.push(prefix.clone());
                }
                collect_paths(value, prefix, tables_only, out);
                prefix.pop();
            }
        }
        toml::Value::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                prefix.push(Seg::Index(i));
                if !tables_only {
                    out.push(prefix.clone());
                }
                collect_paths(value, prefix, tables_only, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn child<'a>(node: &'a toml::Value, seg: &Seg) -> Option<&'a toml::Value> {
    match (seg, node) {
        (Seg::Key(k), toml::Value::Table(t)) => t.get(k),
        (Seg::Index(i), toml::Value::Array(a)) => a.get(*i),
        _ => None,
    }
}

fn get_path<'a>(node: &'a toml::Value, path: &[Seg]) -> Option<&'a toml::Value> {
    path.iter().try_fold(node, |node, seg| child(node, seg))
}

/// Sets the value at `path`, turning what is in the way into tables (arrays for indices).
fn set_path_value(node: &mut toml::Value, path: &[Seg], value: toml::Value) {
    let Some((first, rest)) = path.split_first() else {
        *node = value;
        return;
    };
    let next = match first {
        Seg::Key(key) => {
            if !node.is_table() {
                *node = toml::Value::Table(toml::Table::new());
            }
            let table = node.as_table_mut().expect("a table");
            table
                .entry(key.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        }
        Seg::Index(i) => {
            if !node.is_array() {
                *node = toml::Value::Array(Vec::new());
            }
            let array = node.as_array_mut().expect("an array");
            if *i >= array.len() {
                array.push(toml::Value::Table(toml::Table::new()));
            }
            let at = (*i).min(array.len() - 1);
            &mut array[at]
        }
    };
    set_path_value(next, rest, value);
}

fn delete_path(node: &mut toml::Value, path: &[Seg]) {
    match path {
        [] => {}
        [last] => match (last, node) {
            (Seg::Key(k), toml::Value::Table(t)) => {
                t.remove(k);
            }
            (Seg::Index(i), toml::Value::Array(a)) if *i < a.len() => {
                a.remove(*i);
            }
            _ => {}
        },
        [first, rest @ ..] => {
            let next = match (first, node) {
                (Seg::Key(k), toml::Value::Table(t)) => t.get_mut(k),
                (Seg::Index(i), toml::Value::Array(a)) => a.get_mut(*i),
                _ => None,
            };
            if let Some(next) = next {
                delete_path(next, rest);
            }
        }
    }
}

impl ConfigContext {
    fn load() -> ConfigContext {
        let experiments = experiments_dir();
        let fixtures = fixtures_dir();
        let mut seeds = vec![
            ConfigSeed {
                name: "<default, empty>".into(),
                table: toml::Table::new(),
                dir: experiments.clone(),
            },
            ConfigSeed {
                name: "<default, written out>".into(),
                table: toml::Table::try_from(Spec::default().config())
                    .expect("the default config serializes"),
                dir: experiments.clone(),
            },
        ];
        let topologies = files_under(&experiments.join("topologies"), ".topo");
        let mut files = files_under(&experiments, ".toml");
        files.extend(files_under(&fixtures, ".toml"));
        for path in &files {
            let text = std::fs::read_to_string(path).expect("read a seed config");
            let table = tailback_core::config::parse_table(&text, &path.display().to_string())
                .expect("a seed config parses");
            let dir = path.parent().expect("a directory").to_path_buf();
            let name = path.display().to_string();
            // A file topology without its file (set in code by the experiments) gets one.
            let mut variants = vec![(name.clone(), table.clone())];
            let base = dir.join("base.toml");
            if base.is_file() && base != *path {
                let mut merged = tailback_core::config::parse_table(
                    &std::fs::read_to_string(&base).expect("read base.toml"),
                    "base.toml",
                )
                .expect("base.toml parses");
                tailback_core::config::merge_tables(&mut merged, table.clone());
                variants.push((format!("{name} over base.toml"), merged));
            }
            for (name, mut table) in variants {
                let is_file_kind = table
                    .get("topology")
                    .and_then(|t| t.get("kind"))
                    .and_then(toml::Value::as_str)
                    == Some("file");
                let has_file = table.get("topology").and_then(|t| t.get("file")).is_some();
                if is_file_kind && !has_file && !topologies.is_empty() {
                    let topo = &topologies[seeds.len() % topologies.len()];
                    let mut root = toml::Value::Table(table);
                    set_path_value(
                        &mut root,
                        &[Seg::Key("topology".into()), Seg::Key("file".into())],
                        toml::Value::String(topo.display().to_string()),
                    );
                    let toml::Value::Table(t) = root else {
                        unreachable!()
                    };
                    table = t;
                }
                // The valid ones also written out in full, every default explicit.
                let mut resolved = table.clone();
                resolve_relative_paths(&mut resolved, &dir);
                if let Ok(spec) = Spec::from_table(&resolved)
                    && let Ok(full) = toml::Table::try_from(spec.config())
                {
                    seeds.push(ConfigSeed {
                        name: format!("{name}, written out"),
                        table: full,
                        dir: dir.clone(),
                    });
                }
                seeds.push(ConfigSeed {
                    name,
                    table,
                    dir: dir.clone(),
                });
            }
        }
        let docs = std::fs::read_to_string(manifest_dir().join("../../docs/config.md"))
            .unwrap_or_default();
        let (documented, mut names) = documented_keys(&docs);
        let mut known: BTreeSet<TreePath> = documented.into_iter().collect();
        let valid: Vec<usize> = (0..seeds.len())
            .filter(|&i| {
                let mut table = seeds[i].table.clone();
                resolve_relative_paths(&mut table, &seeds[i].dir);
                Spec::from_table(&table).is_ok()
            })
            .collect();
        // The paths of the valid seeds (the others hold experiment grids, not configs).
        for seed in valid.iter().map(|&i| &seeds[i]) {
            let mut paths = Vec::new();
            collect_paths(
                &toml::Value::Table(seed.table.clone()),
                &mut Vec::new(),
                false,
                &mut paths,
            );
            known.extend(paths);
        }
        fn choices<E: Choice>(names: &mut BTreeSet<String>) {
            names.extend(E::CHOICES.iter().map(|(name, _)| name.to_string()));
        }
        use tailback_core::config as c;
        choices::<c::TopologyKind>(&mut names);
        choices::<c::DeadlockCheck>(&mut names);
        choices::<c::RoutingAlgorithm>(&mut names);
        choices::<c::TieBreak>(&mut names);
        choices::<c::PatternKind>(&mut names);
        choices::<c::SelfPackets>(&mut names);
        choices::<c::ProcessKind>(&mut names);
        choices::<c::NicQueues>(&mut names);
        choices::<c::Switching>(&mut names);
        choices::<c::AllocatorKind>(&mut names);
        choices::<c::Multiplexing>(&mut names);
        choices::<c::FabricKind>(&mut names);
        choices::<c::QueueKind>(&mut names);
        choices::<c::Propagate>(&mut names);
        choices::<c::Detection>(&mut names);
        choices::<c::BspLoad>(&mut names);
        choices::<c::ForestPosting>(&mut names);
        choices::<c::Mechanism>(&mut names);
        choices::<c::SidebandKind>(&mut names);
        choices::<c::Estimate>(&mut names);
        choices::<c::FullBuffer>(&mut names);
        choices::<c::EntropyModel>(&mut names);
        choices::<c::EntropyCircuit>(&mut names);
        let mut strings: Vec<String> = [
            "",
            " ",
            "none",
            "unlimited",
            "sdr",
            "ddr",
            "qdr",
            "eth100",
            "edr",
            "x",
            "0",
            "1.5",
            "true",
            "\u{fc}nic\u{f6}de",
            "\0",
            "tab\there",
            "line\nbreak",
            "topologies/two-switches.topo",
            "../topologies/two-switches.topo",
            "sixteen-nodes.trace",
            "/nonexistent/file",
            "/dev/null",
            "/dev/zero",
            "/",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        strings.push("a".repeat(5000));
        for path in files_under(&experiments, ".topo")
            .into_iter()
            .chain(files_under(&fixtures, ".topo"))
            .chain(files_under(&fixtures, ".trace"))
        {
            strings.push(path.display().to_string());
        }
        strings.push(fixtures.display().to_string());
        ConfigContext {
            seeds,
            valid,
            known: known.into_iter().filter(|p| !p.is_empty()).collect(),
            names: names.into_iter().collect(),
            strings,
        }
    }

    /// The value `v` picks; kinds 12 and up perturb `current`, the value being replaced.
    fn value(&self, v: ValuePick, depth: u32, current: Option<&toml::Value>) -> toml::Value {
        use toml::Value as V;
        let raw = v.raw;
        if v.kind >= 12 {
            return match current {
                Some(current) => self.nearby(current, v),
                None => V::Integer((raw % 40) as i64),
            };
        }
        match v.kind {
            0 | 1 => V::Integer(INTS[v.pick % INTS.len()]),
            2 => V::Integer((raw % 300) as i64),
            3 => V::Integer(raw as i64),
            4 => V::Float(if v.pick.is_multiple_of(3) {
                f64::from_bits(raw)
            } else {
                FLOATS[v.pick % FLOATS.len()]
            }),
            5 | 6 => V::String(self.names[v.pick % self.names.len()].clone()),
            7 => V::String(self.strings[v.pick % self.strings.len()].clone()),
            8 => V::Boolean(raw.is_multiple_of(2)),
            9 if depth < 3 => {
                let len = ((raw >> 8) % 4) as usize;
                let items = (0..len).map(|i| v.pick.wrapping_add(i * 7));
                V::Array(match raw % 7 {
                    0 => Vec::new(),
                    1 => items.map(|p| V::Integer(INTS[p % INTS.len()])).collect(),
                    2 => items
                        .map(|p| V::String(self.names[p % self.names.len()].clone()))
                        .collect(),
                    3 => items.map(|_| V::Table(toml::Table::new())).collect(),
                    4 => items
                        .map(|p| V::Array(vec![V::Integer((p % 5) as i64)]))
                        .collect(),
                    5 => vec![V::Integer(1), V::String("a".into()), V::Float(f64::NAN)],
                    _ => items
                        .map(|p| V::Integer(((raw >> 16) as usize + p) as i64 % 20))
                        .collect(),
                })
            }
            10 if depth < 3 => match raw % 4 {
                0 => V::Table(toml::Table::new()),
                1 => {
                    let seed = &self.seeds[(raw >> 2) as usize % self.seeds.len()];
                    let path = &self.known[v.pick % self.known.len()];
                    match get_path(&V::Table(seed.table.clone()), path) {
                        Some(found) => found.clone(),
                        None => V::Table(toml::Table::new()),
                    }
                }
                2 => {
                    let mut table = toml::Table::new();
                    table.insert(
                        "kind".into(),
                        V::String(self.names[v.pick % self.names.len()].clone()),
                    );
                    V::Table(table)
                }
                _ => {
                    let mut table = toml::Table::new();
                    let path = &self.known[v.pick % self.known.len()];
                    if let Some(Seg::Key(key)) = path.last() {
                        let inner = ValuePick {
                            kind: (raw >> 2) as u8 % 10,
                            pick: v.pick / 7,
                            raw: raw >> 6,
                        };
                        table.insert(key.clone(), self.value(inner, depth + 1, None));
                    }
                    V::Table(table)
                }
            },
            _ => V::Datetime("1979-05-27T07:32:00Z".parse().expect("a TOML date")),
        }
    }

    /// A value near `current`: an integer or float moved a little or to an edge, another
    /// name, the other boolean, an array with one element perturbed or cut.
    fn nearby(&self, current: &toml::Value, v: ValuePick) -> toml::Value {
        use toml::Value as V;
        let raw = v.raw;
        match current {
            V::Integer(i) => V::Integer(match raw % 10 {
                0 => i.wrapping_sub(1),
                1 => i.wrapping_add(1),
                2 => i.wrapping_mul(2),
                3 => i / 2,
                4 => 0,
                5 => 1,
                6 => i.wrapping_neg(),
                7 => i.wrapping_add((raw >> 8) as i64 % 7),
                8 => i.saturating_mul(1000),
                _ => INTS[v.pick % INTS.len()],
            }),
            V::Float(x) => V::Float(match raw % 8 {
                0 => x * 0.5,
                1 => x * 2.0,
                2 => x + 0.1,
                3 => x - 0.1,
                4 => 0.0,
                5 => 1.0,
                6 => x * 1e6,
                _ => FLOATS[v.pick % FLOATS.len()],
            }),
            V::String(_) => V::String(self.names[v.pick % self.names.len()].clone()),
            V::Boolean(b) => V::Boolean(!b),
            V::Array(items) if !items.is_empty() => {
                let mut items = items.clone();
                let at = v.pick % items.len();
                match raw % 4 {
                    0 => {
                        items.remove(at);
                    }
                    1 => items.push(items[at].clone()),
                    _ => {
                        let inner = ValuePick { raw: raw >> 2, ..v };
                        items[at] = self.nearby(&items[at], inner);
                    }
                }
                V::Array(items)
            }
            V::Table(table) if !table.is_empty() => {
                let mut table = table.clone();
                let key = table
                    .keys()
                    .nth(v.pick % table.len())
                    .cloned()
                    .expect("a key");
                let inner = ValuePick {
                    raw: raw >> 2,
                    pick: v.pick / 3,
                    ..v
                };
                let value = self.nearby(&table[&key], inner);
                table.insert(key, value);
                V::Table(table)
            }
            _ => V::Integer((raw % 40) as i64),
        }
    }

    fn path(&self, pick: PathPick, root: &toml::Value) -> TreePath {
        match pick {
            PathPick::Known(i) => self.known[i % self.known.len()].clone(),
            PathPick::Existing(i) => {
                let mut paths = Vec::new();
                collect_paths(root, &mut Vec::new(), false, &mut paths);
                if paths.is_empty() {
                    self.known[i % self.known.len()].clone()
                } else {
                    paths[i % paths.len()].clone()
                }
            }
            PathPick::Unknown(t, k) => {
                let mut tables = Vec::new();
                collect_paths(root, &mut Vec::new(), true, &mut tables);
                let mut path = tables[t % tables.len()].clone();
                path.push(Seg::Key(JUNK_KEYS[k % JUNK_KEYS.len()].to_string()));
                path
            }
        }
    }

    /// Applies the case's edits to its seed; returns the tree and a description of the edits.
    fn mutate(&self, case: &ConfigCase, log: &InputLog) -> Result<toml::Table, String> {
        let seed = match case.seed {
            (0, i) => &self.seeds[i % self.seeds.len()],
            (_, i) => &self.seeds[self.valid[i % self.valid.len()]],
        };
        log.record(&format!("seed: {}", seed.name));
        let mut root = toml::Value::Table(seed.table.clone());
        for op in &case.ops {
            match *op {
                ConfigOp::Set(p, v) => {
                    let path = self.path(p, &root);
                    let value = self.value(v, 0, get_path(&root, &path));
                    log.record(&format!("set {} = {}", render_path(&path), short(&value)));
                    set_path_value(&mut root, &path, value);
                }
                ConfigOp::Delete(p) => {
                    let path = self.path(p, &root);
                    log.record(&format!("delete {}", render_path(&path)));
                    delete_path(&mut root, &path);
                }
                ConfigOp::Graft(p, s) => {
                    let path = self.path(p, &root);
                    let donor = &self.seeds[s % self.seeds.len()];
                    let donor_root = toml::Value::Table(donor.table.clone());
                    log.record(&format!("graft {} from {}", render_path(&path), donor.name));
                    match get_path(&donor_root, &path) {
                        Some(value) => set_path_value(&mut root, &path, value.clone()),
                        None => delete_path(&mut root, &path),
                    }
                }
                ConfigOp::Override(p, v, bare) => {
                    let path = self.path(p, &root);
                    let value = self.value(v, 0, get_path(&root, &path));
                    let text = match (&value, bare) {
                        (toml::Value::String(s), true) => s.clone(),
                        _ => value.to_string(),
                    };
                    let assignment = format!("{}={text}", render_path(&path));
                    log.record(&format!("--set {}", short_text(&assignment)));
                    let toml::Value::Table(table) = &mut root else {
                        unreachable!("the root is a table")
                    };
                    if let Ok((key, value)) = tailback_core::config::parse_assignment(&assignment) {
                        tailback_core::config::set_path(table, &key, value).ok();
                    }
                }
            }
        }
        let toml::Value::Table(mut table) = root else {
            return Err("the root stopped being a table".into());
        };
        resolve_relative_paths(&mut table, &seed.dir);
        Ok(table)
    }
}

/// At most 300 characters of `text`.
fn short_text(text: &str) -> String {
    cut(text, 300)
}

/// At most `limit` characters of `text`.
fn cut(text: &str, limit: usize) -> String {
    if text.chars().count() > limit {
        format!(
            "{}... ({} chars)",
            text.chars().take(limit).collect::<String>(),
            text.len()
        )
    } else {
        text.to_string()
    }
}

fn short(value: &toml::Value) -> String {
    short_text(&value.to_string())
}

/// Relative `topology.file` and `traffic.trace_file` made relative to `dir`, as the command
/// line does for a config file.
fn resolve_relative_paths(table: &mut toml::Table, dir: &Path) {
    for (section, key) in [("topology", "file"), ("traffic", "trace_file")] {
        let Some(toml::Value::Table(section)) = table.get_mut(section) else {
            continue;
        };
        if let Some(toml::Value::String(file)) = section.get_mut(key)
            && Path::new(file.as_str()).is_relative()
            && !file.is_empty()
        {
            *file = dir.join(file.as_str()).display().to_string();
        }
    }
}

/// The key paths and enum names documented in `docs/config.md`: the first column of each
/// table under a `[section]` heading, and every `"quoted"` word.
fn documented_keys(docs: &str) -> (Vec<TreePath>, BTreeSet<String>) {
    let between = |text: &str, open: &str, close: &str| -> Option<String> {
        let start = text.find(open)? + open.len();
        let end = text[start..].find(close)? + start;
        Some(text[start..end].to_string())
    };
    let is_word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let mut section: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    let mut names = BTreeSet::new();
    for line in docs.lines() {
        if line.starts_with("## Output fields") {
            break;
        }
        if line.starts_with("## ") || line.starts_with("### ") {
            section = match between(line, "`[", "]`") {
                Some(s) => s.split('.').map(str::to_string).collect(),
                None => Vec::new(),
            };
        }
        if line.starts_with("| `[")
            && line.contains("] key")
            && let Some(s) = between(line, "`[", "]`")
        {
            section = s.split('.').map(str::to_string).collect();
        }
        if let Some(rest) = line.strip_prefix("| `")
            && let Some(end) = rest.find('`')
        {
            // `r_on`, `r_off` rows name several keys.
            let cell = rest.split('|').next().unwrap_or("");
            for key in cell.split(',').map(|k| k.trim().trim_matches('`')) {
                if is_word(key) {
                    let mut path: TreePath = section.iter().cloned().map(Seg::Key).collect();
                    path.push(Seg::Key(key.to_string()));
                    paths.push(path);
                    names.insert(key.to_string());
                }
            }
            let _ = end;
        }
        for quoted in line.split('"').skip(1).step_by(2) {
            if is_word(quoted) {
                names.insert(quoted.to_string());
            }
        }
    }
    (paths, names)
}

/// Reads the mutated tree the way the case says.
fn read_tree(
    table: &toml::Table,
    via: u8,
    edit: (usize, u8),
    log: &InputLog,
) -> Result<Spec, ConfigError> {
    match via {
        1 | 3 => match toml::to_string(table) {
            Ok(text) => {
                let text = if via == 3 && !text.is_empty() {
                    let mut bytes = text.into_bytes();
                    let at = edit.0 % bytes.len();
                    bytes[at] ^= edit.1;
                    String::from_utf8_lossy(&bytes).into_owned()
                } else {
                    text
                };
                log.record(&format!("read as TOML text:\n{}", cut(&text, 20_000)));
                Spec::from_toml_str(&text, "<fuzz>")
            }
            Err(_) => {
                log.record(&format!("read as a tree:\n{table:#?}"));
                Spec::from_table(table)
            }
        },
        2 => match serde_json::to_string(table) {
            Ok(text) => {
                log.record(&format!("read as JSON text:\n{}", cut(&text, 20_000)));
                Spec::from_toml_str(&text, "<fuzz>")
            }
            Err(_) => {
                log.record(&format!("read as a tree:\n{table:#?}"));
                Spec::from_table(table)
            }
        },
        _ => {
            match toml::to_string(table) {
                Ok(text) => log.record(&format!(
                    "read as a tree, which reads:\n{}",
                    cut(&text, 20_000)
                )),
                Err(_) => log.record(&format!("read as a tree:\n{table:#?}")),
            }
            Spec::from_table(table)
        }
    }
}

#[test]
fn fuzz_config_trees() {
    let context = Arc::new(ConfigContext::load());
    run_target(
        "config",
        1,
        CONFIG_CASES,
        config_case(),
        |case, hang, tally| {
            let context = Arc::clone(&context);
            let tally = Arc::clone(tally);
            time_boxed("config", hang, move |log| {
                tally.count(&tally.cases);
                log.record(&format!("{case:?}"));
                let table = context.mutate(&case, log)?;
                let Ok(spec) = read_tree(&table, case.via, case.edit, log) else {
                    return Ok(());
                };
                tally.count(&tally.accepted);
                tally.add(exercise(&spec, predict_options(case.predict))?);
                Ok(())
            })
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Topology files
// ---------------------------------------------------------------------------------------------

/// Names and the directives a topology file's lines are made of.
struct TopologyGrammar {
    switches: Vec<String>,
    nodes: Vec<String>,
}

impl TopologyGrammar {
    fn of(text: &str) -> TopologyGrammar {
        let mut grammar = TopologyGrammar {
            switches: vec!["s9".into()],
            nodes: vec!["z".into()],
        };
        for line in text.lines() {
            let words: Vec<&str> = line
                .split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            match words.as_slice() {
                ["switch", name, ..] => grammar.switches.push(name.to_string()),
                ["node", name, ..] => grammar.nodes.push(name.to_string()),
                _ => {}
            }
        }
        grammar
    }

    fn switch(&self, pick: u64) -> &str {
        &self.switches[(pick % self.switches.len() as u64) as usize]
    }

    fn node(&self, pick: u64) -> &str {
        &self.nodes[(pick % self.nodes.len() as u64) as usize]
    }

    /// A port reference `SWITCH.PORT`, small ports most often.
    fn port(&self, pick: u64) -> String {
        let port = if pick.is_multiple_of(5) {
            number_token(pick >> 3)
        } else {
            ((pick >> 3) % 9).to_string()
        };
        format!("{}.{port}", self.switch(pick >> 12))
    }
}

impl TextGrammar for TopologyGrammar {
    fn line(&self, pick: u64) -> String {
        let (a, b, c) = (pick >> 4, pick >> 20, pick >> 36);
        let option = |p: u64| match p % 4 {
            0 => String::new(),
            1 => format!(
                " speed {}",
                if p % 8 == 1 {
                    number_token(p >> 3)
                } else {
                    (1 + (p >> 3) % 4).to_string()
                }
            ),
            2 => format!(" latency {}", number_token(p >> 3)),
            _ => format!(" latency {} speed 2", 1 + (p >> 3) % 5),
        };
        match pick % 8 {
            0 => format!(
                "switch {} ports {}",
                if a.is_multiple_of(3) {
                    self.switch(a).to_string()
                } else {
                    format!("n{}", a % 50)
                },
                if b.is_multiple_of(3) {
                    number_token(b)
                } else {
                    (1 + b % 8).to_string()
                }
            ),
            1 => format!(
                "node {} {}{}",
                if a.is_multiple_of(3) {
                    self.node(a).to_string()
                } else {
                    format!("m{}", a % 50)
                },
                self.port(b),
                option(c)
            ),
            2 | 3 => format!("link {} {}{}", self.port(a), self.port(b), option(c)),
            4 => format!(
                "route {} {} {}",
                self.switch(a),
                self.node(b),
                if c.is_multiple_of(4) {
                    number_token(c)
                } else {
                    (c % 6).to_string()
                }
            ),
            5 => [
                "switch",
                "node",
                "link",
                "route",
                "switch s",
                "node a",
                "link s0.0",
                "route s0 a",
            ][(a % 8) as usize]
                .to_string(),
            6 => [
                "",
                "# comment",
                "   ",
                "swich s0 ports 2",
                "node a s0.0 speed",
                "link s0.0 s0.0",
                "switch node ports 2",
                "node switch s0.0",
                "switch s.t ports 2",
                "node a .0",
                "node a s0.",
                "link .1 s0.1",
            ][(a % 12) as usize]
                .to_string(),
            _ => format!("{} {}", self.switch(a), self.node(b)),
        }
    }

    fn token(&self, pick: u64) -> String {
        match pick % 5 {
            0 | 1 => number_token(pick >> 3),
            2 => self.switch(pick >> 3).to_string(),
            3 => self.node(pick >> 3).to_string(),
            _ => self.port(pick >> 3),
        }
    }
}

#[derive(Debug, Clone)]
struct TopologyCase {
    seed: usize,
    ops: Vec<TextOp>,
    /// Also read through a configuration (`topology.kind = "file"`).
    through_config: bool,
    /// `deadlock_check = "warn"` (else `"refuse"`).
    warn: bool,
    /// The configuration's fabric: 0 virtual-channel routers, 1 buffered switches.
    buffered: bool,
    predict: (usize, bool, bool),
}

fn topology_case() -> impl Strategy<Value = TopologyCase> {
    (
        any::<usize>(),
        prop::collection::vec(text_op(), 0..=4),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        (any::<usize>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(seed, ops, through_config, warn, buffered, predict)| TopologyCase {
                seed,
                ops,
                through_config,
                warn,
                buffered,
                predict,
            },
        )
}

/// The configuration of a topology file at `path`.
fn file_config(path: &Path, warn: bool, buffered: bool) -> String {
    let check = if warn { "warn" } else { "refuse" };
    let fabric = if buffered {
        "[router]\nvcs = 1\nvc_buffer_flits = 64\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\n"
    } else {
        ""
    };
    format!(
        "[topology]\nkind = \"file\"\nfile = {}\ndeadlock_check = \"{check}\"\n{fabric}\
         [traffic]\nrate = 0.5\npacket_flits = 4\n",
        toml::Value::String(path.display().to_string())
    )
}

/// Larger seeds, written here: a ring of 64 switches with a node each (its shortest paths
/// close a dependency cycle), a line of 300 switches with a node at each end (too many
/// switches to simulate: parsed only), a switch with 64 nodes, and a two-level Clos network of
/// 8 leaves and 4 spines with 32 nodes (many equally short paths).
fn generated_topologies() -> Vec<(String, String)> {
    let mut ring = String::new();
    for i in 0..64 {
        ring.push_str(&format!("switch r{i} ports 3\nnode n{i} r{i}.0\n"));
    }
    for i in 0..64 {
        ring.push_str(&format!("link r{i}.1 r{}.2\n", (i + 1) % 64));
    }
    let mut line = String::from("node a s0.0\n");
    for i in 0..300 {
        line.insert_str(0, &format!("switch s{i} ports 3\n"));
        if i > 0 {
            line.push_str(&format!("link s{}.1 s{i}.2\n", i - 1));
        }
    }
    line.push_str("node b s299.0\n");
    let mut star = String::from("switch hub ports 64\n");
    for i in 0..64 {
        star.push_str(&format!("node n{i} hub.{i}\n"));
    }
    let mut clos = String::new();
    for l in 0..8 {
        clos.push_str(&format!("switch leaf{l} ports 8\n"));
    }
    for s in 0..4 {
        clos.push_str(&format!("switch spine{s} ports 8\n"));
    }
    for l in 0..8 {
        for p in 0..4 {
            clos.push_str(&format!("node h{l}x{p} leaf{l}.{p}\n"));
            clos.push_str(&format!("link leaf{l}.{} spine{p}.{l}\n", 4 + p));
        }
    }
    vec![
        ("<ring of 64 switches>".into(), ring),
        ("<line of 300 switches>".into(), line),
        ("<star of 64 nodes>".into(), star),
        ("<two-level Clos, 32 nodes>".into(), clos),
    ]
}

#[test]
fn fuzz_topology_files() {
    let mut seeds: Vec<(String, String)> =
        files_under(&experiments_dir().join("topologies"), ".topo")
            .into_iter()
            .chain(files_under(&fixtures_dir(), ".topo"))
            .map(|path| {
                let text = std::fs::read_to_string(&path).expect("read a seed topology");
                (path.display().to_string(), text)
            })
            .collect();
    seeds.sort();
    assert!(seeds.len() >= 4, "seed topology files are missing");
    seeds.extend(generated_topologies());
    let seeds = Arc::new(seeds);
    run_target(
        "topology",
        2,
        TOPOLOGY_CASES,
        topology_case(),
        |case, hang, tally| {
            let seeds = Arc::clone(&seeds);
            let tally = Arc::clone(tally);
            time_boxed("topology", hang, move |log| {
                tally.count(&tally.cases);
                let (name, text) = &seeds[case.seed % seeds.len()];
                let grammar = TopologyGrammar::of(text);
                log.record(&format!("{case:?}\nseed: {name}"));
                let bytes = apply_text_ops(text.clone().into_bytes(), &case.ops, &grammar);
                log.record(&format!(
                    "file ({} bytes):\n{}",
                    bytes.len(),
                    String::from_utf8_lossy(&bytes)
                ));
                let parsed = std::str::from_utf8(&bytes).ok().map(CustomShape::parse);
                let small = matches!(&parsed, Some(Ok(shape))
                if shape.nodes() <= MAX_FUZZ_NODES && shape.switches() <= MAX_FUZZ_NODES);
                if !case.through_config && !small {
                    return Ok(());
                }
                let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
                let path = dir.path().join("fuzz.topo");
                std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
                let config = file_config(&path, case.warn, case.buffered);
                log.record(&format!("config:\n{config}"));
                let spec = Spec::from_toml_str(&config, "<fuzz>");
                match (&parsed, &spec) {
                    (Some(Ok(shape)), Err(e)) if case.warn && !case.buffered => {
                        return Err(format!(
                            "the file parses ({} nodes) but its configuration is refused: {e}",
                            shape.nodes()
                        ));
                    }
                    (None | Some(Err(_)), Ok(_)) => {
                        return Err("the file does not parse but its configuration is valid".into());
                    }
                    _ => {}
                }
                if let Ok(spec) = spec {
                    tally.count(&tally.accepted);
                    if small {
                        tally.add(exercise(&spec, predict_options(case.predict))?);
                    }
                }
                Ok(())
            })
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Packet traces
// ---------------------------------------------------------------------------------------------

/// The networks a trace is replayed on: their nodes and configuration (before `[traffic]`).
const TRACE_NETWORKS: &[(usize, &str)] = &[
    (16, "[topology]\nk = 4\n"),
    (4, "[topology]\nkind = \"mesh\"\ndims = [2, 2]\n"),
    (8, "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 3\n"),
    (
        16,
        "[topology]\nk = 4\n[router]\nvcs = 2\nvc_buffer_flits = 8\n\
         switching = \"virtual_cut_through\"\n",
    ),
    (
        8,
        "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 3\n[router]\nvcs = 1\n\
         vc_buffer_flits = 64\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\n",
    ),
];

const TIME_SCALES: &[f64] = &[1.0, 2.0, 0.5, 1e-9, 1e6, 0.001, 3.7];

/// Trace lines: packets on a network of up to 16 nodes.
struct TraceGrammar {
    nodes: u64,
}

impl TextGrammar for TraceGrammar {
    fn line(&self, pick: u64) -> String {
        let n = self.nodes.max(1);
        let (a, b, c, d) = (pick >> 4, pick >> 16, pick >> 24, pick >> 32);
        match pick % 8 {
            0..=2 => format!("{} {} {} {}", a % 200, b % n, c % n, 1 + d % 12),
            3 => format!(
                "{} {} {} {} {} {}",
                a % 200,
                b % n,
                c % n,
                1 + d % 12,
                a % 300,
                d
            ),
            4 => format!(
                "{} {} {} {}",
                number_token(a),
                b % n,
                c % n,
                number_token(d)
            ),
            5 => trace::HEADER.to_string(),
            6 => [
                "",
                "#",
                "   ",
                "# a comment",
                "1 2 3",
                "1 2 3 4 5",
                "1 2 3 4 5 6 7",
                "a b c d",
                "\t1\t2\t3\t4\t",
            ][(a % 9) as usize]
                .to_string(),
            _ => format!("{} {} {} {}", a, b, c, d),
        }
    }

    fn token(&self, pick: u64) -> String {
        match pick % 3 {
            0 | 1 => number_token(pick >> 2),
            _ => ["x", "#", "-", "1,2", "", "4 5"][((pick >> 2) % 6) as usize].to_string(),
        }
    }
}

/// How a trace file is stored.
#[derive(Debug, Clone, Copy)]
enum Storage {
    Plain,
    Gzip,
    /// Gzip, then a byte edit: truncated, a byte flipped, garbage appended, two members, an
    /// empty file, or the text uncompressed under a `.gz` name.
    GzipEdited(u8, usize, u8),
}

#[derive(Debug, Clone)]
struct TraceCase {
    /// Packets: creation cycle, source, destination, flits and whether the run's two extra
    /// fields are written.
    records: Vec<(u64, u32, u32, u32, bool)>,
    header: bool,
    ops: Vec<TextOp>,
    storage: Storage,
    network: usize,
    /// Node count `trace::read` is given: 0 and 1 replace the network's with that many.
    nodes: u8,
    time_scale: usize,
    /// Replayed beside a flow (`process = "flows"`) rather than alone.
    beside_flows: bool,
    predict: (usize, bool, bool),
}

fn storage() -> impl Strategy<Value = Storage> {
    prop_oneof![
        3 => Just(Storage::Plain),
        1 => Just(Storage::Gzip),
        2 => (0u8..6, any::<usize>(), 1u8..=255)
            .prop_map(|(k, at, x)| Storage::GzipEdited(k, at, x)),
    ]
}

fn trace_case() -> impl Strategy<Value = TraceCase> {
    (
        prop::collection::vec(
            (
                0u64..300,
                any::<u32>(),
                any::<u32>(),
                1u32..=20,
                any::<bool>(),
            ),
            0..=24,
        ),
        any::<bool>(),
        prop::collection::vec(text_op(), 0..=3),
        storage(),
        (any::<usize>(), 0u8..10, any::<usize>(), any::<bool>()),
        (any::<usize>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                records,
                header,
                ops,
                storage,
                (network, nodes, time_scale, beside_flows),
                predict,
            )| {
                TraceCase {
                    records,
                    header,
                    ops,
                    storage,
                    network,
                    nodes,
                    time_scale,
                    beside_flows,
                    predict,
                }
            },
        )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compress in memory");
    encoder.finish().expect("compress in memory")
}

/// The trace file's bytes and name.
fn stored(text: &[u8], storage: Storage) -> (Vec<u8>, &'static str) {
    match storage {
        Storage::Plain => (text.to_vec(), "fuzz.trace"),
        Storage::Gzip => (gzip(text), "fuzz.trace.gz"),
        Storage::GzipEdited(kind, at, x) => {
            let mut bytes = gzip(text);
            match kind {
                0 => bytes.truncate(at % (bytes.len() + 1)),
                1 => {
                    let at = at % bytes.len();
                    bytes[at] ^= x;
                }
                2 => bytes.extend_from_slice(&[x, 0x1f, 0x8b, x]),
                3 => {
                    let again = bytes.clone();
                    bytes.extend_from_slice(&again);
                }
                4 => bytes.clear(),
                _ => bytes = text.to_vec(),
            }
            (bytes, "fuzz.trace.gz")
        }
    }
}

#[test]
fn fuzz_traces() {
    run_target(
        "trace",
        3,
        TRACE_CASES,
        trace_case(),
        |case, hang, tally| {
            let tally = Arc::clone(tally);
            time_boxed("trace", hang, move |log| {
                tally.count(&tally.cases);
                log.record(&format!("{case:?}"));
                let (network_nodes, network) = TRACE_NETWORKS[case.network % TRACE_NETWORKS.len()];
                let n = network_nodes as u32;
                let mut text = String::new();
                if case.header {
                    text.push_str(trace::HEADER);
                    text.push('\n');
                }
                for &(created, src, dst, flits, full) in &case.records {
                    text.push_str(&format!("{created} {} {} {flits}", src % n, dst % n));
                    if full {
                        text.push_str(&format!(" {} {}", created + 1, created + 40));
                    }
                    text.push('\n');
                }
                let bytes = apply_text_ops(
                    text.into_bytes(),
                    &case.ops,
                    &TraceGrammar {
                        nodes: network_nodes as u64,
                    },
                );
                let (file, name) = stored(&bytes, case.storage);
                log.record(&format!(
                    "trace text ({} bytes, stored as {name}, {} bytes):\n{}",
                    bytes.len(),
                    file.len(),
                    String::from_utf8_lossy(&bytes)
                ));
                let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
                let path = dir.path().join(name);
                std::fs::write(&path, &file).map_err(|e| e.to_string())?;
                let nodes = match case.nodes {
                    0 => 0,
                    1 => 1,
                    _ => network_nodes,
                };
                log.record(&format!("trace::read with {nodes} nodes"));
                let Ok(records) = trace::read(&path, nodes) else {
                    return Ok(());
                };
                tally.count(&tally.accepted);
                if nodes != network_nodes {
                    return Ok(());
                }
                let scale = TIME_SCALES[case.time_scale % TIME_SCALES.len()];
                trace::check_times(&records, scale).ok();
                let file = toml::Value::String(path.display().to_string());
                let traffic = if case.beside_flows {
                    format!(
                        "[traffic]\nprocess = \"flows\"\npacket_flits = 4\ntrace_file = {file}\n\
                     trace_time_scale = {scale:e}\nflows = [{{ src = 0, dst = 1, rate = 0.3 }}]\n"
                    )
                } else {
                    format!(
                        "[traffic]\nprocess = \"trace\"\ntrace_file = {file}\n\
                     trace_time_scale = {scale:e}\n"
                    )
                };
                let config = format!("{network}{traffic}");
                log.record(&format!("config:\n{config}"));
                let spec = Spec::from_toml_str(&config, "<fuzz>")
                    .map_err(|e| format!("the replay configuration is refused: {e}"))?;
                tally.add(exercise(&spec, predict_options(case.predict))?);
                Ok(())
            })
        },
    );
}

// ---------------------------------------------------------------------------------------------
// The seeds stay meaningful
// ---------------------------------------------------------------------------------------------

/// The fixture seeds are valid (so that mutations start from working configurations) and the
/// seed topology files parse.
#[test]
fn fuzz_seeds_are_valid() {
    for path in files_under(&fixtures_dir(), ".toml") {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut table = tailback_core::config::parse_table(&text, "<seed>").unwrap();
        resolve_relative_paths(&mut table, path.parent().unwrap());
        if let Err(e) = Spec::from_table(&table) {
            panic!("{}: {e}", path.display());
        }
    }
    for path in files_under(&experiments_dir().join("topologies"), ".topo")
        .into_iter()
        .chain(files_under(&fixtures_dir(), ".topo"))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = CustomShape::parse(&text) {
            panic!("{}: {e}", path.display());
        }
    }
    for (name, text) in generated_topologies() {
        if let Err(e) = CustomShape::parse(&text) {
            panic!("{name}: {e}");
        }
    }
    let trace = fixtures_dir().join("sixteen-nodes.trace");
    assert_eq!(trace::read(&trace, 16).unwrap().len(), 7);
    seeds_cover_every_choice("[congestion]\nmechanism = \"?\"\n", "mechanism = ");
    seeds_cover_every_choice(
        "[fabric]\nkind = \"buffered\"\nqueues = \"?\"\n",
        "queues = ",
    );
    let context = ConfigContext::load();
    assert!(
        context.known.len() > 100,
        "{} known paths",
        context.known.len()
    );
    assert!(context.names.len() > 50, "{} names", context.names.len());
    let valid = context.valid.len();
    assert!(
        valid * 2 > context.seeds.len(),
        "{valid} of {} seeds valid",
        context.seeds.len()
    );
}

/// Asserts that the valid seeds of `tests/fixtures/fuzz/` hold every name the configuration
/// accepts for a key, so that every mechanism's keys and every queue scheme of the buffered
/// fabric are fuzzed from a configuration that runs. The names come from the error for the
/// value `?` in `probe`; a seed holds a name when a line starts with `line_start` and the
/// quoted name.
fn seeds_cover_every_choice(probe: &str, line_start: &str) {
    let err = Spec::from_toml_str(probe, "<probe>")
        .unwrap_err()
        .to_string();
    let line = err
        .lines()
        .find(|l| l.contains("= \"?\""))
        .unwrap_or_else(|| panic!("no problem with the probed key in {err}"));
    let names: Vec<&str> = line
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|name| *name != "?")
        .collect();
    assert!(names.len() >= 5, "no choices in {line}");
    let seeds: Vec<String> = files_under(&fixtures_dir(), ".toml")
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    for name in names {
        let line = format!("{line_start}\"{name}\"");
        assert!(
            seeds
                .iter()
                .any(|seed| seed.lines().any(|l| l.trim() == line)),
            "no fuzz seed in tests/fixtures/fuzz has `{line}`"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Regressions: the minimal inputs of what the fuzzers found
// ---------------------------------------------------------------------------------------------

/// Found by the config fuzzer (seed `experiments/infiniband/forest.toml`, unmutated): a valid
/// forest configuration was refused when read back from its own serialization, so
/// `Spec::new` and `Spec::edited` failed on every forest: `[traffic.forest]` was written with
/// `message_flits` (read from `[traffic]`, where it is also written) and `hotspot_lifetime`
/// (read as `hotspot_lifetime_cycles`).
#[test]
fn regression_a_forest_config_reads_back_from_its_serialization() {
    let spec = Spec::from_toml_str(
        "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 3\n[nic]\nqueues = \"per_destination\"\n\
         [traffic]\nprocess = \"forest\"\nmessage_flits = 24\n\
         [traffic.forest]\nhotspots = 2\nhotspot_lifetime_cycles = 500\n",
        "<regression>",
    )
    .unwrap();
    assert_eq!(Spec::new(spec.config().clone()).unwrap(), spec);
    let shorter = spec.edited(|c| c.sim.measure_cycles = 100).unwrap();
    assert_eq!(shorter.sim.measure_cycles, 100);
}

/// Found by the trace fuzzer in a build with overflow checks: `trace::read` given 0 nodes
/// worded its error with the last node index `nodes - 1`, which panicked there ("attempt to
/// subtract with overflow" in `trace.rs`) and otherwise named nodes "0 to
/// 18446744073709551615".
#[test]
fn regression_a_trace_read_for_no_nodes_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.trace");
    std::fs::write(&path, "0 0 0 1\n").unwrap();
    let error = trace::read(&path, 0).unwrap_err().to_string();
    assert!(error.contains("the network has no nodes"), "{error}");
}

/// Found by the trace fuzzer: an interval so long that its start plus its length passes
/// `u64::MAX` wrapped, found no packet in the interval and pushed empty intervals until memory
/// ran out. The interval now ends with the trace.
#[test]
fn regression_a_prediction_interval_past_the_last_cycle_ends_with_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.trace");
    std::fs::write(&path, "1 0 1 1\n5 2 3 4\n").unwrap();
    let text = format!(
        "[topology]\nk = 4\n[traffic]\nprocess = \"trace\"\ntrace_file = \"{}\"\n",
        path.display()
    );
    let spec = Spec::from_toml_str(&text, "<regression>").unwrap();
    let options = PredictOptions::new(true).interval(Some(u64::MAX));
    let prediction = predict::predict(&spec, &options).unwrap();
    assert_eq!(prediction.intervals.len(), 1);
}

/// Found by the config fuzzer in a build with overflow checks: at an injection rate so small
/// that a packet's wait passes 2^64 cycles, the NIC's wake-up time overflowed. It now waits
/// for the end of time: the run completes and the NIC sends nothing.
#[test]
fn regression_a_vanishing_injection_rate_waits_without_overflow() {
    let spec = Spec::from_toml_str(
        "[topology]\nk = 4\n[nic]\ninject_rate = 1e-20\n[traffic]\nrate = 0.5\n\
         [sim]\nwarmup_cycles = 10\nmeasure_cycles = 200\ndrain_cycles_max = 100\n",
        "<regression>",
    )
    .unwrap();
    let report = tailback_core::run(&spec).unwrap();
    assert_eq!(report.summary.packets_delivered, 0);
}
