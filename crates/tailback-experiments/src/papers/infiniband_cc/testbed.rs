//! Paper III's testbed scenarios with IB CC off and on (R1, R2), and the victim's gain at
//! several message sizes (Fig. 9).

use super::{CC_ON, report, sd};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source, Tolerance};
use crate::grid::Grid;
use crate::papers::infiniband::{
    Phases, SCENARIO_1, SCENARIO_2, Scenario, host, run_scenarios, scenario_job,
};
use crate::{Context, Job, Result};

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

/// Paper III's scenario 1 with CC on (Figs. 7b and 8).
const FIG_7: Source = Source::new(Paper::GranIII, "Sec. V-B, Figs. 7b and 8");
/// Paper I's simulation of scenario 1 with CC on.
const PAPER_I: Source = Source::new(Paper::GranI, "Sec. 5, Fig. 7");
/// Paper III's packet-size sweep.
const FIG_9: Source = Source::new(Paper::GranIII, "Sec. V-B, Fig. 9");
/// Paper III's scenario 2.
const TABLE_II: Source = Source::new(Paper::GranIII, "Sec. V-C, Table II");

/// The victim and the contributors in scenario 1.
const VICTIM: (u32, u32) = (0, 3);
const CONTRIBUTORS: [(u32, u32); 4] = [(1, 4), (2, 4), (5, 4), (6, 4)];

/// What Paper III (and Paper I's simulation) state of scenario 1 with CC on.
pub(super) fn s1_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for phase in 0..5 {
        claims.claim(
            Claim::new(
                format!("s1cc-f1-phase{phase}"),
                format!("CC on: the victim F1 (H1 -> H4) in phase {phase}"),
                FIG_7,
                Rule::near(13.0, 0.05),
            )
            .shown(2, " Gbit/s")
            .stated("≈ 13 Gbit/s the whole time (PCIe-limited)"),
        );
    }
    for &(src, _) in &CONTRIBUTORS {
        let h = host(src);
        claims.claim(
            Claim::new(
                format!("s1cc-five-{}", h.to_lowercase()),
                format!("CC on: {h} -> H5 with all five flows on"),
                FIG_7,
                Rule::near(13.0 / 4.0, 0.15),
            )
            .shown(2, " Gbit/s")
            .stated("≈ 3.25 Gbit/s (13 shared equally)"),
        );
        claims.claim(
            Claim::new(
                format!("s1cc-share-{}", h.to_lowercase()),
                format!("CC on: {h}'s share of H5's link"),
                FIG_7,
                Rule::Near {
                    value: 0.25,
                    tolerance: Tolerance::Absolute(0.04),
                },
            )
            .shown(3, "")
            .stated("0.250 (the parking lot solved)"),
        );
    }
    claims
        .claim(
            Claim::new(
                "s1cc-two-contributors",
                "CC on: F2 + F3 while they are the only contributors",
                PAPER_I,
                Rule::near(13.0, 0.15),
            )
            .shown(2, " Gbit/s")
            .stated("≈ 13 Gbit/s (Paper I's simulation)"),
        )
        .not_compared(
            FIG_7,
            "CC on: F2 + F3 while they are the only contributors, on the hardware",
            "≈ 11 Gbit/s",
            "the hardware's hosts do not fill the bottleneck (the thesis says so); our hosts \
             are Paper I's simulated ones, so the comparison is with its ≈ 13",
        )
        .not_compared(
            FIG_7,
            "CC on: the contributors oscillate",
            "no number given",
            "stated in words only; our spread off and on is shown for information",
        );
    for bytes in MESSAGE_BYTES {
        claims.claim(
            Claim::new(
                format!("s1cc-msg-{bytes}-gain"),
                format!("the victim's gain from CC with {bytes}-byte messages"),
                FIG_9,
                Rule::near(10.0, 0.25),
            )
            .shown(1, "x")
            .stated("≈ 10x (about an order of magnitude, hardware)"),
        );
        claims.claim(
            Claim::new(
                format!("s1cc-msg-{bytes}-on"),
                format!("CC on: the victim with {bytes}-byte messages"),
                FIG_9,
                Rule::near(13.0, 0.05),
            )
            .shown(2, " Gbit/s")
            .stated("its throughput on an uncongested network (13 Gbit/s)"),
        );
    }
    claims.not_compared(
        FIG_9,
        "the message sizes of the sweep",
        "not listed",
        "a parameter the paper does not give: ours are 1, 4, 16, 64 and 256 KiB",
    );
    Ok(claims)
}

