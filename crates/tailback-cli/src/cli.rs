//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Simulate congestion in lossless interconnection networks.
#[derive(Debug, Parser)]
#[command(name = "tailback", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one simulation (without CONFIG: the built-in default experiment, an 8x8 torus under
    /// uniform traffic) and write its summary and plots.
    Run(RunArgs),
    /// Run a configuration over a grid of parameter values, in parallel (or as a Slurm job
    /// array), and plot latency and accepted throughput against offered load.
    Sweep(SweepArgs),
    /// Validate a configuration and describe the network it builds.
    Check(CheckArgs),
    /// Predict packet latency with the analytical queueing model instead of simulating: per
    /// channel utilisation and Pollaczek-Khinchin waits along every route.
    Predict(PredictArgs),
    /// Measure simulation speed on the reference configurations.
    Bench(BenchArgs),
    /// Reproduce published figures: list the experiments or run one.
    Experiment(ExperimentArgs),
    /// Build a static HTML report (viewable offline) of the experiments and sweeps found under
    /// directories: an index, and a page per entry with its figures and tables.
    Report(ReportArgs),
    /// Run one task of a sweep or experiment submitted with --slurm: the points of its shard,
    /// into DIR/shards/task-I (what each array task of the job script runs).
    #[command(hide = true)]
    Shard(ShardArgs),
    /// Gather the results of a sweep or experiment run on a cluster (DIR/results.jsonl and
    /// every shard's) into its normal outputs, running nothing; refuses while points are
    /// missing.
    Merge(MergeArgs),
    /// Points done, running and missing of a sweep or experiment submitted with --slurm, per
    /// shard and in total, with its Slurm job ids.
    Status(StatusArgs),
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A human-readable table.
    Table,
    /// One JSON object.
    Json,
}

/// How much memory runs may take.
#[derive(Debug, Args)]
pub struct MemoryLimit {
    /// Most memory the runs may take together, e.g. `16G` (bytes, or K, M, G, T); by
    /// default what the machine has available. Runs estimated to need more are refused.
    #[arg(long, value_name = "SIZE", value_parser = crate::budget::parse_size)]
    pub max_memory: Option<u64>,
}

/// Where the configuration comes from.
#[derive(Debug, Args)]
pub struct ConfigSource {
    /// Overrides a configuration value, e.g. `--set router.vcs=8` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Removes a key of the configuration file, so that it takes its default, e.g. `--unset
    /// traffic.pattern` (repeatable; applied before `--set`).
    #[arg(long = "unset", value_name = "KEY")]
    pub unset: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Configuration file (TOML, or JSON; `-` reads standard input); the built-in default when
    /// omitted.
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub source: ConfigSource,
    /// Directory for summary.json and plots [default: tailback-out/run].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overwrite the results of an earlier run in the output directory.
    #[arg(long)]
    pub force: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the trace of delivered packets to this file (gzip-compressed if it ends in .gz);
    /// `traffic.process = "trace"` replays it.
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    /// Smooth the time-series figure with a centred moving average over this many windows
    /// (`series.csv` keeps every window as it is).
    #[arg(long, value_name = "WINDOWS", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub smooth: u32,
    #[command(flatten)]
    pub memory: MemoryLimit,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Configuration file (TOML, or JSON; `-` reads standard input).
    pub config: PathBuf,
    #[command(flatten)]
    pub source: ConfigSource,
    /// A swept key: `key=start:stop:step` (inclusive) or `key=v1,v2,...` (repeatable; the sweep
    /// runs every combination).
    #[arg(long, value_name = "KEY=VALUES", required = true)]
    pub vary: Vec<String>,
    /// Seeds per point: the configured seed and the next ones.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub seeds: u32,
    /// Simulations run at once [default: number of cores; never more than the points].
    #[arg(short = 'j', long = "jobs", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// Most points the sweep may plan (every combination of the --vary values, times --seeds);
    /// a larger sweep is refused before any point is made.
    #[arg(long, value_name = "N", default_value_t = crate::workers::DEFAULT_MAX_POINTS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_points: u64,
    /// Directory for results.csv, results.jsonl and plots [default: tailback-out/sweep].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep the results already in the output directory and run only the missing points.
    #[arg(long)]
    pub resume: bool,
    #[command(flatten)]
    pub memory: MemoryLimit,
    #[command(flatten)]
    pub slurm: SlurmArgs,
}

