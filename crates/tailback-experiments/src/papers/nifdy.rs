//! Callahan and Goldstein, "NIFDY: A Low Overhead, High Throughput Network Interface", ISCA
//! 1995: Figs. 2 and 3 (the 64-node networks of Table 3 under heavy and light bulk-synchronous
//! traffic), Fig. 4 (O and B on fat trees of growing size) and Figs. 5 and 6 (the cyclic shift
//! on the 32-node CM-5 network).
//!
//! Jobs: `experiments/nifdy/grids.toml` on `base.toml`.

use std::collections::BTreeMap;

use tailback_plot::{Point, Series, YScale};

use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::{Entry, Folder, Grid};
use crate::{Context, Experiment, Job, Result};

static FOLDER: Folder = Folder {
    path: "experiments/nifdy",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../experiments/nifdy/grids.toml"),
        ),
        (
            "base.toml",
            include_str!("../../../../experiments/nifdy/base.toml"),
        ),
    ],
};

/// The experiments of this paper.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment::on_grid(
            "nifdy-fig2",
            "Packets delivered in a million cycles under heavy bulk-synchronous traffic on the 64-node networks: no NIFDY, buffers only, NIFDY",
            "Callahan and Goldstein, ISCA 1995, Fig. 2 and Table 3",
            &FOLDER,
            fig2_claims,
            fig2,
        ),
        Experiment::on_grid(
            "nifdy-fig3",
            "Packets delivered in a million cycles under light bulk-synchronous traffic (non-responsive nodes) on the 64-node networks",
            "Callahan and Goldstein, ISCA 1995, Fig. 3 and Table 3",
            &FOLDER,
            fig3_claims,
            fig3,
        ),
        Experiment::on_grid(
            "nifdy-fig4",
            "NIFDY's throughput relative to none against fat-tree size, for pool sizes B and table sizes O",
            "Callahan and Goldstein, ISCA 1995, Fig. 4",
            &FOLDER,
            fig4_claims,
            fig4,
        ),
        Experiment::on_grid(
            "nifdy-cshift",
            "Cyclic shift on the 32-node CM-5 network: throughput with and without barriers and NIFDY, pending packets per receiver over time",
            "Callahan and Goldstein, ISCA 1995, Figs. 5 and 6",
            &FOLDER,
            cshift_claims,
            cshift,
        ),
    ]
}

/// A network of Table 3 as the analysis reads it.
struct Network<'a> {
    name: &'a str,
    /// Table 3's best NIFDY parameters: d, w, b, o.
    best: [u32; 4],
    /// A small bisection: the paper expects NIFDY to gain more there.
    narrow: bool,
}

