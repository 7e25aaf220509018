//! Hot-packet isolation with throttling on VOQ switches: Paper VI of Gran's thesis (J.
//! Escudero-Sahuquillo, E. G. Gran et al., "Efficient and cost-effective hybrid congestion
//! control for HPC interconnection networks" (EcoCC), submitted to IEEE TPDS; in E. G. Gran,
//! PhD thesis, University of Oslo, 2013). Five schemes on switches with a read port per output
//! and 128 KB per input: virtual output queues alone (1VL), with InfiniBand congestion
//! control (IB-ITh), with two hot-packet queues per input (HFDI), with both (EcoCC), and a
//! queue per destination (VOQnet).
//!
//! Jobs: built from `experiments/ecocc/` (`base.toml`; `traces.toml` for the trace runs) with
//! each scheme's settings and the flows of each pattern.
//!
//! - `patterns.rs`: Table 2's hot-spot patterns (who is hot, which nodes are hot spots);
//! - `synthetic.rs`: the patterns on 64, 256 and 1,024 nodes (Fig. 7, Supplement Fig. 10) and
//!   the average gains of Table 3, beside CCFIT on single-read-port switches;
//! - `traces.rs`: Fig. 8 with synthetic stand-ins for the HPCC traces, alone and beside
//!   hot spots.

mod patterns;
mod synthetic;
mod traces;

use super::isolation::{Scheme, VOQNET};
use crate::Experiment;
use crate::grid::Folder;

pub(super) static FOLDER: Folder = Folder {
    path: "experiments/ecocc",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../../experiments/ecocc/grids.toml"),
        ),
        (
            "base.toml",
            include_str!("../../../../../experiments/ecocc/base.toml"),
        ),
        (
            "traces.toml",
            include_str!("../../../../../experiments/ecocc/traces.toml"),
        ),
    ],
};

/// InfiniBand congestion control as Paper VI runs it for IB-ITh and EcoCC: each virtual
/// output queue compared on its own with HTh/LTh (4 and 2 packets, EcoCC's exact root
/// detection), CCTI_Timer and Marking_Rate "according to Paper III's analysis" (its Table I,
/// the defaults: Marking_Rate 1, CCTI_Timer 150 µs), per-destination state, BECNs on a
/// priority lane.
const THROTTLING: [&str; 6] = [
    "congestion.mechanism=\"ib_cc\"",
    "congestion.detect=\"per_voq\"",
    "congestion.threshold_blocks=128",
    "congestion.hysteresis_blocks=64",
    "congestion.cnp_vl=\"priority\"",
    "router.vcs=2",
];

/// The five techniques, weakest expected first.
pub(super) const SCHEMES: [Scheme; 5] = [
    Scheme::new("1vl", "1VL", &["fabric.queues=\"voq\""], &[]),
    Scheme::new("ith", "IB-ITh", &["fabric.queues=\"voq\""], &THROTTLING),
    Scheme::new("hfdi", "HFDI", &["fabric.queues=\"voq_hpq\""], &[]),
    Scheme::new(
        "ecocc",
        "EcoCC",
        &["fabric.queues=\"voq_hpq\""],
        &THROTTLING,
    ),
    // Paper VI gives each destination 64 packets; here, as in Paper V, 64 blocks (two
    // packets) of a 4,096-block pool: enough that no destination's packets wait behind
    // another's, which is what the bound stands for.
    Scheme::new("voqnet", "VOQnet", &VOQNET, &[]),
];

/// The experiments of Paper VI.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ecocc-fig7",
            title: "4-ary 3-, 4- and 5-trees: uniform traffic with 12.5, 25 or 37.5 % of the nodes forming 1, 4 or 6 congestion trees for 1 ms, under 1VL, IB-ITh, HFDI, EcoCC and VOQnet; ports without a free hot-packet queue",
            source: "Escudero-Sahuquillo, Gran et al., Paper VI of Gran's thesis (University of Oslo, 2013; submitted to IEEE TPDS), Fig. 7 and Supplement Fig. 10",
            folder: &FOLDER,
            jobs: synthetic::fig7_jobs,
            claims: synthetic::fig7_claims,
            run: synthetic::fig7,
        },
        Experiment {
            name: "ecocc-table3",
            title: "Average gain under pattern #2 on 64 and 256 nodes: EcoCC on VOQ switches, CCFIT on single-read-port switches, each over 1VL, IB-ITh, HFDI and VOQnet",
            source: "Escudero-Sahuquillo, Gran et al., Paper VI of Gran's thesis (University of Oslo, 2013; submitted to IEEE TPDS), Table 3 and Supplement Fig. 11",
            folder: &FOLDER,
            jobs: synthetic::table3_jobs,
            claims: synthetic::table3_claims,
            run: synthetic::table3,
        },
        Experiment {
            name: "ecocc-traces",
            title: "256 nodes: execution time of FFT, natural-ring and transpose applications (synthetic stand-ins for HPCC traces) alone and beside hot spots, under 1VL, IB-ITh, HFDI, EcoCC and VOQnet",
            source: "Escudero-Sahuquillo, Gran et al., Paper VI of Gran's thesis (University of Oslo, 2013; submitted to IEEE TPDS), Fig. 8",
            folder: &FOLDER,
            jobs: traces::jobs,
            claims: traces::claims,
            run: traces::run,
        },
    ]
}
