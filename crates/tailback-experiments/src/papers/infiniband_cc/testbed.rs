//! Paper III's testbed scenarios with IB CC off and on (R1, R2), and the victim's gain at
//! several message sizes (Fig. 9).

use super::{CC_ON, report, sd};
use crate::grid::Grid;
use crate::papers::infiniband::{
    Phases, SCENARIO_1, SCENARIO_2, Scenario, host, run_scenarios, scenario_job,
};
use crate::{Comparison, Context, Job, Findings, Result};

/// Scenario 1 with every flow from the start (the message-size sweep).
const SCENARIO_1_AT_ONCE: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 0)],
};

/// Message sizes of the sweep, bytes (Paper III's Fig. 9 does not list its sizes).
const MESSAGE_BYTES: [u32; 5] = [1024, 4096, 16384, 65536, 262144];

/// Scenario 1 off and on, and every flow from the start at each message size, off and on.
pub(super) fn s1_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = super::off_and_on(grid, &SCENARIO_1)?;
    for bytes in MESSAGE_BYTES {
        // Room for two whole messages in each source queue, so that none is cut short.
        let packets = bytes.div_ceil(2048);
        let size = format!("traffic.message_bytes={bytes}");
        let queue = format!("nic.source_queue_packets={}", (2 * packets).max(64));
        jobs.push(scenario_job(
            grid,
            &SCENARIO_1_AT_ONCE,
            &format!("msg-{bytes}-off"),
            &[size.clone(), queue.clone()],
        )?);
        jobs.push(scenario_job(
            grid,
            &SCENARIO_1_AT_ONCE,
            &format!("msg-{bytes}-on"),
            &[size, queue, CC_ON.into()],
        )?);
    }
    Ok(jobs)
}

pub(super) fn s1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let on = Phases::new(report(&reports, "cc-on")?, grid)?;
    let gbit = (2, " Gbit/s");
    let victim = (0, 3);
    let contributors = [(1, 4), (2, 4), (5, 4), (6, 4)];
    let mut comparisons = Vec::new();
    for phase in 0..5 {
        comparisons.push(Comparison::numbers(
            &format!("s1cc-f1-phase{phase}"),
            format!("CC on: the victim F1 (H1 -> H4) in phase {phase}"),
            13.0,
            on.gbps(victim, phase),
            0.05,
            gbit,
        ));
    }
    let total: f64 = contributors.iter().map(|&c| on.gbps(c, 4)).sum();
    for &(src, dst) in &contributors {
        let ours = on.gbps((src, dst), 4);
        comparisons.push(Comparison::numbers(
            &format!("s1cc-five-{}", host(src).to_lowercase()),
            format!("CC on: {} -> H5 with all five flows on", host(src)),
            13.0 / 4.0,
            ours,
            0.15,
            gbit,
        ));
        let share = ours / total;
        comparisons.push(
            Comparison::judged(
                format!("CC on: {}'s share of H5's link", host(src)),
                "0.250 (the parking lot solved)",
                format!("{share:.3}"),
                (share - 0.25).abs() <= 0.04,
                "within ±0.04 of 0.250",
            )
            .identified(
                &format!("s1cc-share-{}", host(src).to_lowercase()),
                Some(0.25),
                Some(share),
            ),
        );
    }
    let two = on.gbps((1, 4), 2) + on.gbps((2, 4), 2);
    comparisons.push(
        Comparison::judged(
            "CC on: F2 + F3 while they are the only contributors",
            "≈ 11 Gbit/s (hardware); ≈ 13 (Paper I's simulation)",
            format!("{two:.2} Gbit/s"),
            (9.35..=14.95).contains(&two),
            "between 9.35 and 14.95 Gbit/s (15 % below 11 to 15 % above 13)",
        )
        .identified("s1cc-two-contributors", Some(11.0), Some(two)),
    );
    // Each contributor's spread over time, averaged over the four.
    let spread = |p: &Phases| {
        contributors
            .iter()
            .map(|&c| sd(&p.samples(c, 4)))
            .sum::<f64>()
            / 4.0
    };
    let (sd_off, sd_on) = (spread(&off), spread(&on));
    comparisons.push(
        Comparison::judged(
            "a contributor's throughput samples with all five flows, standard deviation off and on",
            "CC on: the contributors oscillate",
            format!("{sd_off:.3} off, {sd_on:.3} on (Gbit/s)"),
            sd_on > 5.0 * sd_off.max(0.01),
            "on > 5x off (off counted as at least 0.01 Gbit/s)",
        )
        .identified("s1cc-oscillation", None, Some(sd_on)),
    );
    for bytes in MESSAGE_BYTES {
        let at = |state: &str| -> Result<f64> {
            let r = report(&reports, &format!("msg-{bytes}-{state}"))?;
            Ok(Phases::new(r, grid)?.gbps(victim, 0))
        };
        let (v_off, v_on) = (at("off")?, at("on")?);
        let gain = v_on / v_off.max(1e-9);
        comparisons.push(
            Comparison::judged(
                format!("the victim's gain from CC with {bytes}-byte messages"),
                "≈ 10x (about an order of magnitude, hardware)",
                format!("{gain:.1}x ({v_off:.2} -> {v_on:.2} Gbit/s)"),
                gain >= 5.0,
                "at least 5x",
            )
            .identified(&format!("s1cc-msg-{bytes}-gain"), Some(10.0), Some(gain)),
        );
    }
    Ok(Findings::legacy(comparisons, files))
}