impl<'a> Network<'a> {
    fn of(entry: &'a Entry) -> Result<Network<'a>> {
        Ok(Network {
            name: &entry.name,
            best: [
                entry.var("d")?,
                entry.var("w")?,
                entry.var("b")?,
                entry.var("o")?,
            ],
            narrow: entry.var("narrow")?,
        })
    }
}

/// Sec. 4.1's Figs. 2 and 3.
const FIGS_2_AND_3: Source = Source::new(Paper::Nifdy, "Sec. 4.1, Figs. 2 and 3");
/// The summary's statement of Figs. 2 and 3.
const SUMMARY: Source = Source::new(Paper::Nifdy, "Sec. 7");
/// The abstract's statement of Figs. 2 and 3.
const ABSTRACT: Source = Source::new(Paper::Nifdy, "Abstract");

/// A network's name as it appears in claim ids: "full-fat-tree", "8x8-mesh".
fn slug(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}

fn fig2_claims(grid: &Grid) -> Result<Claims> {
    synthetic_claims(grid, "heavy")
}

fn fig3_claims(grid: &Grid) -> Result<Claims> {
    synthetic_claims(grid, "light")
}

/// What the paper states of every network under `load` (Figs. 2 and 3 alike): NIFDY above
/// no NIFDY and level with buffers only on every network, and a larger gain where the
/// bisection is narrow.
fn synthetic_claims(grid: &Grid, load: &str) -> Result<Claims> {
    let mut claims = Claims::default();
    for entry in grid.entries("network")? {
        let name = &entry.name;
        claims
            .claim(
                Claim::new(
                    format!("{load}-{}-over-none", slug(name)),
                    format!("{name}, {load} traffic: packets delivered, NIFDY against no NIFDY"),
                    SUMMARY,
                    Rule::Order {
                        higher: "NIFDY",
                        lower: "no NIFDY",
                    },
                )
                .shown(0, " packets")
                .stated("NIFDY increased packet throughput on every network"),
            )
            .claim(
                // "Comparable" read as within 10 % either way; a quarter off is not comparable.
                Claim::new(
                    format!("{load}-{}-vs-buffers", slug(name)),
                    format!("{name}, {load} traffic: NIFDY / buffers only - 1"),
                    SUMMARY,
                    Rule::Zero {
                        within: 0.1,
                        failing: -0.25,
                    },
                )
                .shown(3, "")
                .stated("comparable to having added more buffers"),
            );
    }
    claims
        .claim(
            Claim::new(
                format!("{load}-narrow-gain"),
                format!(
                    "{load} traffic: mean NIFDY / no NIFDY of the narrow networks (meshes, torus, \
                     CM-5) against the others"
                ),
                ABSTRACT,
                Rule::Order {
                    higher: "narrow bisection",
                    lower: "wide bisection",
                },
            )
            .shown(3, "")
            .stated("the utility of NIFDY increases as bisection bandwidth decreases"),
        )
        .not_compared(
            FIGS_2_AND_3,
            format!("{load} traffic: packets delivered per network and interface"),
            "bars only",
            "the text gives no number; digitised values would be read off the bars",
        )
        .not_compared(
            SUMMARY,
            "payload gained from in-order delivery",
            "NIFDY increased total payload delivered on all networks",
            "the figures count packets, not payload; we do not model the software's reordering \
             cost",
        );
    if load == "heavy" {
        claims.not_compared(
            Source::new(Paper::Nifdy, "Table 3"),
            "maximum network volume, packets per processor",
            "10, 6.5, 10, 1, 4, 6, 6, 10",
            "a property of the networks, checked by `tailback check` (docs/validation.md), not \
             by this experiment",
        );
    }
    Ok(claims)
}

fn fig2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    synthetic(ctx, grid, jobs, "heavy")
}

fn fig3(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    synthetic(ctx, grid, jobs, "light")
}

/// Packets delivered by one network under one load: per interface (no NIFDY, buffers only,
/// NIFDY), per seed.
struct Delivered {
    bare: Vec<f64>,
    buffers: Vec<f64>,
    nifdy: Vec<f64>,
}

impl Delivered {
    fn mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    /// Per seed, NIFDY over no NIFDY.
    fn gains(&self) -> Vec<f64> {
        self.nifdy
            .iter()
            .zip(&self.bare)
            .map(|(n, b)| n / b)
            .collect()
    }

    /// A line of the table.
    fn row(&self, net: &Network) -> String {
        let (bare, buffers, nifdy) = (
            Self::mean(&self.bare),
            Self::mean(&self.buffers),
            Self::mean(&self.nifdy),
        );
        let [d, w, b, o] = net.best;
        format!(
            "{:<28}{bare:>11.0}{buffers:>14.0}{nifdy:>11.0}{:>12.3}{:>15.3}   {d},{w},{b},{o}\n",
            net.name,
            nifdy / bare,
            nifdy / buffers
        )
    }
}

