//! The domain of every numeric option, checked while the command line is parsed: each parser takes
//! the text as typed (negative numbers included, so that `--source -1` is answered about vertex ids,
//! not about clap's `--` syntax) and refuses what is outside the option's domain with one sentence.

/// A vertex id: a whole number from 0 (whether it exists is checked against the graph later).
pub fn vertex_id(text: &str) -> Result<u32, String> {
    whole::<u32>(text, 0, "a vertex id")
}

/// A count that must be at least 1 (trials, iterations, samples).
pub fn at_least_one(text: &str) -> Result<u32, String> {
    whole::<u32>(text, 1, "a count")
}

/// A whole number from 0 (an iteration cap, a k).
pub fn non_negative(text: &str) -> Result<u32, String> {
    whole::<u32>(text, 0, "a whole number")
}

/// A generator seed: a whole number from 0.
pub fn seed(text: &str) -> Result<u64, String> {
    whole::<u64>(text, 0, "a seed")
}

/// A bucket width: a whole number from 1.
pub fn width(text: &str) -> Result<u64, String> {
    whole::<u64>(text, 1, "a bucket width")
}

/// A share of all arcs, from 0 to 1.
pub fn share(text: &str) -> Result<f64, String> {
    real(text, "a share of all arcs", |x| (0.0..=1.0).contains(&x), "from 0 to 1")
}

/// A damping factor, from 0 up to but not including 1.
pub fn damping(text: &str) -> Result<f64, String> {
    real(text, "a damping factor", |x| (0.0..1.0).contains(&x), "from 0 up to (not including) 1")
}

/// A convergence tolerance (an L1 change of ranks that sum to 1), from 0 up to but not including 1.
pub fn tolerance(text: &str) -> Result<f64, String> {
    real(text, "a tolerance", |x| (0.0..1.0).contains(&x), "from 0 up to (not including) 1")
}

/// Louvain's resolution: a finite number of at least 0.
pub fn resolution(text: &str) -> Result<f64, String> {
    real(text, "a resolution", |x| x >= 0.0 && x.is_finite(), "of at least 0 and finite")
}

/// A bandwidth in GB/s: a finite number above 0.
pub fn bandwidth(text: &str) -> Result<f64, String> {
    real(text, "a bandwidth", |x| x > 0.0 && x.is_finite(), "of GB/s above 0 and finite")
}

fn whole<T: TryFrom<u64> + std::str::FromStr>(text: &str, least: u64, what: &str) -> Result<T, String> {
    let max = match std::mem::size_of::<T>() {
        4 => u64::from(u32::MAX),
        _ => u64::MAX,
    };
    let domain = format!("give a whole number from {least} to {max}");
    match text.trim().parse::<i128>() {
        Ok(x) if x >= i128::from(least) && x <= i128::from(max) => {
            T::try_from(x as u64).map_err(|_| format!("'{text}' is out of range: {domain}"))
        }
        Ok(_) => Err(format!("'{text}' is out of range for {what}: {domain}")),
        Err(_) => Err(format!("'{text}' is not {what}: {domain}")),
    }
}

fn real(text: &str, what: &str, inside: impl Fn(f64) -> bool, domain: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if inside(x) => Ok(x),
        Ok(_) => Err(format!("'{text}' is outside the domain of {what}: give a number {domain}")),
        Err(_) => Err(format!("'{text}' is not {what}: give a number {domain}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_domain_holds_its_ends_and_refuses_what_is_outside() {
        assert_eq!(vertex_id("0"), Ok(0));
        assert_eq!(vertex_id("4294967295"), Ok(u32::MAX));
        for bad in ["-1", "4294967296", "x", "", "1.5"] {
            assert!(vertex_id(bad).is_err(), "{bad}");
        }
        assert!(at_least_one("0").is_err() && at_least_one("1").is_ok());
        assert!(width("0").is_err() && width("18446744073709551615").is_ok());
        assert!(share("1").is_ok() && share("1.01").is_err() && share("nan").is_err() && share("-0.1").is_err());
        assert!(damping("0.99").is_ok() && damping("1").is_err() && damping("inf").is_err());
        assert!(tolerance("0").is_ok() && tolerance("inf").is_err() && tolerance("NaN").is_err());
        assert!(tolerance("-1").is_err() && tolerance("1").is_err());
        assert!(bandwidth("0").is_err() && bandwidth("nan").is_err() && bandwidth("-1").is_err());
        assert!(bandwidth("3350").is_ok() && bandwidth("inf").is_err());
    }
}
