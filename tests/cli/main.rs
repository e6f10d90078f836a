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

/// A file in a fresh temporary folder holding `text`.
fn text_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `<id> <value>` lines as `--output` writes them, parsed.
fn read_output(path: &str) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let value = l.split_whitespace().nth(1).unwrap();
            if value == "inf" {
                f64::INFINITY
            } else {
                value.parse().unwrap()
            }
        })
        .collect()
}

#[test]
fn users_data_reaches_spmv_ppr_bp_mlp_and_multi_source_runs() {
    let dir = tempfile::tempdir().unwrap();
    // A directed 4-cycle with a chord, weights 1..5: y[v] = sum over in-arcs u -> v of w * x[u].
    let graph = text_file(&dir, "g.wel", "0 1 1\n1 2 2\n2 3 3\n3 0 4\n0 2 5\n");
    let x = text_file(&dir, "x.txt", "1\n10\n100\n1000\n");
    let y = dir.path().join("y.txt").to_str().unwrap().to_string();
    let o = simdx(&["run", "spmv", &graph, "--input", &x, "--validate", "--output", &y, "--backend", "cpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_output(&y), vec![4000.0, 1.0, 5.0 + 20.0, 300.0]);
    // The same x as `<id> <value>` lines, in any order.
    let pairs = text_file(&dir, "pairs.txt", "# x\n3 1000\n0 1\n2 100\n1 10\n");
    let o = simdx(&["run", "spmv", &graph, "--input", &pairs, "--output", &y]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_output(&y), vec![4000.0, 1.0, 25.0, 300.0]);
    for args in [
        vec!["run", "ppr", "kron:8", "--sources", "3,7", "--validate"],
        vec!["run", "bfs", "kron:8", "--sources", "3,7,9", "--validate"],
        vec!["run", "sssp", "grid:16x16", "--sources", "0,255", "--validate"],
        vec!["run", "bp", "kron:8:w", "--validate"],
        vec!["run", "mlp", "mlp:8,4,2", "--bias", "-0.25", "--validate"],
    ] {
        let o = simdx(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).contains("validation: passed"), "{args:?}: {}", stdout(&o));
    }
    // Sources from a file; distances to the nearer of 0 and 3 on a path 0-1-2-3.
    let path = text_file(&dir, "path.el", "0 1\n1 2\n2 3\n");
    let sources = text_file(&dir, "s.txt", "0\n3\n");
    let out = dir.path().join("levels.txt").to_str().unwrap().to_string();
    let o = simdx(&["run", "bfs", &path, "--undirected", "--sources", &sources, "--validate", "--output", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_output(&out), vec![0.0, 1.0, 1.0, 0.0]);
    // Priors and per-neuron inputs and biases from files.
    let priors = text_file(&dir, "p.txt", "1\n0\n2\n0.5\n");
    let o = simdx(&["run", "bp", &graph, "--priors", &priors, "--validate"]);
    assert!(o.status.success() && stdout(&o).contains("validation: passed"), "{}", stderr(&o));
    let net = text_file(&dir, "net.wel", "0 2 1\n1 2 2\n");
    let input = text_file(&dir, "in.txt", "0 -1\n1 0.5\n");
    let bias = text_file(&dir, "b.txt", "0\n0\n0.25\n");
    let out = dir.path().join("mlp.txt").to_str().unwrap().to_string();
    let o = simdx(&["run", "mlp", &net, "--input", &input, "--bias", &bias, "--validate", "--output", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let values = read_output(&out);
    assert_eq!(values[..2], [-1.0, 0.5]);
    assert!((values[2] - 1.0 / (1.0 + (-0.25f64).exp())).abs() < 1e-6, "{values:?}");
}

#[test]
fn bad_user_data_exits_with_code_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let graph = text_file(&dir, "g.el", "0 1\n1 2\n2 3\n");
    let short = text_file(&dir, "short.txt", "1\n2\n");
    let word = text_file(&dir, "word.txt", "1\n2\nabc\n4\n");
    let nan = text_file(&dir, "nan.txt", "1\nNaN\n3\n4\n");
    let big = text_file(&dir, "big.txt", "1\n1e300\n3\n4\n");
    let far = text_file(&dir, "far.txt", "0\n17\n");
    let empty = text_file(&dir, "empty.txt", "# nothing\n");
    let negative = text_file(&dir, "neg.txt", "1\n-1\n1\n1\n");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["spmv", &graph, "--input", &short], format!("{short}: 2 values for 4 vertices")),
        (vec!["spmv", &graph, "--input", &word], format!("{word}:3: 'abc' is not a number")),
        (vec!["spmv", &graph, "--input", &nan], format!("{nan}:2: 'NaN' is not a finite number")),
        (
            vec!["spmv", &graph, "--input", &big],
            format!("{big}: the value of vertex 1, 1e300, is out of range for f32"),
        ),
        (vec!["mlp", &graph, "--bias", &word], format!("{word}:3: 'abc' is not a number")),
        (
            vec!["bp", &graph, "--priors", &negative],
            format!("{negative}: the prior of vertex 1 is -1: priors are finite and not negative"),
        ),
        (vec!["bfs", &graph, "--sources", &far], format!("{far}:2: vertex 17 does not exist")),
        (vec!["ppr", &graph, "--sources", &empty], format!("{empty}: no vertex ids in the file given for --sources")),
        (vec!["sssp", &graph, "--sources", "1,4"], "--sources: vertex 4 does not exist".to_string()),
        (vec!["ppr", &graph, "--sources", ""], "--sources names no vertex".to_string()),
        (vec!["bfs", &graph, "--sources", "/no/such/file"], "/no/such/file".to_string()),
    ];
    for (args, want) in cases {
        let mut full = vec!["run"];
        full.extend(args.iter().copied());
        let o = simdx(&full);
        assert_eq!(o.status.code(), Some(2), "{full:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&want), "{full:?}: expected `{want}` in: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{full:?}");
    }
}

#[test]
fn gteps_counts_only_the_edges_a_search_reached() {
    let dir = tempfile::tempdir().unwrap();
    let chain: String = (0..199).map(|v| format!("{v} {}\n", v + 1)).collect();
    let graph = text_file(&dir, "chain.el", &chain);
    // From the chain's end nothing is reached: 0 GTEPS, and a warning.
    let o = simdx(&["run", "bfs", &graph, "--source", "199", "--backend", "cpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(" 0.000 GTEPS"), "{}", stdout(&o));
    assert!(stderr(&o).contains("warning: the search reached 1 of 200 vertices (0 edges)"), "{}", stderr(&o));
    // From its start every edge counts, and there is no warning.
    let o = simdx(&["run", "sssp", &graph, "--source", "0", "--backend", "cpu"]);
    assert!(o.status.success() && !stderr(&o).contains("warning"), "{}", stderr(&o));
}

#[test]
fn outputs_are_replaced_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    // A successful write leaves the file and nothing else.
    let out = dir.path().join("levels.txt").display().to_string();
    let json = dir.path().join("run.json").display().to_string();
    let el = dir.path().join("g.el").display().to_string();
    let o = simdx(&["run", "bfs", "grid:6x5", "--source", "0", "--output", &out, "--json", &json, "--backend", "cpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(simdx(&["convert", "kron:6", &el]).status.success());
    assert_eq!(listing(), ["g.el", "levels.txt", "run.json"]);
    // A write that fails (the destination is a folder) exits 2, keeps what was there, and leaves no
    // temporary file behind.
    let folder = dir.path().join("taken");
    std::fs::create_dir(&folder).unwrap();
    let folder = folder.display().to_string();
    for args in [
        vec!["run", "bfs", "grid:6x5", "--source", "0", "--output", &folder, "--backend", "cpu"],
        vec!["run", "bfs", "grid:6x5", "--source", "0", "--json", &folder, "--backend", "cpu"],
        vec!["convert", "kron:6", &folder, "--to", "el"],
        vec!["convert", "grid:6x5", &folder, "--to", "sxg"],
    ] {
        let o = simdx(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("taken"), "{args:?}: the message names the file: {}", stderr(&o));
    }
    assert_eq!(listing(), ["g.el", "levels.txt", "run.json", "taken"]);
    assert!(read_output(&out).len() == 30);
}

#[test]
fn relabel_numbers_any_ids_and_output_names_them_back() {
    let dir = tempfile::tempdir().unwrap();
    // Ids near 2^64 and names: refused as numbers, with the way out; read with --relabel.
    let names =
        text_file(&dir, "names.el", "18446744073709551615 alice\nalice bob\nbob 18446744073709551615\ncarol dave\n");
    let o = simdx(&["info", &names]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("names.el:1") && stderr(&o).contains("--relabel"), "{}", stderr(&o));
    let o = simdx(&["info", &names, "--relabel", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(info["vertices"], 5);
    assert_eq!(info["relabelled_from"][0], "18446744073709551615");
    assert_eq!(info["relabelled_from"][4], "dave");
    let out = dir.path().join("levels.txt").display().to_string();
    let o = simdx(&["run", "bfs", &names, "--relabel", "--source", "0", "--output", &out, "--backend", "cpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text, "18446744073709551615 0\nalice 1\nbob 2\ncarol inf\ndave inf\n");
    // Ids far sparser than the edges: refused at once, naming the file, the id and --relabel.
    for id in ["4294967294", "400000000"] {
        let sparse = text_file(&dir, "sparse.el", &format!("0 1\n1 {id}\n"));
        let started = std::time::Instant::now();
        let o = simdx(&["info", &sparse]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(started.elapsed().as_secs() < 5);
        let e = stderr(&o);
        assert!(e.contains("sparse.el") && e.contains(id) && e.contains("--relabel"), "{e}");
        let o = simdx(&["info", &sparse, "--relabel", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let info: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(info["vertices"], 3);
    }
    // Only edge lists are relabelled.
    let mtx = text_file(&dir, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
    let o = simdx(&["info", &mtx, "--relabel"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--relabel applies to .el and .wel"), "{}", stderr(&o));
    let o = simdx(&["info", "kron:8", "--relabel"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_memory_limit_refuses_what_would_exceed_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.el").display().to_string();
    let o = simdx(&["gen", "kron:14", "-o", &out, "--memory-limit", "1M"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("over the limit of 1.0 MiB (--memory-limit)"), "{}", stderr(&o));
    assert!(!std::path::Path::new(&out).exists());
    let o = simdx(&["gen", "kron:14", "-o", &out, "--memory-limit", "1G"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A mapped file counts (10 MiB: every page of it is read), and a run's per-vertex state on top.
    let sxg = dir.path().join("g.sxg").display().to_string();
    assert!(simdx(&["gen", "grid:512x512", "-o", &sxg]).status.success());
    let o = simdx(&["--memory-limit", "4M", "run", "bfs", &sxg, "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("mapping the whole file needs about 10.0 MiB"), "{}", stderr(&o));
    let o = simdx(&["--memory-limit", "12M", "run", "bfs", &sxg, "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the run's per-vertex state needs about"), "{}", stderr(&o));
    assert!(simdx(&["--memory-limit", "64M", "run", "bfs", &sxg, "--backend", "cpu"]).status.success());
    let o = simdx(&["--memory-limit", "64K", "info", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("k.el") && stderr(&o).contains("--memory-limit"), "{}", stderr(&o));
    let o = simdx(&["info", &out, "--memory-limit", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a size"), "{}", stderr(&o));
}

#[test]
fn plots_of_a_run_and_of_a_bench_are_svg_with_their_content() {
    let dir = tempfile::tempdir().unwrap();
    let run_svg = dir.path().join("t.svg").display().to_string();
    let json = dir.path().join("t.json").display().to_string();
    let o = simdx(&["run", "bfs", "kron:12", "--plot", &run_svg, "--json", &json, "--backend", "cpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&run_svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for text in
        ["bfs from vertex", "kron:12", "frontier (vertices)", "edges inspected", "time per iteration", "iteration"]
    {
        assert!(svg.contains(text), "the run's chart names {text}");
    }
    // One marker per iteration and series (circles push, triangles pull), plus five in the legend.
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let iterations = report["trace"].as_array().unwrap().len();
    let markers = svg.matches("<circle").count() + svg.matches("<polygon").count();
    assert_eq!(markers, 2 * iterations + 5, "{iterations} iterations");

    let bench_svg = dir.path().join("b.svg").display().to_string();
    let o = simdx(&[
        "bench",
        "--algorithms",
        "bfs,wcc",
        "--graphs",
        "kron:10,grid:16x16",
        "--backends",
        "cpu",
        "--fusions",
        "auto,none",
        "--trials",
        "1",
        "--plot",
        &bench_svg,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&bench_svg).unwrap();
    for text in
        ["bfs kron:10", "wcc kron:10", "bfs grid:16x16", "wcc grid:16x16", "cpu auto/jit/auto", "cpu auto/jit/none"]
    {
        assert!(svg.contains(text), "the bench chart names {text}");
    }
    // A bar per row, a legend swatch per series, the background, the legend's fill and its border.
    assert_eq!(svg.matches("<rect").count(), 8 + 2 + 3, "{svg}");
}

#[test]
fn a_graph_too_large_for_memory_is_refused_before_it_is_generated() {
    // Scale 31 degree 64: about 4 TB to build, more than any machine this runs on has.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.sxg").display().to_string();
    let started = std::time::Instant::now();
    let o = simdx(&["gen", "kron:31:64", "-o", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(started.elapsed().as_secs() < 5);
    let e = stderr(&o);
    assert!(e.contains("kron:31:64") && e.contains("of memory but") && e.contains("smaller scale"), "{e}");
}

#[test]
fn energy_is_reported_on_the_gpu_and_explained_away_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("e.json").display().to_string();
    let o = simdx(&["run", "bfs", "kron:10", "--energy", "--backend", "cpu", "--json", &json]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("the CPU backend has none"), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(report.get("energy_j").is_none());
    #[cfg(feature = "cuda")]
    {
        if let Err(e) = simdx_cuda::available() {
            assert!(std::env::var("SIMDX_REQUIRE_GPU").map_or(true, |v| v != "1"), "SIMDX_REQUIRE_GPU=1 but {e}");
            eprintln!("skipped the GPU half: {e}");
            return;
        }
        // About a second of PageRank: NVML's counter moves in steps of milliseconds.
        let o = simdx(&[
            "run",
            "pr",
            "kron:16",
            "--iterations",
            "20",
            "--tolerance",
            "0",
            "--trials",
            "100",
            "--energy",
            "--backend",
            "cuda",
            "--json",
            &json,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("J per trial"), "{}", stdout(&o));
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let joules = report["energy_j"].as_f64().expect("energy_j in the report");
        assert!(joules > 0.0 && joules < 1000.0, "{joules} J per trial");
    }
}

#[test]
fn a_device_memory_limit_refuses_a_run_in_one_sentence_and_auto_falls_back_to_the_cpu() {
    // Parsed and accepted everywhere; the CPU backend does not read it.
    let o = simdx(&["--device-memory-limit", "1M", "run", "bfs", "kron:10", "--backend", "cpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = simdx(&["--device-memory-limit", "lots", "run", "bfs", "kron:10"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    #[cfg(feature = "cuda")]
    {
        if let Err(e) = simdx_cuda::available() {
            assert!(std::env::var("SIMDX_REQUIRE_GPU").map_or(true, |v| v != "1"), "SIMDX_REQUIRE_GPU=1 but {e}");
            eprintln!("skipped the GPU half: {e}");
            return;
        }
        // kron:14 takes a few MiB on the device: 1 MiB is too little, 1 GiB plenty.
        let o = simdx(&["--device-memory-limit", "1M", "run", "bfs", "kron:14", "--backend", "cuda"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("over the GPU memory limit: the graph needs") && e.contains("--device-memory-limit"), "{e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        let o = simdx(&["--device-memory-limit", "1M", "run", "bfs", "kron:14", "--validate"]);
        assert!(o.status.success() && stdout(&o).contains("backend cpu"), "{}{}", stdout(&o), stderr(&o));
        let o = simdx(&["--device-memory-limit", "1G", "run", "bfs", "kron:14", "--backend", "cuda", "--validate"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

#[test]
fn without_a_usable_gpu_cuda_is_one_sentence_and_auto_runs_on_the_cpu() {
    if std::env::var_os("SIMDX_REQUIRE_GPU").is_some() {
        return; // a GPU machine: the GPU tests cover --backend cuda there
    }
    let o = simdx(&["run", "bfs", "kron:8", "--backend", "cuda"]);
    if o.status.success() {
        return; // this machine has a usable GPU after all
    }
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.starts_with("simdx: error: the CUDA backend cannot run: "), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    let o = simdx(&["run", "bfs", "kron:8", "--backend", "auto", "--validate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("backend cpu"), "{}", stdout(&o));
}

#[test]
fn multi_search_applications_validate_and_write_one_column_per_source() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("levels.txt").display().to_string();
    let o = simdx(&["run", "msbfs", "grid:4x4", "--sources", "0,15,5", "--output", &out, "--validate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().next(), Some("0 0 6 2"));
    assert_eq!(text.lines().nth(15), Some("15 6 0 4"));
    for algorithm in ["closeness", "harmonic", "eccentricity"] {
        let o = simdx(&["run", algorithm, "kron:9", "--validate", "--output", &out]);
        assert!(o.status.success(), "{algorithm}: {}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 512, "{algorithm}");
        let o = simdx(&["run", algorithm, "kron:9", "--samples", "10", "--validate", "--output", &out]);
        assert!(o.status.success(), "{algorithm}: {}", stderr(&o));
        assert!(std::fs::read_to_string(&out).unwrap().lines().count() <= 10, "{algorithm}");
    }
    // Betweenness: exact and sampled, a value for every vertex either way.
    for extra in [&[][..], &["--samples", "10"][..]] {
        let o = simdx(&[&["run", "bc", "kron:9", "--validate", "--output", &out][..], extra].concat());
        assert!(o.status.success(), "bc {extra:?}: {}", stderr(&o));
        assert!(stdout(&o).contains("validation: passed"), "{}", stdout(&o));
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 512, "bc {extra:?}");
    }
    let o = simdx(&["run", "bc", "grid:80x80", "--samples", "2", "--validate"]);
    assert!(!o.status.success());
    assert!(
        stdout(&o).contains("at most 5000 vertices") || stderr(&o).contains("at most 5000 vertices"),
        "{}",
        stdout(&o)
    );
    let o = simdx(&["run", "msbfs", "grid:4x4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("msbfs needs --sources"), "{}", stderr(&o));
}

#[test]
fn multi_search_bad_input_is_one_sentence() {
    let o = simdx(&["run", "msbfs", "grid:4x4", "--sources", "3,99"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("vertex 99 does not exist"), "{}", stderr(&o));
    let o = simdx(&["run", "closeness", "grid:4x4", "--samples", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--samples <K>': '0' is out of range"), "{}", stderr(&o));
    // Repeated sources are searches of their own, but more sources than vertices is a mistake.
    let o = simdx(&["run", "msbfs", "grid:2x2", "--sources", "0,1,2,0", "--validate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = simdx(&["run", "msbfs", "grid:2x2", "--sources", "0,1,2,3,0,1,2,3,0", "--validate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("names 9 sources but the graph has only 4 vertices"), "{}", stderr(&o));
}

/// `scc` validates; `tc`, `triangles` and `jaccard` validate, and write a count, per-vertex counts and per-edge lines
/// that agree with each other; a directed graph is refused in one sentence.
#[test]
fn edge_computations_validate_and_write_what_they_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let o = simdx(&["run", "tc", "kron:9", "--validate", "--output", &path("tc.txt")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let total: u64 = std::fs::read_to_string(path("tc.txt")).unwrap().trim().parse().unwrap();
    assert!(stdout(&o).contains(&format!("{total} triangles")) && stdout(&o).contains("validation: passed"));
    let o = simdx(&["run", "triangles", "kron:9", "--validate", "--output", &path("t.txt"), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let per_vertex: u64 = read_output(&path("t.txt")).iter().map(|&x| x as u64).sum();
    assert_eq!(per_vertex, 3 * total);
    let o = simdx(&["run", "jaccard", "grid:3x3", "--validate", "--output", &path("j.txt")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = std::fs::read_to_string(path("j.txt")).unwrap();
    assert_eq!(lines.lines().count(), 12, "one line per edge of the 3x3 grid");
    // Corner 0 (neighbours 1, 3) and 1 (neighbours 0, 2, 4): nothing in common.
    assert_eq!(lines.lines().next(), Some("0 1 0e0"));
    let o = simdx(&["run", "scc", "kron:9:d", "--validate", "--output", &path("scc.txt")]);
    assert!(o.status.success() && stdout(&o).contains("validation: passed ("), "{}", stderr(&o));
    let o = simdx(&["run", "tc", "kron:6:d"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("undirected"), "{}", stderr(&o));
}

/// `louvain` validates, prints the number of communities and the modularity, writes a community per
/// vertex, gives the same labels for the same --seed, more communities at a higher --resolution, and
/// refuses a directed graph.
#[test]
fn louvain_validates_and_writes_communities() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let communities = |args: &[&str], out: &str| {
        let o = simdx(&[&["run", "louvain", "kron:10", "--validate", "--output", &path(out)], args].concat());
        assert!(o.status.success() && stdout(&o).contains("validation: passed ("), "{}{}", stdout(&o), stderr(&o));
        let labels = read_output(&path(out));
        let count = labels.iter().fold(0.0f64, |a, &b| a.max(b)) as usize + 1;
        assert!(stdout(&o).contains(&format!("{count} communities, modularity 0.")), "{}", stdout(&o));
        labels
    };
    let first = communities(&["--threads", "1"], "a.txt");
    assert_eq!(first, communities(&["--threads", "2"], "b.txt"));
    let finer = communities(&["--resolution", "3"], "c.txt");
    assert!(finer.iter().fold(0.0f64, |a, &b| a.max(b)) > first.iter().fold(0.0f64, |a, &b| a.max(b)));
    let o = simdx(&["run", "louvain", "kron:6:d"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("undirected"), "{}", stderr(&o));
}

/// `bfs --parents` writes each vertex's parent (the source its own, -1 where unreached) and
/// validates the tree.
#[test]
fn bfs_parents_write_a_tree_that_validates() {
    let dir = tempfile::tempdir().unwrap();
    let graph = text_file(&dir, "two.el", "0 1\n1 2\n3 4\n");
    let out = dir.path().join("p.txt").to_string_lossy().into_owned();
    let o = simdx(&["run", "bfs", &graph, "--source", "1", "--parents", "--validate", "--output", &out]);
    assert!(o.status.success() && stdout(&o).contains("validation: passed"), "{}{}", stdout(&o), stderr(&o));
    // An edge list is directed: 0 is not reached from 1.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "0 -1\n1 1\n2 1\n3 -1\n4 -1\n");
    let o = simdx(&["run", "bfs", &graph, "--sources", "0,3", "--parents"]);
    assert_eq!(o.status.code(), Some(2), "--parents takes one source");
}

/// A graph whose shares do not fit two GPUs both ways runs split into shares of out-arcs only, pushing,
/// and validates; with no room for a whole copy beside its share, searches run one partitioned BFS
/// per source and validate, and betweenness says it needs the whole graph. The
/// limit lies between the two layouts' needs (`PartitionedGraph::bytes_per_gpu`), on a graph whose
/// arcs dominate its vertex arrays (degree 107 on average). Needs two GPUs (SIMDX_REQUIRE_GPUS=2
/// makes a skip a failure).
#[cfg(feature = "cuda")]
#[test]
fn a_graph_whose_shares_do_not_fit_both_ways_under_a_memory_limit_runs_pushing_on_two_gpus() {
    if let Err(e) = simdx_cuda::open_gpus(2) {
        assert!(std::env::var_os("SIMDX_REQUIRE_GPUS").is_none(), "SIMDX_REQUIRE_GPUS is set but {e}");
        eprintln!("skipped: {e}");
        return;
    }
    let spec = "kron:19:64";
    let graph = simdx::gen::GeneratorSpec::parse(spec).unwrap().generate(7).unwrap();
    let layout = |by_target| simdx_cuda::ShareLayout::ArcsIn { by_target };
    let out_only = simdx_cuda::PartitionedGraph::bytes_per_gpu(&graph, 2, layout(false));
    let both_ways = simdx_cuda::PartitionedGraph::bytes_per_gpu(&graph, 2, layout(true));
    let limit = (out_only + both_ways) / 2;
    assert!(both_ways - out_only > 64 << 20, "{out_only} / {both_ways}: too narrow a window");
    let limit = format!("{}M", limit >> 20);
    let split = ["--device-memory-limit", &limit, "run", "--seed", "7", "--gpus", "2", "--backend", "cuda"];
    for algorithm in ["bfs", "wcc", "pr"] {
        let o = simdx(&[&split[..], &[algorithm, spec, "--validate"]].concat());
        assert!(o.status.success(), "{algorithm} under {limit}: {}", stderr(&o));
        assert!(stdout(&o).contains("shares of out-arcs only, pushing, no whole copy"), "{}", stdout(&o));
    }
    // Searches run one partitioned BFS per source; Brandes' sweeps need the whole graph.
    let o = simdx(&[&split[..], &["closeness", spec, "--sources", "0,1,77", "--validate"]].concat());
    assert!(o.status.success() && stdout(&o).contains("validation: passed"), "{}{}", stdout(&o), stderr(&o));
    let o = simdx(&[&split[..], &["bc", spec, "--sources", "0,1"]].concat());
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("need the whole graph on one GPU"), "{}", stderr(&o));
    let o = simdx(&[&split[..], &["bfs", spec, "--direction", "pull"]].concat());
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("drop --direction pull"), "{}", stderr(&o));
}
