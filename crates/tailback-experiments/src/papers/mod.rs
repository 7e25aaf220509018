//! One module per paper: its experiments, the analysis of their runs and their plots.

mod dragonfly;
mod ecocc;
mod entropy;
mod forests;
mod infiniband;
mod infiniband_cc;
mod isolation;
mod nifdy;
mod open_questions;
mod predictor;
mod self_tuned;

use crate::Experiment;

/// Every experiment, in catalogue order.
pub fn all() -> Vec<Experiment> {
    let mut all = self_tuned::experiments();
    all.extend(entropy::experiments());
    all.extend(nifdy::experiments());
    all.extend(predictor::experiments());
    all.extend(infiniband::experiments());
    all.extend(infiniband_cc::experiments());
    all.extend(forests::experiments());
    all.extend(isolation::experiments());
    all.extend(ecocc::experiments());
    all.extend(dragonfly::experiments());
    all.extend(open_questions::experiments());
    all
}