/// Figs. 2 and 3: every network with every interface under `load`.
fn synthetic(ctx: &Context, grid: &Grid, jobs: &[Job], load: &str) -> Result<Findings> {
    let seeds: Vec<u64> = grid.axis("seed")?;
    let networks = grid
        .entries("network")?
        .iter()
        .map(Network::of)
        .collect::<Result<Vec<_>>>()?;
    let interfaces: Vec<&str> = grid
        .entries("interface")?
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    let reports = ctx.run(jobs)?;
    let per_seed = |net: &Network, interface: &str| -> Vec<f64> {
        seeds
            .iter()
            .map(|s| {
                let id = format!("{load}|{}|{interface}|{s}", net.name);
                reports[&id].summary.delivered_packets as f64
            })
            .collect()
    };
    let mut text = format!(
        "{load} traffic: packets delivered in the window (mean of {} seeds)\n{:<28}{:>11}{:>14}{:>11}{:>12}{:>15}   d,w,b,o\n",
        seeds.len(),
        "network",
        "no NIFDY",
        "buffers only",
        "NIFDY",
        "NIFDY/none",
        "NIFDY/buffers"
    );
    let mut found = Findings::default();
    let mut narrow_gains = vec![Vec::new(); seeds.len()];
    let mut wide_gains = vec![Vec::new(); seeds.len()];
    for net in &networks {
        let [bare, buffers, nifdy] = [0, 1, 2].map(|i| per_seed(net, interfaces[i]));
        let delivered = Delivered {
            bare,
            buffers,
            nifdy,
        };
        text.push_str(&delivered.row(net));
        let name = slug(net.name);
        found.set(
            format!("{load}-{name}-over-none"),
            Ours::Paired(
                delivered
                    .nifdy
                    .iter()
                    .copied()
                    .zip(delivered.bare.iter().copied())
                    .collect(),
            ),
        );
        let levels: Vec<f64> = delivered
            .nifdy
            .iter()
            .zip(&delivered.buffers)
            .map(|(n, b)| n / b - 1.0)
            .collect();
        found.set(format!("{load}-{name}-vs-buffers"), Ours::Seeds(levels));
        let group = if net.narrow {
            &mut narrow_gains
        } else {
            &mut wide_gains
        };
        for (seed, gain) in delivered.gains().into_iter().enumerate() {
            group[seed].push(gain);
        }
    }
    found.set(
        format!("{load}-narrow-gain"),
        Ours::Paired(
            narrow_gains
                .iter()
                .zip(&wide_gains)
                .map(|(n, w)| (Delivered::mean(n), Delivered::mean(w)))
                .collect(),
        ),
    );
    let stem = if load == "heavy" { "fig2" } else { "fig3" };
    found
        .files
        .push(ctx.write_text(format!("{stem}.txt"), &text)?);
    print!("{text}");
    Ok(found)
}

/// The run name of a Fig. 4 variant: O = 8 at B = 8 is one run of both sweeps.
fn fig4_variant(b: u32, o: u32) -> String {
    format!("B={b},O={o}")
}

