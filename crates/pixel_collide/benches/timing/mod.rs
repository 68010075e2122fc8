//! How the word benches (`peer`, `words`, `layout`) time a call, so that their figures
//! are measured alike and README can compare them: batches of calls of about
//! [`BATCH_SECONDS`], one batch per row per round, round after round, and a row's time the
//! third-best batch, per call.

/// How long one batch of calls takes: short enough that on a busy machine many batches
/// run without being preempted, which is what the best of them measures.
pub const BATCH_SECONDS: f64 = 0.001;

/// The number of calls that makes a batch of about [`BATCH_SECONDS`], and the seconds a
/// call took while finding it. `run(n)` makes `n` calls and returns the seconds they took.
pub fn calibrate(mut run: impl FnMut(u64) -> f64) -> (u64, f64) {
    let mut n: u64 = 1;
    loop {
        let seconds = run(n);
        // Past a fifth of a batch, the clock's resolution and the first call's cold caches
        // no longer decide the count; a call slower than that stays one call a batch.
        if seconds >= BATCH_SECONDS / 5.0 || n >= 1 << 40 {
            let calls = ((n as f64 * BATCH_SECONDS / seconds) as u64).max(1);
            return (calls, seconds / n as f64);
        }
        n *= 4;
    }
}

/// The third-best of the batches' times (the best of fewer than three). Not the best: one
/// lucky batch, a moment when the other core idled and this one clocked higher, would set
/// a time the next run does not repeat. `None` for no batches.
pub fn third_best(batches: &[f64]) -> Option<f64> {
    let mut sorted = batches.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(2.min(sorted.len().checked_sub(1)?)).copied()
}

/// The value of `--rounds`: a count of at least one round, or why not.
pub fn rounds(value: Option<&str>) -> Result<usize, String> {
    match value.map(str::parse::<usize>) {
        Some(Ok(n)) if n > 0 => Ok(n),
        Some(Ok(_)) => Err("--rounds takes a count of at least 1, not 0".to_string()),
        Some(Err(_)) => Err(format!(
            "--rounds takes a count, not {:?}",
            value.unwrap_or("")
        )),
        None => Err("--rounds takes a count".to_string()),
    }
}