pub(super) fn s1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut found = Findings::default();
    let reports = run_scenarios(ctx, jobs, &mut found.files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let on = Phases::new(report(&reports, "cc-on")?, grid)?;
    for phase in 0..5 {
        found.set(
            format!("s1cc-f1-phase{phase}"),
            Ours::Value(on.gbps(VICTIM, phase)),
        );
    }
    let total: f64 = CONTRIBUTORS.iter().map(|&c| on.gbps(c, 4)).sum();
    for &(src, dst) in &CONTRIBUTORS {
        let h = host(src).to_lowercase();
        let ours = on.gbps((src, dst), 4);
        found.set(format!("s1cc-five-{h}"), Ours::Value(ours));
        found.set(format!("s1cc-share-{h}"), Ours::Value(ours / total));
    }
    let two = on.gbps((1, 4), 2) + on.gbps((2, 4), 2);
    found.set("s1cc-two-contributors", Ours::Value(two));
    // Each contributor's spread over time, averaged over the four.
    let spread = |p: &Phases| {
        CONTRIBUTORS
            .iter()
            .map(|&c| sd(&p.samples(c, 4)))
            .sum::<f64>()
            / 4.0
    };
    found.info(
        "a contributor's throughput samples with all five flows, standard deviation off and on",
        "CC on: the contributors oscillate",
        format!("{:.3} off, {:.3} on (Gbit/s)", spread(&off), spread(&on)),
    );
    for bytes in MESSAGE_BYTES {
        let at = |state: &str| -> Result<f64> {
            let r = report(&reports, &format!("msg-{bytes}-{state}"))?;
            Ok(Phases::new(r, grid)?.gbps(VICTIM, 0))
        };
        let (v_off, v_on) = (at("off")?, at("on")?);
        found.set(
            format!("s1cc-msg-{bytes}-gain"),
            Ours::Value(v_on / v_off.max(1e-9)),
        );
        found.set(format!("s1cc-msg-{bytes}-on"), Ours::Value(v_on));
    }
    Ok(found)
}

/// Table II's CC-on means, per flow (Mbit/s in the paper).
const S2_MEANS: [f64; 3] = [10.06551, 10.12461, 9.986035];

/// The smallest spread our throughput samples can show: one 2048-byte packet more or less in
/// a sample window, in Gbit/s.
fn sample_quantum(window_us: f64) -> f64 {
    2048.0 * 8.0 / (window_us * 1e3)
}