/// Fig. 4: the gain of NIFDY over none by fat-tree size, for the pool sizes B at O = 8 and the
/// table sizes O at B = 8.
fn fig4(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let (fig4_b, fig4_o) = fig4_sizes(grid)?;
    let delivered =
        |n: u32, name: &str| reports[&format!("n={n}|{name}")].summary.delivered_packets as f64;
    let b_name = |b: u32| fig4_variant(b, 8);
    let o_name = |o: u32| fig4_variant(8, o);
    let levels: Vec<u32> = grid.axis("level")?;
    let nodes = |n: u32| 4u32.pow(n);
    let normalised = |n: u32, name: &str| delivered(n, name) / delivered(n, "none");
    let curves = |names: Vec<(String, String)>| -> Vec<Series> {
        names
            .into_iter()
            .map(|(label, name)| Series {
                label,
                points: levels
                    .iter()
                    .map(|&n| Point {
                        x: f64::from(nodes(n)),
                        y: normalised(n, &name),
                        marked: false,
                        error: None,
                    })
                    .collect(),
                saturation: None,
            })
            .collect()
    };
    let b_curves = curves(
        fig4_b
            .iter()
            .map(|&b| (format!("B = {b}"), b_name(b)))
            .collect(),
    );
    let o_curves = curves(
        fig4_o
            .iter()
            .map(|&o| (format!("O = {o}"), o_name(o)))
            .collect(),
    );
    let mut files = tailback_plot::lines(
        &ctx.out().join("fig4-b"),
        "Fat trees, heavy traffic: NIFDY (O = 8) over no NIFDY, by pool size",
        "nodes",
        "packets delivered, relative to no NIFDY",
        &b_curves,
        YScale::Linear,
    )?;
    files.extend(tailback_plot::lines(
        &ctx.out().join("fig4-o"),
        "Fat trees, heavy traffic: NIFDY (B = 8) over no NIFDY, by table size",
        "nodes",
        "packets delivered, relative to no NIFDY",
        &o_curves,
        YScale::Linear,
    )?);
    let mut text = format!("{:<10}", "nodes");
    for &b in &fig4_b {
        text.push_str(&format!("{:>8}", format!("B={b}")));
    }
    for &o in &fig4_o {
        text.push_str(&format!("{:>8}", format!("O={o}")));
    }
    text.push_str("   none (packets)\n");
    for &n in &levels {
        text.push_str(&format!("{:<10}", nodes(n)));
        for &b in &fig4_b {
            text.push_str(&format!("{:>8.3}", normalised(n, &b_name(b))));
        }
        for &o in &fig4_o {
            text.push_str(&format!("{:>8.3}", normalised(n, &o_name(o))));
        }
        text.push_str(&format!("   {:.0}\n", delivered(n, "none")));
    }
    files.push(ctx.write_text("fig4.txt", &text)?);
    print!("{text}");
    let (first, last) = (levels[0], levels[levels.len() - 1]);
    let mut found = Findings::with_files(files);
    for &b in &fig4_b {
        found.set(
            format!("fig4-b{b}-held"),
            Ours::Ratio {
                num: normalised(last, &b_name(b)),
                den: normalised(first, &b_name(b)),
            },
        );
    }
    let mean_over_sizes =
        |name: &str| levels.iter().map(|&n| normalised(n, name)).sum::<f64>() / levels.len() as f64;
    for pair in fig4_b.windows(2) {
        found.set(
            format!("fig4-b{}-over-b{}", pair[1], pair[0]),
            Ours::Paired(vec![(
                mean_over_sizes(&b_name(pair[1])),
                mean_over_sizes(&b_name(pair[0])),
            )]),
        );
    }
    for &n in &levels {
        let best_o = if n == last { 4 } else { 8 };
        let best_other = fig4_o
            .iter()
            .filter(|&&o| o != best_o)
            .map(|&o| normalised(n, &o_name(o)))
            .fold(0.0, f64::max);
        found.set(
            format!("fig4-o{best_o}-best-{}", nodes(n)),
            Ours::Paired(vec![(normalised(n, &o_name(best_o)), best_other)]),
        );
    }
    Ok(found)
}

/// Sec. 4.2's Fig. 4.
const FIG_4: Source = Source::new(Paper::Nifdy, "Sec. 4.2, Fig. 4");

/// The pool sizes B (at O = 8) and the table sizes O (at B = 8) of Fig. 4's variants, each in
/// increasing order.
fn fig4_sizes(grid: &Grid) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut sizes: Vec<(u32, u32)> = Vec::new();
    for entry in grid
        .entries("fig4-variant")?
        .iter()
        .filter(|e| e.name != "none")
    {
        sizes.push((entry.var("b")?, entry.var("o")?));
    }
    let mut fig4_b: Vec<u32> = sizes.iter().filter(|s| s.1 == 8).map(|s| s.0).collect();
    let mut fig4_o: Vec<u32> = sizes.iter().filter(|s| s.0 == 8).map(|s| s.1).collect();
    fig4_b.sort_unstable();
    fig4_o.sort_unstable();
    Ok((fig4_b, fig4_o))
}

