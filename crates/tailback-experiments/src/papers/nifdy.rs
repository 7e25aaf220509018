//! Callahan and Goldstein, "NIFDY: A Low Overhead, High Throughput Network Interface", ISCA
//! 1995: Figs. 2 and 3 (the 64-node networks of Table 3 under heavy and light bulk-synchronous
//! traffic), Fig. 4 (O and B on fat trees of growing size) and Figs. 5 and 6 (the cyclic shift
//! on the 32-node CM-5 network).
//!
//! Jobs: `experiments/nifdy/grids.toml` on `base.toml`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;
use tailback_plot::{Point, Series, YScale};

use crate::grid::{Entry, Folder, Grid};
use crate::{Comparison, Context, Experiment, Findings, Job, Result};

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
            crate::claim::undeclared,
            fig2,
        ),
        Experiment::on_grid(
            "nifdy-fig3",
            "Packets delivered in a million cycles under light bulk-synchronous traffic (non-responsive nodes) on the 64-node networks",
            "Callahan and Goldstein, ISCA 1995, Fig. 3 and Table 3",
            &FOLDER,
            crate::claim::undeclared,
            fig3,
        ),
        Experiment::on_grid(
            "nifdy-fig4",
            "NIFDY's throughput relative to none against fat-tree size, for pool sizes B and table sizes O",
            "Callahan and Goldstein, ISCA 1995, Fig. 4",
            &FOLDER,
            crate::claim::undeclared,
            fig4,
        ),
        Experiment::on_grid(
            "nifdy-cshift",
            "Cyclic shift on the 32-node CM-5 network: throughput with and without barriers and NIFDY, pending packets per receiver over time",
            "Callahan and Goldstein, ISCA 1995, Figs. 5 and 6",
            &FOLDER,
            crate::claim::undeclared,
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

/// Mean packets delivered over the seeds of the run ids `id(seed)`.
fn mean_delivered(
    reports: &BTreeMap<String, RunReport>,
    seeds: &[u64],
    id: impl Fn(u64) -> String,
) -> f64 {
    let total: u64 = seeds
        .iter()
        .map(|&s| reports[&id(s)].summary.delivered_packets)
        .sum();
    total as f64 / seeds.len() as f64
}

fn write_text(ctx: &Context, name: &str, text: &str) -> Result<PathBuf> {
    let path = ctx.out().join(name);
    std::fs::write(&path, text).map_err(anyhow::Error::from)?;
    Ok(path)
}

fn fig2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    synthetic(ctx, grid, jobs, "heavy")
}

