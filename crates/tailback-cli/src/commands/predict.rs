//! `tailback predict`: the analytical latency prediction of a configuration's workload.

use std::time::Instant;

use serde::Serialize;
use tailback_core::predict::{Channel, LinkLoad, PredictOptions, Prediction};
use tailback_core::topology::Topology;

use crate::cli::{Format, PredictArgs};
use crate::describe;
use crate::error::{CliError, CliResult};
use crate::input::load_config;

/// Channels listed in the table, most loaded first.
const LISTED: usize = 8;

/// The JSON output: the prediction and how long it took.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    prediction: &'a Prediction,
    /// Why the latency may be off: the busiest channel past the validated utilisation.
    #[serde(skip_serializing_if = "Option::is_none")]
    caution: Option<String>,
    /// Wall-clock time of the prediction, seconds.
    seconds: f64,
}

pub fn run(args: PredictArgs) -> CliResult {
    let cfg = load_config(args.config.as_deref(), &args.source)?;
    let started = Instant::now();
    let options = PredictOptions::new(!args.no_correction)
        .interval(args.interval)
        .channels(args.channels);
    // Every way a prediction fails is about the user's input: exit status 2.
    let prediction = tailback_core::predict::predict(&cfg, &options)
        .map_err(|e| CliError::Input(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&Output {
                prediction: &prediction,
                caution: caution(&prediction),
                seconds,
            })
            .map_err(anyhow::Error::from)?
        ),
        Format::Table => {
            let topology = Topology::from_config(&cfg);
            println!("{}", describe::network(&cfg));
            println!("{}", describe::traffic(&cfg));
            print!("{}", table(&prediction, &topology, seconds));
        }
    }
    Ok(())
}

/// Utilisation of the busiest channel up to which the model is validated: half the
/// channel-load bound, where it is within 4 % of the simulator on average (docs/validation.md).
const VALIDATED_RHO: f64 = 0.5;

/// The warning for a prediction past the range where the model is validated.
fn caution(p: &Prediction) -> Option<String> {
    (p.max_link_rho > VALIDATED_RHO && p.latency.mean.is_some()).then(|| {
        format!(
            "the busiest channel is past utilisation {VALIDATED_RHO}, beyond which the model \
             underestimates latency, increasingly towards saturation, and cannot see saturation \
             caused by flow control: read the latency as a lower bound"
        )
    })
}

fn table(p: &Prediction, topology: &Topology, seconds: f64) -> String {
    let l = &p.latency;
    let mut rows = vec![(
        "latency",
        match l.mean {
            Some(mean) => format!(
                "mean {mean:.1} cycles (waiting {:.1}, zero-load {:.1})",
                l.waiting.unwrap_or(0.0),
                l.zero_load
            ),
            None => format!(
                "no finite prediction: {} channel-interval(s) at or above utilisation 1 \
                 (saturated; listed below)",
                p.saturated.len()
            ),
        },
    )];
    rows.push((
        "max utilisation",
        match p.short_tail_cycles {
            Some(cycles) => format!(
                "{:.3} (the last interval, {cycles} cycles, is left out: too short to judge)",
                p.max_link_rho
            ),
            None => format!("{:.3}", p.max_link_rho),
        },
    ));
    if let Some(caution) = caution(p) {
        rows.push(("caution", caution));
    }
    let list = |loads: &[LinkLoad]| {
        let mut text: Vec<String> = loads
            .iter()
            .take(LISTED)
            .map(|l| {
                format!(
                    "{} ({}rho {:.3}, {:.4} packets/cycle)",
                    channel_name(topology, l.channel),
                    if p.intervals.len() > 1 {
                        format!("interval {}, ", l.interval)
                    } else {
                        String::new()
                    },
                    l.rho,
                    l.lambda
                )
            })
            .collect();
        if loads.len() > LISTED {
            text.push(format!("and {} more", loads.len() - LISTED));
        }
        text.join("; ")
    };
    if !p.saturated.is_empty() {
        rows.push(("saturated", list(&p.saturated)));
    }
    if !p.busy.is_empty() {
        rows.push(("rho above 0.9", list(&p.busy)));
    }
    rows.push((
        "model",
        format!(
            "M/G/1 per channel{}, {} interval(s)",
            if p.correction {
                " with the incoming-link correction"
            } else {
                ", no incoming-link correction"
            },
            p.intervals.len()
        ),
    ));
    rows.push(("predicted in", format!("{:.1} ms", seconds * 1e3)));
    let mut text: String = rows
        .iter()
        .map(|(label, value)| format!("  {label:<17}{value}\n"))
        .collect();
    for (i, interval) in p.intervals.iter().enumerate() {
        if interval.channels.is_empty() {
            continue;
        }
        text.push_str(&format!(
            "\n  interval {i} (cycles {} to {}): lambda (packets/cycle), rho, E[S^2], wait\n",
            interval.start,
            interval.start + interval.cycles
        ));
        let mut channels = interval.channels.clone();
        channels.sort_by(|a, b| b.rho.total_cmp(&a.rho));
        for c in channels {
            text.push_str(&format!(
                "    {:<44}{:>10.4}{:>8.3}{:>10.1}{:>10}\n",
                channel_name(topology, c.channel),
                c.lambda,
                c.rho,
                c.service_square,
                c.wait.map_or("-".to_string(), |w| format!("{w:.2}"))
            ));
        }
    }
    text
}

fn channel_name(topology: &Topology, channel: Channel) -> String {
    match channel {
        Channel::Injection(node) => format!("the injection channel of node {node}"),
        Channel::Output(port) => {
            describe::port_name(topology, tailback_core::ids::PortId::new(port as usize))
        }
    }
}
