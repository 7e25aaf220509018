//! The progress bar of a batch of runs (drawn only when standard error is a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `points` runs.
pub fn points_bar(points: u64) -> ProgressBar {
    let bar = ProgressBar::new(points);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:40}] {pos}/{len} points ({eta}) {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}
