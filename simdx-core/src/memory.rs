//! Memory estimates before large allocations: what a graph of a given size takes to build and hold,
//! and what the machine has available, so that a reader or generator can refuse with one sentence
//! instead of aborting on a failed allocation. A process-wide limit ([`set_limit`], the CLI's
//! `--memory-limit`) caps what counts as available.
//!
//! Files count as well as what is built from them: a reader maps a file and reads every page of it,
//! which the process then holds, so [`check_text_file`] counts a text file's bytes with the graph its
//! lines will make (estimated from its size before parsing), and [`check_mapped_file`] a `.sxg` file's
//! bytes before it is mapped. Against what the system has available only the graph counts (mapped
//! pages of a file can be dropped and read again).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::GraphError;

/// The limit set by [`set_limit`]; 0: none.
static LIMIT: AtomicU64 = AtomicU64::new(0);

/// Caps the memory that [`check`] allows at `bytes` for the rest of the process (`None`: only what the
/// system has available).
pub fn set_limit(bytes: Option<u64>) {
    LIMIT.store(bytes.unwrap_or(0), Ordering::Relaxed);
}

/// The limit set by [`set_limit`], if any.
pub fn limit() -> Option<u64> {
    Some(LIMIT.load(Ordering::Relaxed)).filter(|&l| l > 0)
}

/// A size such as `512M`, `8G`, `1.5GiB` or `1000000` (bytes; K, M, G, T are powers of 1024, with an
/// optional `iB` or `B`).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let scale: u64 = match unit.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("{text:?} is not a size: use a number of bytes with K, M, G or T (e.g. 512M, 8G)")),
    };
    match number.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x * (scale as f64) < u64::MAX as f64 => Ok((x * scale as f64) as u64),
        _ => Err(format!("{text:?} is not a size: use a positive number of bytes with K, M, G or T (e.g. 512M, 8G)")),
    }
}

/// Bytes to build and hold a graph of `n` vertices and `m` edges (`directed`: one CSR each way):
/// offsets and targets of the CSRs plus the edge list they are built from, with 4-byte weights.
pub fn graph_bytes(n: u64, m: u64, directed: bool) -> u64 {
    let csrs = if directed { 2 } else { 1 };
    let arcs = if directed { m } else { 2 * m };
    let csr = csrs * (n.saturating_add(1)).saturating_mul(8) + arcs.saturating_mul(8);
    let edge_list = m.saturating_mul(12);
    csr.saturating_add(edge_list)
}

/// The bytes of a text file sampled to estimate how many lines the whole file has.
const SAMPLE_BYTES: usize = 1 << 20;

/// About how many lines (edges, give or take a header and comments) a text file of `bytes` has,
/// from the lines of its first MiB.
pub fn estimated_lines(bytes: &[u8]) -> u64 {
    let sample = &bytes[..bytes.len().min(SAMPLE_BYTES)];
    let mut lines = memchr::memchr_iter(b'\n', sample).count() as u64;
    if sample.len() == bytes.len() {
        return lines + u64::from(!bytes.ends_with(b"\n") && !bytes.is_empty());
    }
    lines = lines.max(1);
    ((bytes.len() as u128 * lines as u128) / sample.len() as u128) as u64
}

/// Refuses, before it is parsed, a text graph file (`bytes`, mapped or read) whose bytes and the graph
/// of about as many edges as it has lines ([`estimated_lines`]; `directed`: one CSR each way) exceed
/// the limit ([`set_limit`]), or whose graph exceeds the memory available. Names `path`.
pub fn check_text_file(path: &Path, bytes: &[u8], directed: bool) -> Result<(), GraphError> {
    let edges = estimated_lines(bytes);
    let graph = graph_bytes(0, edges, directed);
    let file = bytes.len() as u64;
    let what = format!("reading about {edges} edges from {} of text", show_bytes(file));
    verdict(file.saturating_add(graph), &what, limit(), None)
        .and_then(|()| verdict(graph, &what, None, available_bytes()))
        .map_err(|message| GraphError::file(path, message))
}

/// Refuses, before it is mapped, a binary graph file larger than the limit ([`set_limit`]): every
/// byte of it is read (its checksum) and then held. A file that cannot be looked at is left to the
/// reader to report.
pub fn check_mapped_file(path: &Path) -> Result<(), GraphError> {
    let Ok(meta) = std::fs::metadata(path) else { return Ok(()) };
    verdict(meta.len(), "mapping the whole file", limit(), None).map_err(|message| GraphError::file(path, message))
}