pub(super) fn s2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let on = Phases::new(report(&reports, "cc-on")?, grid)?;
    let flows: Vec<(u32, u32)> = SCENARIO_2.flows.iter().map(|&(s, d, _)| (s, d)).collect();
    let mut comparisons = Vec::new();
    let mut means = Vec::new();
    for (i, &flow) in flows.iter().enumerate() {
        let ours = on.gbps(flow, 2);
        means.push(ours);
        comparisons.push(Comparison::numbers(
            &format!("s2cc-f{}", i + 1),
            format!(
                "CC on: F{} ({} -> {}) with all three on, mean",
                i + 1,
                host(flow.0),
                host(flow.1)
            ),
            10.05855,
            ours,
            0.05,
            (2, " Gbit/s"),
        ));
    }
    let mean = |p: &Phases| flows.iter().map(|&f| p.gbps(f, 2)).sum::<f64>() / 3.0;
    let drop = 1.0 - mean(&on) / mean(&off);
    comparisons.push(
        Comparison::judged(
            "CC on: the mean's drop from CC off",
            "3.5 % (10.43 -> 10.06 Gbit/s)",
            format!("{:.1} %", 100.0 * drop),
            (0.02..=0.06).contains(&drop),
            "drop between 2 and 6 %",
        )
        .identified("s2cc-drop", Some(0.0354), Some(drop)),
    );
    // Each flow's spread over time, averaged over the three (Table II's "All" pools them; the
    // flows' means are nearly equal, so the two agree).
    let spread = |p: &Phases| flows.iter().map(|&f| sd(&p.samples(f, 2))).sum::<f64>() / 3.0;
    let (sd_off, sd_on) = (spread(&off), spread(&on));
    let window: f64 = grid.param("window_us")?;
    comparisons.push(
        Comparison::judged(
            format!("standard deviation of the {window} µs samples, CC on"),
            "1.770 Gbit/s (42 Mbit/s off: 42x)",
            format!("{sd_on:.3} Gbit/s ({sd_off:.3} off)"),
            sd_on >= 10.0 * sd_off,
            "on >= 10x off",
        )
        .identified("s2cc-sd", Some(1.77045), Some(sd_on)),
    );
    let (lo, hi) = means.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| {
        (lo.min(x), hi.max(x))
    });
    comparisons.push(
        Comparison::judged(
            "CC on: the three flows' means, max / min",
            "fair (10.07, 10.12, 9.99)",
            format!("{:.3}", hi / lo),
            hi / lo <= 1.05,
            "max / min <= 1.05",
        )
        .identified("s2cc-fairness", Some(10.12461 / 9.986035), Some(hi / lo)),
    );
    Ok(Findings::legacy(comparisons, files))
}