/// What Sec. 4.2 states of Fig. 4: for a fixed B the gain holds or grows with size, a larger
/// B is better, and O = 8 is best at every size but the largest, where O = 4 is.
fn fig4_claims(grid: &Grid) -> Result<Claims> {
    let (fig4_b, _) = fig4_sizes(grid)?;
    let levels: Vec<u32> = grid.axis("level")?;
    let nodes = |n: u32| 4u32.pow(n);
    let (first, last) = (nodes(levels[0]), nodes(levels[levels.len() - 1]));
    let mut claims = Claims::default();
    for &b in &fig4_b {
        // "Does not decrease": at least 1, less the 2 % that one seed's noise may take.
        claims.claim(
            Claim::new(
                format!("fig4-b{b}-held"),
                format!("B = {b}: NIFDY / no NIFDY at {last} nodes over at {first} nodes"),
                FIG_4,
                Rule::AtLeast {
                    value: 1.0,
                    bound: 0.98,
                },
            )
            .shown(3, "")
            .stated("does not decrease and in most cases increases (at least 1)"),
        );
    }
    for pair in fig4_b.windows(2) {
        claims.claim(
            Claim::new(
                format!("fig4-b{}-over-b{}", pair[1], pair[0]),
                format!(
                    "NIFDY / no NIFDY, mean over the sizes: B = {} against B = {}",
                    pair[1], pair[0]
                ),
                FIG_4,
                Rule::Order {
                    higher: "the larger B",
                    lower: "the smaller B",
                },
            )
            .shown(3, "")
            .stated("increasing B gives better performance for any size network"),
        );
    }
    for &n in &levels {
        let (best, paper) = if nodes(n) == last {
            (4, "O = 4 best at the largest size")
        } else {
            (8, "O = 8 best at every size but the largest")
        };
        claims.claim(
            Claim::new(
                format!("fig4-o{best}-best-{}", nodes(n)),
                format!(
                    "{} nodes: NIFDY / no NIFDY, O = {best} against the best other O",
                    nodes(n)
                ),
                FIG_4,
                Rule::Order {
                    higher: if best == 4 { "O = 4" } else { "O = 8" },
                    lower: "the best other O",
                },
            )
            .shown(3, "")
            .stated(paper),
        );
    }
    claims.not_compared(
        FIG_4,
        "normalised throughput per size, B and O",
        "curves only",
        "the text gives no number; digitised values would be read off the curves",
    );
    Ok(claims)
}

/// One case of the cyclic shift in one seed's run.
struct ShiftRun {
    /// Packets delivered per cycle over the whole shift.
    rate: f64,
    /// The mean over samples of the largest pile of pending packets at one receiver.
    peak_pending: f64,
    /// Whether every packet was delivered (not cut off).
    complete: bool,
}

/// Figs. 5 and 6: the cyclic shift on the 32-node CM-5 network, every case under each seed.
fn cshift(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let packets: u64 = grid.param("packets")?;
    let window: u64 = grid.param("window")?;
    let seeds: Vec<u64> = grid.axis("seed")?;
    let cases: Vec<String> = grid
        .entries("cshift-case")?
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let reports = ctx.run(jobs)?;
    let total = 32 * 31 * packets;
    let mut text = format!(
        "cyclic shift, 32-node CM-5 network, {packets} packets of 12 flits per phase, mean of {} \
         seeds\n{:<18}{:>12}{:>20}{:>22}\n",
        seeds.len(),
        "case",
        "cycles",
        "packets per cycle",
        "mean max pending"
    );
    let mut files = Vec::new();
    let mut measured: BTreeMap<&str, Vec<ShiftRun>> = BTreeMap::new();
    for name in &cases {
        let mut runs = Vec::new();
        for (i, seed) in seeds.iter().enumerate() {
            let report = &reports[&format!("{name}|{seed}")];
            let duration = report
                .summary
                .duration_cycles
                .unwrap_or(report.summary.cycles);
            let peak_pending = report
                .pending
                .iter()
                .map(|p| f64::from(p.per_receiver.iter().copied().max().unwrap_or(0)))
                .sum::<f64>()
                / report.pending.len().max(1) as f64;
            runs.push(ShiftRun {
                rate: total as f64 / duration as f64,
                peak_pending,
                complete: report.summary.duration_cycles.is_some(),
            });
            // Fig. 5's piles, from the first seed.
            if i == 0 && matches!(name.as_str(), "no NIFDY" | "NIFDY") {
                let stem = if name == "NIFDY" {
                    "fig5-nifdy-"
                } else {
                    "fig5-none-"
                };
                files.extend(crate::files::pending::write(
                    ctx.out(),
                    stem,
                    &format!("cyclic shift on the CM-5 network, {name}, no barriers"),
                    window,
                    &report.pending,
                )?);
            }
        }
        let mean = |f: fn(&ShiftRun) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
        let rate = mean(|r| r.rate);
        text.push_str(&format!(
            "{name:<18}{:>12.0}{rate:>20.4}{:>22.2}\n",
            total as f64 / rate,
            mean(|r| r.peak_pending)
        ));
        measured.insert(name, runs);
    }
    files.push(ctx.write_text("fig6.txt", &text)?);
    print!("{text}");
    let paired = |higher: &str, lower: &str, pick: fn(&ShiftRun) -> f64| {
        let pairs = measured[higher]
            .iter()
            .zip(&measured[lower])
            .map(|(h, l)| (pick(h), pick(l)))
            .collect();
        Ours::Paired(pairs)
    };
    let rate = |r: &ShiftRun| r.rate;
    let cut_off = measured.values().flatten().filter(|r| !r.complete).count();
    let mut found = Findings::with_files(files);
    found
        .set("cshift-complete", Ours::Value(cut_off as f64))
        .set(
            "cshift-nifdy-over-barriers",
            paired("NIFDY", "barriers", rate),
        )
        .set(
            "cshift-recommended-over-barriers",
            paired("NIFDY 1,8,16,8", "barriers", rate),
        )
        .set("cshift-nifdy-over-none", paired("NIFDY", "no NIFDY", rate))
        .set(
            "cshift-even-piles",
            paired("no NIFDY", "NIFDY", |r| r.peak_pending),
        );
    Ok(found)
}

