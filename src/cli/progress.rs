//! Progress display for slow steps (loading, generating, converting): a spinner with the step's name
//! and elapsed time on stderr, drawn only when stderr is a terminal.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Runs `work`, showing `message` with a spinner while it runs; returns its result and duration.
pub fn with_spinner<T>(message: String, work: impl FnOnce() -> T) -> (T, Duration) {
    // ProgressBar draws to stderr and hides itself when stderr is not a terminal.
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(120));
    let start = Instant::now();
    let result = work();
    let elapsed = start.elapsed();
    bar.finish_and_clear();
    (result, elapsed)
}