/// Running the points on a Slurm cluster instead of here (`docs/cluster.md`).
#[derive(Debug, Clone, Default, Args)]
pub struct SlurmArgs {
    /// Submit the points as a Slurm job array (shards of points, one array task each) instead
    /// of running them here; `tailback status DIR` follows it, `tailback merge DIR` gathers
    /// the results. With --resume, submits only the shards with missing points.
    #[arg(long, help_heading = "Slurm")]
    pub slurm: bool,
    /// With --slurm: write the plan and the job script, print the script, submit nothing.
    #[arg(long, requires = "slurm", help_heading = "Slurm")]
    pub dry_run: bool,
    /// With --slurm: points per shard (array task) [default: as many shards as 16 points
    /// each need, evened out].
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Slurm")]
    pub shard_size: Option<u32>,
    /// With --slurm: the partition (sbatch --partition).
    #[arg(long, value_name = "P", requires = "slurm", help_heading = "Slurm")]
    pub partition: Option<String>,
    /// With --slurm: the time limit of each task (sbatch --time, e.g. 2:00:00).
    #[arg(long, value_name = "T", requires = "slurm", help_heading = "Slurm")]
    pub time: Option<String>,
    /// With --slurm: the memory of each task (sbatch --mem, e.g. 4G).
    #[arg(long, value_name = "M", requires = "slurm", help_heading = "Slurm")]
    pub mem: Option<String>,
    /// With --slurm: the account charged (sbatch --account).
    #[arg(long, value_name = "A", requires = "slurm", help_heading = "Slurm")]
    pub account: Option<String>,
    /// With --slurm: CPUs of each task, the simulations it runs at once (sbatch
    /// --cpus-per-task) [default: 1].
    #[arg(long, value_name = "C", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Slurm")]
    pub cpus_per_task: Option<u32>,
}

#[derive(Debug, Args)]
pub struct ShardArgs {
    /// The output directory of a sweep or experiment submitted with --slurm.
    pub dir: PathBuf,
    /// The shard to run (the array task id, from 0).
    #[arg(long)]
    pub task: usize,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The output directory of a sweep or experiment submitted with --slurm.
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The output directory of a sweep or experiment submitted with --slurm.
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Configuration file (TOML, or JSON; `-` reads standard input); the built-in default when
    /// omitted.
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub source: ConfigSource,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Run every analysis whatever it costs (by default those estimated at more than two
    /// billion steps, about half a minute, are skipped and listed).
    #[arg(long)]
    pub full: bool,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Configuration file (TOML, or JSON; `-` reads standard input): a pattern at a rate, or a
    /// trace to replay; the built-in default when omitted.
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub source: ConfigSource,
    /// Cut a trace into intervals of this many cycles [default: one interval].
    #[arg(long, value_name = "CYCLES", value_parser = clap::value_parser!(u64).range(1..))]
    pub interval: Option<u64>,
    /// Leave out the incoming-link correction (plain M/G/1 waits at every channel).
    #[arg(long)]
    pub no_correction: bool,
    /// Report every channel's model (lambda, rho, E[S^2], wait) in every interval.
    #[arg(long)]
    pub channels: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Runs per reference configuration; the fastest is reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Only the reference configuration with this name.
    #[arg(long)]
    pub only: Option<String>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ExperimentArgs {
    #[command(subcommand)]
    pub command: ExperimentCommand,
}

#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// List the experiments.
    List,
    /// Run one experiment: its simulations in parallel, its plots, summary.json, and a table
    /// with the paper's numbers beside ours.
    Run(ExperimentRunArgs),
    /// Print the jobs an experiment knows before running (id and configuration fingerprint).
    #[command(hide = true)]
    Jobs(ExperimentJobsArgs),
    /// Count, per paper, the claims that full runs judged: agree, differ, not separated,
    /// information and not compared, as a Markdown table (the one that opens
    /// docs/validation.md). Reads the experiments' summary.json files found under DIRS, or a
    /// snapshot of them.
    Tally(ExperimentTallyArgs),
}

#[derive(Debug, Args)]
pub struct ExperimentTallyArgs {
    /// Directories searched, recursively, for experiments' summary.json files (full runs).
    pub dirs: Vec<PathBuf>,
    /// Read the tallies from this snapshot; with DIRS, theirs are added to it (an experiment
    /// found in both is taken from DIRS).
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<PathBuf>,
    /// Also write the tallies read from DIRS to this snapshot file.
    #[arg(long, value_name = "FILE", requires = "dirs")]
    pub write_snapshot: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExperimentJobsArgs {
    /// Experiment name.
    pub name: String,
    /// The jobs of `--quick`.
    #[arg(long)]
    pub quick: bool,
}

#[derive(Debug, Args)]
pub struct ExperimentRunArgs {
    /// Experiment name (see `tailback experiment list`).
    pub name: String,
    /// Simulations run at once [default: number of cores; never more than the points].
    #[arg(short = 'j', long = "jobs", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// Output directory [default: tailback-out/experiments/NAME, or NAME-quick with
    /// --quick]. A directory holding a quick run is refused for a full run, and the reverse.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep results already in the output directory and run only what is missing.
    #[arg(long)]
    pub resume: bool,
    /// Short runs and fewer points: checks that everything works, does not reproduce the paper
    /// (values and rules are shown, but no comparison is judged).
    #[arg(long)]
    pub quick: bool,
    #[command(flatten)]
    pub slurm: SlurmArgs,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Directories searched, recursively, for experiments (a summary.json naming the
    /// experiment) and sweeps (a sweep.json).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Report directory, holding index.html [default: report/ in the first DIR]. It is
    /// rewritten whole.
    #[arg(long)]
    pub out: Option<PathBuf>,
}
