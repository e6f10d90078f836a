//! Memory estimates before large allocations: what a graph of a given size takes to build and hold,
//! and what the machine has available, so that a reader or generator can refuse with one sentence
//! instead of aborting on a failed allocation.

/// Bytes to build and hold a graph of `n` vertices and `m` edges (`directed`: one CSR each way):
/// offsets and targets of the CSRs plus the edge list they are built from, with 4-byte weights.
pub fn graph_bytes(n: u64, m: u64, directed: bool) -> u64 {
    let csrs = if directed { 2 } else { 1 };
    let arcs = if directed { m } else { 2 * m };
    let csr = csrs * (n.saturating_add(1)).saturating_mul(8) + arcs.saturating_mul(8);
    let edge_list = m.saturating_mul(12);
    csr.saturating_add(edge_list)
}

/// The memory the system says is available (Linux `MemAvailable`), if it says.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `Err` with a sentence when `needed` bytes exceed what is available; `what` says what they are for.
pub fn check(needed: u64, what: &str) -> Result<(), String> {
    match available_bytes() {
        Some(free) if needed > free => {
            Err(format!("{what} needs about {} of memory but {} are available", show_bytes(needed), show_bytes(free)))
        }
        _ => Ok(()),
    }
}

/// Bytes in the largest binary unit that keeps a number of at least 1 (`32.0 GiB`).
pub fn show_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_and_units() {
        assert_eq!(show_bytes(999), "999 B");
        assert_eq!(show_bytes(34_359_738_360), "32.0 GiB");
        assert!(graph_bytes(u32::MAX as u64, 2, false) > 34_000_000_000);
        assert!(check(u64::MAX, "a test").is_err() || available_bytes().is_none());
        assert!(check(1, "a test").is_ok());
    }
}
