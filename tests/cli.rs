//! The `simdx` binary end to end: exit codes, `info --json`, `gen`/`convert` round trips, `run` with
//! validation, JSON stats and per-vertex output.

use std::process::{Command, Output};

fn simdx(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simdx")).args(args).output().expect("the simdx binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["info", "convert", "gen", "run"] {
        let o = simdx(&[sub, "--help"]);
        assert!(o.status.success(), "{sub} --help failed: {}", stderr(&o));
        assert!(stdout(&o).contains("Usage"), "{sub}");
    }
}

#[test]
fn info_json_has_the_documented_fields() {
    let o = simdx(&["info", "grid:4x3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["vertices"], 12);
    assert_eq!(v["edges"], 17);
    assert_eq!(v["directed"], false);
    assert_eq!(v["weighted"], true);
    assert_eq!(v["max_degree"], 4);
}

#[test]
fn bad_input_exits_with_code_2_and_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.el");
    std::fs::write(&bad, "0 1\n1 x\n").unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec!["info".into(), bad.display().to_string()],
        vec!["info".into(), dir.path().join("missing.mtx").display().to_string()],
        vec!["info".into(), dir.path().display().to_string()],
        vec!["info".into(), "kron:99".into()],
        vec!["info".into(), "grid:0x5".into()],
        vec!["run".into(), "bfs".into(), "grid:3x3".into(), "--source".into(), "9".into()],
        vec!["run".into(), "nosuch".into(), "grid:3x3".into()],
        vec!["convert".into(), "grid:2x2".into(), dir.path().join("x.unknown").display().to_string()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = simdx(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty() && !stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    let o = simdx(&["info", &bad.display().to_string()]);
    assert!(stderr(&o).contains("bad.el:2"), "{}", stderr(&o));
}

#[test]
fn gen_and_convert_round_trip_through_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let sxg = dir.path().join("g.sxg");
    let o = simdx(&["gen", "kron", "8", "w", "-o", &sxg.display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = stdout(&simdx(&["info", &sxg.display().to_string(), "--json"]));
    let reference: serde_json::Value = serde_json::from_str(&reference).unwrap();
    for ext in ["mtx", "wel", "gr"] {
        let out = dir.path().join(format!("g.{ext}"));
        let o = simdx(&["convert", &sxg.display().to_string(), &out.display().to_string()]);
        assert!(o.status.success(), "{ext}: {}", stderr(&o));
        let back = stdout(&simdx(&["info", &out.display().to_string(), "--undirected", "--json"]));
        let back: serde_json::Value = serde_json::from_str(&back).unwrap();
        for key in ["edges", "max_degree", "weighted"] {
            assert_eq!(back[key], reference[key], "{ext}: {key}");
        }
    }
}

#[test]
fn run_validates_and_writes_json_and_output() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("stats.json");
    let out = dir.path().join("levels.txt");
    for algo in ["bfs", "sssp", "pr", "pagerank"] {
        let o = simdx(&[
            "run",
            algo,
            "grid:6x5",
            "--source",
            "0",
            "--validate",
            "--trace",
            "--trials",
            "2",
            "--json",
            &json.display().to_string(),
            "--output",
            &out.display().to_string(),
        ]);
        assert!(o.status.success(), "{algo}: {}", stderr(&o));
        assert!(stdout(&o).contains("validation: passed"), "{algo}: {}", stdout(&o));
        let stats: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        for key in ["algorithm", "backend", "vertices", "edges", "iterations", "time_ms", "gteps", "validated"] {
            assert!(!stats[key].is_null(), "{algo}: missing {key}");
        }
        assert_eq!(stats["validated"], true);
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 30);
    }
    let o = simdx(&["run", "bfs", "grid:6x5", "--source", "0", "--output", &out.display().to_string()]);
    assert!(o.status.success());
    let lines = std::fs::read_to_string(&out).unwrap();
    assert!(lines.starts_with("0 0\n1 1\n"), "{lines}");
    assert!(lines.contains("\n29 9\n") || lines.ends_with("29 9\n"), "{lines}");
}

#[test]
fn unreachable_vertices_print_as_inf() {
    let dir = tempfile::tempdir().unwrap();
    let el = dir.path().join("two.el");
    std::fs::write(&el, "0 1\n2 3\n").unwrap();
    let out = dir.path().join("d.txt");
    let o = simdx(&["run", "sssp", &el.display().to_string(), "--source", "0", "--output", &out.display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "0 0\n1 1\n2 inf\n3 inf\n");
}

#[test]
fn bench_runs_every_combination_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let o = simdx(&[
        "bench",
        "--algorithms",
        "bfs,sssp",
        "--graphs",
        "kron:8:w,grid:8x8",
        "--filters",
        "online,ballot",
        "--backends",
        "cpu",
        "--bandwidth",
        "10",
        "--trials",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1 + 2 * 2 * 2, "{out}");
    let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for r in rows {
        assert_eq!(r["trial_ms"].as_array().unwrap().len(), 2);
        assert!(r["median_ms"].as_f64().unwrap() > 0.0 && r["gteps"].as_f64().unwrap() > 0.0);
        assert!(r["over_floor"].as_f64().unwrap() > 0.0, "{r}");
    }
    let bad = simdx(&["bench", "--algorithms", "nope", "--graphs", "grid:4x4"]);
    assert_eq!(bad.status.code(), Some(2));
}