/// Sec. 4.3's Figs. 5 and 6.
const CSHIFT: Source = Source::new(Paper::Nifdy, "Sec. 4.3, Figs. 5 and 6");

/// An ordering of two cases of the cyclic shift.
fn cshift_order(
    id: &str,
    what: &str,
    (higher, lower): (&'static str, &'static str),
    stated: &str,
    digits: usize,
    unit: &'static str,
) -> Claim {
    Claim::new(id, what, CSHIFT, Rule::Order { higher, lower })
        .shown(digits, unit)
        .stated(stated)
}

/// What Sec. 4.3 states of the cyclic shift: every case transfers the same packets, NIFDY
/// alone beats barriers and no NIFDY, and keeps the piles outside receivers even.
fn cshift_claims(_: &Grid) -> Result<Claims> {
    let rate = " packets/cycle";
    let mut claims = Claims::default();
    claims
        .claim(
            Claim::new(
                "cshift-complete",
                "runs (cases and seeds) cut off before delivering the whole shift",
                CSHIFT,
                Rule::Zero {
                    within: 0.5,
                    failing: 1.0,
                },
            )
            .shown(1, "")
            .stated("none: the same number of packets is transferred in every case"),
        )
        .claim(cshift_order(
            "cshift-nifdy-over-barriers",
            "the whole shift's rate: NIFDY alone (Table 3's 1,4,8,8) against barriers",
            ("NIFDY", "barriers"),
            "NIFDY's congestion control alone is better than optimized barriers",
            4,
            rate,
        ))
        .claim(cshift_order(
            "cshift-recommended-over-barriers",
            "the same with the paper's concluding 1,8,16,8",
            ("NIFDY 1,8,16,8", "barriers"),
            "NIFDY's congestion control alone is better than optimized barriers",
            4,
            rate,
        ))
        .claim(cshift_order(
            "cshift-nifdy-over-none",
            "the whole shift's rate without barriers: NIFDY against no NIFDY",
            ("NIFDY", "no NIFDY"),
            "NIFDY finishes earlier; much better than with nothing at all",
            4,
            rate,
        ))
        .claim(cshift_order(
            "cshift-even-piles",
            "mean over time of the largest pile of pending packets at a receiver",
            ("no NIFDY", "NIFDY"),
            "piles accumulate without NIFDY; with it they dissipate",
            2,
            " packets",
        ))
        .not_compared(
            CSHIFT,
            "the throughput of each case",
            "bars only (Fig. 6)",
            "the text gives no number; digitised values would be read off the bars",
        )
        .not_compared(
            CSHIFT,
            "NIFDY with its in-order delivery exploited",
            "the benefit is even greater",
            "we do not model the software's reordering cost, so in-order delivery gains nothing",
        )
        .not_compared(
            SUMMARY,
            "payload over buffers only under all-to-all transfers",
            "as much as 100 % more",
            "payload from in-order delivery, which we do not model",
        );
    Ok(claims)
}
