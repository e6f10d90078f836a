//! Each algorithm in simdx-algos, and the custom-algorithm example, stays within 50 lines of code
//! (blank and comment lines aside), the size the ACC model promises; counted as scripts/loc.sh does.

fn lines_of_code(path: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(str::trim_start).filter(|l| !l.is_empty() && !l.starts_with("//")).count()
}

#[test]
fn every_algorithm_fits_in_50_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("simdx-algos/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs") && !p.ends_with("lib.rs"))
        .collect();
    files.push(root.join("examples/custom_algorithm.rs"));
    assert!(files.len() >= 4, "{files:?}");
    for f in files {
        let n = lines_of_code(&f);
        assert!(n <= 50, "{} has {n} lines of code; an algorithm should fit in 50", f.display());
    }
}
