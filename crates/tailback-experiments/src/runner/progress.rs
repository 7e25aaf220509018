//! Progress of a batch of runs: a bar when standard error is a terminal, plain lines now and
//! then when it is not.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// Plain progress lines on standard error when it is not a terminal (a batch job's log, where
/// the bar draws nothing): one at most every minute, or every `TAILBACK_LOG_SECONDS` seconds.
pub struct LogLines {
    /// `None` on a terminal.
    every: Option<Duration>,
    start: Instant,
    last: Mutex<Instant>,
}

impl LogLines {
    pub fn new() -> LogLines {
        let seconds = std::env::var("TAILBACK_LOG_SECONDS")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or(60.0);
        let now = Instant::now();
        LogLines {
            every: (!std::io::stderr().is_terminal()).then(|| Duration::from_secs_f64(seconds)),
            start: now,
            last: Mutex::new(now),
        }
    }

    /// When the interval has passed since the last line, prints `line()` with the time taken so
    /// far and, from `done` (the fraction finished), the time left at that pace.
    pub fn tick(&self, done: f64, line: impl FnOnce() -> String) {
        let Some(every) = self.every else {
            return;
        };
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        let now = Instant::now();
        if now.duration_since(*last) < every {
            return;
        }
        *last = now;
        let elapsed = now.duration_since(self.start).as_secs_f64();
        let left = if done > 0.0 {
            format!(", about {} left", clock(elapsed * (1.0 - done) / done))
        } else {
            String::new()
        };
        eprintln!("{} after {}{left}", line(), clock(elapsed));
    }
}

impl Default for LogLines {
    fn default() -> Self {
        LogLines::new()
    }
}

/// Seconds as `1h02m03s`, `2m03s` or `3s`.
fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}