/// What Paper III's Table II states of scenario 2 with CC on.
pub(super) fn s2_claims(grid: &Grid) -> Result<Claims> {
    let window: f64 = grid.param("window_us")?;
    let mut claims = Claims::default();
    for (i, &flow) in SCENARIO_2.flows.iter().enumerate() {
        claims.claim(
            Claim::new(
                format!("s2cc-f{}", i + 1),
                format!(
                    "CC on: F{} ({} -> {}) with all three on, mean",
                    i + 1,
                    host(flow.0),
                    host(flow.1)
                ),
                TABLE_II,
                Rule::near(S2_MEANS[i], 0.05),
            )
            .shown(2, " Gbit/s"),
        );
    }
    claims
        .claim(
            Claim::new(
                "s2cc-drop",
                "CC on: the mean's drop from CC off",
                TABLE_II,
                Rule::Near {
                    value: 3.54,
                    tolerance: Tolerance::Absolute(1.75),
                },
            )
            .shown(2, " %")
            .stated("3.5 % (10.43 -> 10.06 Gbit/s)"),
        )
        .claim(
            Claim::new(
                "s2cc-sd",
                format!("CC on: standard deviation of the {window} µs samples (all flows)"),
                TABLE_II,
                Rule::near(1.770445, 0.25),
            )
            .shown(3, " Gbit/s"),
        )
        .claim(
            Claim::new(
                "s2cc-sd-ratio",
                "standard deviation with CC on over CC off",
                TABLE_II,
                Rule::Ratio {
                    value: 1770.445 / 42.02744,
                    tolerance: 0.25,
                    floor: sample_quantum(window),
                },
            )
            .shown(3, " Gbit/s")
            .stated("42x (1.770 / 0.042 Gbit/s)"),
        )
        .claim(
            Claim::new(
                "s2cc-min",
                "CC on: the lowest sample (all flows)",
                TABLE_II,
                Rule::near(8.487411, 0.1),
            )
            .shown(2, " Gbit/s"),
        )
        .claim(
            Claim::new(
                "s2cc-max",
                "CC on: the highest sample (all flows)",
                TABLE_II,
                Rule::near(13.90236, 0.1),
            )
            .shown(2, " Gbit/s"),
        )
        .claim(
            Claim::new(
                "s2cc-fairness",
                "CC on: the three flows' means, max / min - 1",
                TABLE_II,
                Rule::Zero {
                    within: 0.05,
                    failing: 0.25,
                },
            )
            .shown(3, "")
            .stated("fair (10.07, 10.12, 9.99: 0.014)"),
        )
        .not_compared(
            TABLE_II,
            "CC on: each flow's standard deviation, least and greatest sample",
            "1.774, 1.744, 1.793; 8.50, 8.49, 8.50; 13.21, 13.21, 13.90 Gbit/s",
            "compared pooled (the column All): the three flows are alike in the paper and in ours",
        );
    Ok(claims)
}

pub(super) fn s2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut found = Findings::default();
    let reports = run_scenarios(ctx, jobs, &mut found.files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let on = Phases::new(report(&reports, "cc-on")?, grid)?;
    let flows: Vec<(u32, u32)> = SCENARIO_2.flows.iter().map(|&(s, d, _)| (s, d)).collect();
    let means: Vec<f64> = flows.iter().map(|&f| on.gbps(f, 2)).collect();
    for (i, &mean) in means.iter().enumerate() {
        found.set(format!("s2cc-f{}", i + 1), Ours::Value(mean));
    }
    let mean = |p: &Phases| flows.iter().map(|&f| p.gbps(f, 2)).sum::<f64>() / 3.0;
    found.set(
        "s2cc-drop",
        Ours::Value(100.0 * (1.0 - mean(&on) / mean(&off))),
    );
    // The samples of the three flows pooled, as Table II's column All.
    let pooled = |p: &Phases| -> Vec<f64> { flows.iter().flat_map(|&f| p.samples(f, 2)).collect() };
    let (sd_off, sd_on) = (sd(&pooled(&off)), sd(&pooled(&on)));
    found.set("s2cc-sd", Ours::Value(sd_on));
    found.set(
        "s2cc-sd-ratio",
        Ours::Ratio {
            num: sd_on,
            den: sd_off,
        },
    );
    let on_samples = pooled(&on);
    let lowest = on_samples.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = on_samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    found.set("s2cc-min", Ours::Value(lowest));
    found.set("s2cc-max", Ours::Value(highest));
    let (lo, hi) = means.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| {
        (lo.min(x), hi.max(x))
    });
    found.set("s2cc-fairness", Ours::Value(hi / lo - 1.0));
    Ok(found)
}
