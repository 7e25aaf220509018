//! The progress bar of a single run on standard error (drawn only when it is a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over the warm-up and measurement cycles of one run.
pub fn cycles_bar(total_cycles: u64) -> ProgressBar {
    let bar = ProgressBar::new(total_cycles);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {pos}/{len} cycles ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message("simulating");
    bar
}
