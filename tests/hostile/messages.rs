//! Honest statistics and messages: GTEPS counts only what a search reached (in `run` and in `bench`),
//! a run cut short by `--max-iterations` says so, `bench` checks its graphs before any row runs and
//! keeps the rows it finished when a later one fails, and generator specs with commas survive
//! `--graphs`.

use crate::harness::Case;
use crate::{arg, Suite};

pub fn cases(s: &mut Suite) {
    gteps(s);
    cut_short(s);
    bench_lists(s);
    file_only_options(s);
}

/// A graph whose vertex 0 reaches one edge, beside a large component: GTEPS counts the one edge.
fn gteps(s: &mut Suite) {
    let mut text = String::from("0 1 1\n");
    for v in 2..400u32 {
        text += &format!("{v} {} 1\n{v} {} 2\n", v + 1, (v * 7) % 400 + 2);
    }
    for algorithm in ["bfs", "sssp"] {
        let dir = s.dir();
        let file = dir.join("two.wel");
        std::fs::write(&file, &text).unwrap();
        let json = dir.join("bench.json");
        let args = [
            "bench",
            "--graphs",
            &arg(&file),
            "--algorithms",
            algorithm,
            "--source",
            "0",
            "--trials",
            "3",
            "--json",
            &arg(&json),
        ];
        let check = move |_: &_| {
            let rows: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
            let row = &rows[0];
            let (gteps, ms) = (row["gteps"].as_f64().unwrap_or(-1.0), row["median_ms"].as_f64().unwrap_or(-1.0));
            let counted = gteps * 1e9 * ms * 1e-3;
            if (counted - 1.0).abs() < 0.01 {
                Ok(())
            } else {
                Err(format!("bench counted {counted} edges for a search that reached 1"))
            }
        };
        s.add_in(
            dir,
            Case::new(format!("messages: bench {algorithm} GTEPS counts the reached edges"), &args, 0).check(check),
        );
        let dir = s.dir();
        let file = dir.join("two.wel");
        std::fs::write(&file, &text).unwrap();
        let json = dir.join("run.json");
        let args = ["run", algorithm, &arg(&file), "--source", "0", "--json", &arg(&json)];
        let check = move |ran: &crate::harness::Ran| {
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
            let counted =
                report["gteps"].as_f64().unwrap_or(-1.0) * 1e9 * report["time_ms"].as_f64().unwrap_or(-1.0) * 1e-3;
            if (counted - 1.0).abs() >= 0.01 {
                return Err(format!("run counted {counted} edges for a search that reached 1"));
            }
            ran.stderr.contains("reached 2 of").then_some(()).ok_or(format!("no warning: {}", ran.stderr))
        };
        s.add_in(
            dir,
            Case::new(format!("messages: run {algorithm} GTEPS counts the reached edges"), &args, 0).check(check),
        );
    }
}

/// `--max-iterations` below what the run needs: the answer is unfinished, and stderr says so.
fn cut_short(s: &mut Suite) {
    for (algorithm, graph) in [("bfs", "grid:30x30"), ("sssp", "grid:30x30"), ("wcc", "grid:40x2")] {
        let args = ["run", algorithm, graph, "--max-iterations", "2", "--labels", "propagate"];
        let check = |ran: &crate::harness::Ran| {
            ran.stderr.contains("--max-iterations 2").then_some(()).ok_or(format!("no warning: {}", ran.stderr))
        };
        s.add(Case::new(format!("messages: {algorithm} cut by --max-iterations warns"), &args, 0).check(check));
    }
    for algorithm in ["pr", "ppr"] {
        let args = ["run", algorithm, "kron:10", "--iterations", "3"];
        let check = |ran: &crate::harness::Ran| {
            ran.stderr.contains("--iterations 3").then_some(()).ok_or(format!("no warning: {}", ran.stderr))
        };
        s.add(Case::new(format!("messages: {algorithm} cut by --iterations warns"), &args, 0).check(check));
        let args = ["run", algorithm, "kron:10", "--iterations", "3", "--validate"];
        s.add(Case::new(format!("messages: {algorithm} cut by --iterations fails validation"), &args, 1));
    }
    let check = |ran: &crate::harness::Ran| {
        (!ran.stderr.contains("warning")).then_some(()).ok_or(format!("a needless warning: {}", ran.stderr))
    };
    s.add(Case::new("messages: a converged pagerank does not warn", &["run", "pr", "kron:8"], 0).check(check));
    s.add(
        Case::new(
            "messages: a run within --max-iterations does not warn",
            &["run", "bfs", "grid:5x5", "--max-iterations", "100"],
            0,
        )
        .check(check),
    );
}

/// `bench --graphs`: specs with commas, a bad entry found before any row, finished rows kept.
fn bench_lists(s: &mut Suite) {
    let dir = s.dir();
    let json = dir.join("b.json");
    let args =
        ["bench", "--graphs", "mlp:20,10,5,grid:4x4", "--algorithms", "bfs", "--trials", "1", "--json", &arg(&json)];
    let check = move |_: &_| {
        let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        let graphs: Vec<&str> = rows.as_array().into_iter().flatten().filter_map(|r| r["graph"].as_str()).collect();
        (graphs == ["mlp:20,10,5", "grid:4x4"]).then_some(()).ok_or(format!("rows for {graphs:?}"))
    };
    s.add_in(dir, Case::new("messages: bench --graphs keeps an mlp spec's commas", &args, 0).check(check));
    for bad in ["nosuch.el", "kron:99", "grid:0x3", "mlp:5"] {
        let graphs = format!("grid:4x4,{bad}");
        let args = ["bench", "--graphs", &graphs, "--algorithms", "bfs", "--trials", "1"];
        let check = |ran: &crate::harness::Ran| {
            (!ran.stdout.contains("grid:4x4"))
                .then_some(())
                .ok_or("a row ran before the bad graph was refused".to_string())
        };
        s.add(Case::new(format!("messages: bench refuses {bad} before any row"), &args, 2).check(check));
    }
    let dir = s.dir();
    let json = dir.join("kept.json");
    let args = ["bench", "--graphs", "grid:4x4", "--algorithms", "bfs,mlp", "--trials", "1", "--json", &arg(&json)];
    let check = move |_: &_| {
        let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        (rows.as_array().map_or(0, Vec::len) == 1).then_some(()).ok_or(format!("kept rows: {rows}"))
    };
    s.add_in(dir, Case::new("messages: bench keeps the rows finished before a failure", &args, 2).check(check));
    for sources in ["", ",", "3,,7", "99", "-3"] {
        let args = ["run", "bfs", "grid:3x3", "--sources", sources];
        let check = |ran: &crate::harness::Ran| {
            (!ran.stderr.contains("edge list")).then_some(()).ok_or(format!("misleading: {}", ran.stderr))
        };
        s.add(Case::new(format!("messages: --sources '{sources}' is refused plainly"), &args, 2).check(check));
    }
}

/// Options for files only are refused with a generator spec, never ignored.
fn file_only_options(s: &mut Suite) {
    for option in ["--undirected", "--keep-self-loops", "--keep-duplicates", "--relabel"] {
        for spec in ["kron:8:d", "grid:3x3"] {
            let args = ["info", spec, option];
            s.add(Case::new(format!("messages: {option} with the spec {spec} is refused"), &args, 2));
        }
    }
}