fn fig3(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    synthetic(ctx, grid, jobs, "light")
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
    let id = |net: &Network, interface: &str, seed: u64| {
        format!("{load}|{}|{interface}|{seed}", net.name)
    };
    let reports = ctx.run(jobs)?;
    let delivered = |net: &Network, interface: &str| {
        mean_delivered(&reports, &seeds, |s| id(net, interface, s))
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
    let mut gains = Vec::new();
    for net in &networks {
        let [bare, buffers, nifdy] = [0, 1, 2].map(|i| delivered(net, interfaces[i]));
        let [d, w, b, o] = net.best;
        text.push_str(&format!(
            "{:<28}{bare:>11.0}{buffers:>14.0}{nifdy:>11.0}{:>12.3}{:>15.3}   {d},{w},{b},{o}\n",
            net.name,
            nifdy / bare,
            nifdy / buffers
        ));
        gains.push((net, nifdy / bare, nifdy / buffers));
    }
    let stem = if load == "heavy" { "fig2" } else { "fig3" };
    let files = vec![write_text(ctx, &format!("{stem}.txt"), &text)?];
    print!("{text}");
    let worst = gains
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|g| format!("{} {:.3}", g.0.name, g.1))
        .unwrap_or_default();
    let mean = |narrow: bool| {
        let picked: Vec<f64> = gains
            .iter()
            .filter(|g| g.0.narrow == narrow)
            .map(|g| g.1)
            .collect();
        picked.iter().sum::<f64>() / picked.len() as f64
    };
    let spread = gains
        .iter()
        .map(|g| g.2)
        .fold((f64::MAX, 0.0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
    let comparisons = if load == "heavy" {
        vec![
            Comparison::judged(
                "NIFDY delivers more than no NIFDY on every network",
                "yes",
                format!("lowest NIFDY/none: {worst}"),
                gains.iter().all(|g| g.1 > 1.0),
                "NIFDY/none > 1 on every network (packets delivered, means over the seeds)",
            ),
            Comparison::judged(
                "NIFDY about as good as buffers only (within 10%)",
                "yes",
                format!("NIFDY/buffers {:.3} to {:.3}", spread.0, spread.1),
                spread.0 >= 0.9 && spread.1 <= 1.1,
                "NIFDY/buffers between 0.9 and 1.1 on every network",
            ),
            Comparison::judged(
                "the gain grows as bisection bandwidth shrinks",
                "yes",
                format!(
                    "mean NIFDY/none: meshes, torus and CM-5 {:.3}; other networks {:.3}",
                    mean(true),
                    mean(false)
                ),
                mean(true) > mean(false),
                "mean NIFDY/none of the meshes, torus and CM-5 > that of the other networks",
            ),
        ]
    } else {
        vec![
            Comparison::info(
                "NIFDY against no NIFDY, light traffic",
                "bars in Fig. 3 (no numbers in the text)",
                format!(
                    "lowest NIFDY/none: {worst}; mean {:.3}",
                    (mean(true) + mean(false)) / 2.0
                ),
            ),
            Comparison::info(
                "NIFDY against buffers only, light traffic",
                "bars in Fig. 3",
                format!("NIFDY/buffers {:.3} to {:.3}", spread.0, spread.1),
            ),
        ]
    };
    Ok(Findings::legacy(comparisons, files))
}

/// The run name of a Fig. 4 variant: O = 8 at B = 8 is one run of both sweeps.
fn fig4_variant(b: u32, o: u32) -> String {
    format!("B={b},O={o}")
}

/// Fig. 4: the gain of NIFDY over none by fat-tree size, for the pool sizes B at O = 8 and the
/// table sizes O at B = 8.
fn fig4(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
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
    fig4_b.sort();
    fig4_o.sort();
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
    let mut best_o = Vec::new();
    for &n in &levels {
        text.push_str(&format!("{:<10}", nodes(n)));
        for &b in &fig4_b {
            text.push_str(&format!("{:>8.3}", normalised(n, &b_name(b))));
        }
        let mut best = (0, 0.0);
        for &o in &fig4_o {
            let value = normalised(n, &o_name(o));
            if value > best.1 {
                best = (o, value);
            }
            text.push_str(&format!("{value:>8.3}"));
        }
        best_o.push(best.0);
        text.push_str(&format!("   {:.0}\n", delivered(n, "none")));
    }
    files.push(write_text(ctx, "fig4.txt", &text)?);
    print!("{text}");
    let (first, last) = (levels[0], levels[levels.len() - 1]);
    let held: Vec<String> = fig4_b
        .iter()
        .map(|&b| {
            let (small, large) = (normalised(first, &b_name(b)), normalised(last, &b_name(b)));
            format!("B={b}: {small:.3} -> {large:.3}")
        })
        .collect();
    let holds = fig4_b
        .iter()
        .all(|&b| normalised(last, &b_name(b)) >= normalised(first, &b_name(b)) - 0.02);
    // The paper: O = 8 best at every size but its largest, O = 4 there. Neighbouring O often
    // differ by less than a percent, so "best" is judged as within 1% of the best.
    let near_best = |n: u32, o: u32| {
        let best = fig4_o
            .iter()
            .map(|&o| normalised(n, &o_name(o)))
            .fold(0.0, f64::max);
        normalised(n, &o_name(o)) >= 0.99 * best
    };
    let (all_but_last, largest) = levels.split_at(levels.len() - 1);
    let comparisons = vec![
        Comparison::judged(
            format!(
                "for fixed B, the gain does not shrink from {} to {} nodes",
                nodes(first),
                nodes(last)
            ),
            "does not decrease, mostly increases",
            held.join(", "),
            holds,
            "for every B, NIFDY/none at the largest size >= at the smallest - 0.02",
        ),
        Comparison::judged(
            "O = 8 within 1% of the best O below the largest size",
            "O = 8 best",
            format!("best O by size {best_o:?}"),
            all_but_last.iter().all(|&n| near_best(n, 8)),
            "at every size but the largest, O = 8's NIFDY/none >= 99 % of the best O's",
        ),
        Comparison::judged(
            format!("O = 4 best at the largest size ({} nodes)", nodes(last)),
            "yes",
            format!(
                "O = 4 {:.3}, O = 8 {:.3}",
                normalised(last, &o_name(4)),
                normalised(last, &o_name(8))
            ),
            largest.iter().all(|&n| near_best(n, 4)),
            "at the largest size, O = 4's NIFDY/none >= 99 % of the best O's",
        ),
    ];
    Ok(Findings::legacy(comparisons, files))
}

/// Figs. 5 and 6: the cyclic shift on the 32-node CM-5 network.
fn cshift(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let packets: u64 = grid.param("packets")?;
    let window: u64 = grid.param("window")?;
    let cases: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    let reports = ctx.run(jobs)?;
    let total = 32 * 31 * packets;
    let mut text = format!(
        "cyclic shift, 32-node CM-5 network, {packets} packets of 12 flits per phase\n{:<18}{:>12}{:>20}{:>22}\n",
        "case", "cycles", "packets per cycle", "mean max pending"
    );
    let mut files = Vec::new();
    let mut measured = BTreeMap::new();
    for &name in &cases {
        let report = &reports[name];
        let duration = report
            .summary
            .duration_cycles
            .unwrap_or(report.summary.cycles);
        let rate = total as f64 / duration as f64;
        let peak = report
            .pending
            .iter()
            .map(|p| f64::from(p.per_receiver.iter().copied().max().unwrap_or(0)))
            .sum::<f64>()
            / report.pending.len().max(1) as f64;
        text.push_str(&format!(
            "{name:<18}{duration:>12}{rate:>20.4}{peak:>22.2}\n"
        ));
        measured.insert(name, (rate, peak, report.summary.duration_cycles.is_some()));
        if matches!(name, "no NIFDY" | "NIFDY") {
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
    files.push(write_text(ctx, "fig6.txt", &text)?);
    print!("{text}");
    let (none, barriers, nifdy) = (
        measured["no NIFDY"],
        measured["barriers"],
        measured["NIFDY"],
    );
    let recommended = measured["NIFDY 1,8,16,8"];
    // The claim that the first rate beats the second.
    let faster = |what: &str, paper: &str, ours: f64, other: f64| {
        Comparison::judged(
            what,
            paper,
            format!("{ours:.4} vs {other:.4} packets/cycle"),
            ours > other,
            "the first rate > the second (packets of the whole shift per cycle)",
        )
    };
    let comparisons = vec![
        Comparison::judged(
            "every case completes",
            "yes",
            format!(
                "{} of {}",
                measured.values().filter(|m| m.2).count(),
                measured.len()
            ),
            measured.values().all(|m| m.2),
            "every case delivers its last packet before the run is cut off",
        ),
        faster(
            "NIFDY alone beats barriers without NIFDY (Table 3's 1,4,8,8)",
            "yes (Fig. 6)",
            nifdy.0,
            barriers.0,
        ),
        faster(
            "the same with the paper's concluding 1,8,16,8",
            "yes (Fig. 6)",
            recommended.0,
            barriers.0,
        ),
        faster(
            "NIFDY finishes the shift before no NIFDY (no barriers)",
            "yes (Fig. 5)",
            nifdy.0,
            none.0,
        ),
        Comparison::judged(
            "pending packets per receiver stay even with NIFDY",
            "yes: piles dissipate (Fig. 5)",
            format!(
                "mean over time of the largest pile: {:.2} with NIFDY, {:.2} without",
                nifdy.1, none.1
            ),
            nifdy.1 < none.1,
            "mean over time of the largest pile: with NIFDY < without",
        ),
    ];
    Ok(Findings::legacy(comparisons, files))
}