/// The memory the system says is available (Linux `MemAvailable`), if it says.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `Err` with a sentence when `needed` bytes exceed what is available or the limit ([`set_limit`]);
/// `what` says what they are for.
pub fn check(needed: u64, what: &str) -> Result<(), String> {
    verdict(needed, what, limit(), available_bytes())
}

/// [`check`] for `more` bytes on top of `held` bytes already in use for the same job (a run's state
/// beside its graph): the limit caps both together, what is available must hold `more`.
pub fn check_more(held: u64, more: u64, what: &str) -> Result<(), String> {
    more_verdict(held, more, what, limit(), available_bytes())
}

/// [`check_more`] against a given limit and available memory.
fn more_verdict(held: u64, more: u64, what: &str, limit: Option<u64>, available: Option<u64>) -> Result<(), String> {
    let total = held.saturating_add(more);
    match (limit, available) {
        (Some(limit), _) if total > limit => {
            let with = if held > 0 { format!(", {} with the graph,", show_bytes(total)) } else { String::new() };
            Err(format!(
                "{what} needs about {} of memory{with} over the limit of {} (--memory-limit)",
                show_bytes(more),
                show_bytes(limit)
            ))
        }
        (_, Some(free)) if more > free => {
            Err(format!("{what} needs about {} of memory but {} are available", show_bytes(more), show_bytes(free)))
        }
        _ => Ok(()),
    }
}

/// [`check`] against a given limit and available memory.
fn verdict(needed: u64, what: &str, limit: Option<u64>, available: Option<u64>) -> Result<(), String> {
    match (limit, available) {
        (Some(limit), free) if needed > limit && free.map_or(true, |free| limit <= free) => Err(format!(
            "{what} needs about {} of memory, over the limit of {} (--memory-limit)",
            show_bytes(needed),
            show_bytes(limit)
        )),
        (_, Some(free)) if needed > free => {
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

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("8 GiB"), Ok(8 << 30));
        assert_eq!(parse_bytes("1.5g"), Ok(3 << 29));
        assert_eq!(parse_bytes("2KB"), Ok(2048));
        for bad in ["", "-1", "0", "12X", "G", "1e400", "nan"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_limit_caps_what_check_allows() {
        let (mib, gib) = (1 << 20, 1 << 30);
        assert_eq!(
            verdict(2 * mib, "the test graph", Some(mib), Some(gib)).unwrap_err(),
            "the test graph needs about 2.0 MiB of memory, over the limit of 1.0 MiB (--memory-limit)"
        );
        assert_eq!(
            verdict(2 * gib, "the test graph", Some(4 * gib), Some(gib)).unwrap_err(),
            "the test graph needs about 2.0 GiB of memory but 1.0 GiB are available"
        );
        assert!(verdict(2 * mib, "the test graph", Some(mib), None).is_err());
        assert!(verdict(mib, "the test graph", Some(mib), Some(gib)).is_ok());
        assert!(verdict(mib, "the test graph", None, None).is_ok());
    }

    #[test]
    fn lines_are_estimated_from_the_first_mebibyte() {
        assert_eq!(estimated_lines(b""), 0);
        assert_eq!(estimated_lines(b"0 1\n1 2"), 2);
        assert_eq!(estimated_lines(b"0 1\n1 2\n"), 2);
        let text: Vec<u8> = b"12 34\n".iter().copied().cycle().take(6 * 1_000_000).collect();
        assert!(estimated_lines(&text).abs_diff(1_000_000) < 10, "{}", estimated_lines(&text));
        let one_line = vec![b'7'; 3 << 20];
        assert_eq!(estimated_lines(&one_line), 3, "no newline in the sample: as if it ended one");
    }

    #[test]
    fn the_limit_caps_what_is_held_and_what_comes() {
        let (mib, gib) = (1 << 20, 1 << 30);
        assert_eq!(
            more_verdict(3 * mib, 2 * mib, "the run", Some(4 * mib), Some(gib)).unwrap_err(),
            "the run needs about 2.0 MiB of memory, 5.0 MiB with the graph, over the limit of 4.0 MiB (--memory-limit)"
        );
        assert_eq!(
            more_verdict(0, 2 * mib, "the run", Some(mib), Some(gib)).unwrap_err(),
            "the run needs about 2.0 MiB of memory over the limit of 1.0 MiB (--memory-limit)"
        );
        assert!(more_verdict(2 * mib, 2 * mib, "the run", Some(4 * mib), Some(gib)).is_ok());
        assert!(more_verdict(0, 2 * gib, "the run", None, Some(gib)).is_err());
        assert!(more_verdict(gib, gib, "the run", None, None).is_ok());
    }
}
