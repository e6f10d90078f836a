//! Every numeric option outside its domain is refused with exit 2 and one sentence, before any work;
//! each option's ends of the domain are accepted; and `--validate` refuses settings under which it
//! could not fail.

use crate::harness::Case;
use crate::{arg, Suite};

/// `(option, the command it goes with, values outside its domain, a value inside)`.
const RUN_OPTIONS: &[(&str, &[&str], &[&str], &str)] = &[
    ("--source", &["run", "bfs", "grid:3x3"], &["-1", "4294967296", "x", "", "1.5", "9", "+-3"], "8"),
    ("--delta", &["run", "sssp", "grid:3x3"], &["0", "-1", "x", "1.5", "18446744073709551616"], "18446744073709551615"),
    ("--damping", &["run", "pr", "grid:3x3"], &["1", "-0.1", "nan", "inf", "x", "1.5"], "0"),
    ("--tolerance", &["run", "pr", "grid:3x3"], &["nan", "inf", "-inf", "-1", "1", "x"], "0"),
    ("--iterations", &["run", "pr", "grid:3x3"], &["0", "-1", "x", "4294967296"], "1"),
    ("--iterations", &["run", "bp", "grid:3x3"], &["0", "-5", "1e3"], "3"),
    ("--k", &["run", "kcore", "grid:3x3"], &["-1", "x", "2.5"], "0"),
    ("--samples", &["run", "closeness", "grid:3x3"], &["0", "-1", "x"], "2"),
    ("--trials", &["run", "bfs", "grid:3x3"], &["0", "-1", "x"], "2"),
    ("--threshold", &["run", "bfs", "grid:3x3"], &["nan", "-0.1", "1.5", "inf", "x"], "1"),
    ("--bin-capacity", &["run", "bfs", "grid:3x3"], &["0", "-1", "x"], "1"),
    ("--max-iterations", &["run", "bfs", "grid:3x3"], &["-1", "x", "4294967296"], "0"),
    ("--threads", &["run", "bfs", "grid:3x3"], &["0", "-1", "100000", "x"], "3"),
    ("--seed", &["run", "bfs", "kron:6"], &["-1", "x", "18446744073709551616"], "18446744073709551615"),
    ("--classes", &["run", "bfs", "grid:3x3"], &["1,2", "a,b,c", "-1,2,3", ""], "1,2,3"),
    ("--bias", &["run", "mlp", "mlp:6,4,2"], &["nan", "inf", "-inf"], "-3.5"),
    ("--memory-limit", &["run", "bfs", "grid:3x3"], &["-1", "x", "10Q"], "1G"),
    (
        "--bandwidth",
        &["bench", "--graphs", "grid:3x3", "--trials", "1", "--algorithms", "bfs"],
        &["0", "nan", "-1", "inf", "x"],
        "100",
    ),
    ("--trials", &["bench", "--graphs", "grid:3x3", "--algorithms", "bfs"], &["0", "-1", "x"], "1"),
    ("--iterations", &["bench", "--graphs", "grid:3x3", "--trials", "1", "--algorithms", "pr"], &["0", "-2"], "2"),
    ("--source", &["bench", "--graphs", "grid:3x3", "--trials", "1", "--algorithms", "bfs"], &["-1", "x"], "0"),
    ("--seed", &["gen", "kron", "6", "-o", "g.sxg"], &["-1", "x"], "0"),
];

pub fn cases(s: &mut Suite) {
    for &(option, command, bad, good) in RUN_OPTIONS {
        let shown = command[..2].join(" ");
        for &value in bad {
            let mut args = command.to_vec();
            args.extend([option, value]);
            s.add(Case::new(format!("options: {shown} {option} '{value}' is refused"), &args, 2));
        }
        let mut args = command.to_vec();
        args.extend([option, good]);
        s.add(Case::new(format!("options: {shown} {option} {good} is accepted"), &args, 0));
    }
    validations_that_could_not_fail(s);
}

/// `--validate` under settings that make any answer pass, and algorithms on graphs or inputs that do
/// not fit them: refused before the run (exit 2), never "passed".
fn validations_that_could_not_fail(s: &mut Suite) {
    for tolerance in ["0.5", "0.9", "0.01"] {
        let args = ["run", "pr", "kron:8", "--tolerance", tolerance, "--validate"];
        s.add(Case::new(format!("validate: pr --tolerance {tolerance} cannot be judged"), &args, 2));
    }
    s.add(Case::new(
        "validate: ppr --tolerance 0.3 cannot be judged",
        &["run", "ppr", "kron:8", "--tolerance", "0.3", "--validate"],
        2,
    ));
    s.add(Case::new("validate: pr at the default tolerance passes", &["run", "pr", "kron:8", "--validate"], 0));
    for graph in ["kron:8", "grid:5x5", "urand:7"] {
        s.add(Case::new(
            format!("validate: mlp on {graph} (not a network) is refused"),
            &["run", "mlp", graph, "--validate"],
            2,
        ));
    }
    s.add(Case::new("validate: mlp on a network passes", &["run", "mlp", "mlp:12,6,3", "--validate"], 0));
    // A directed graph whose arcs skip a layer, or that no input reaches.
    for (name, text) in
        [("skips a layer", "0 1 1\n1 2 1\n0 2 1\n"), ("has a cycle no input reaches", "0 1 1\n2 3 1\n3 2 1\n")]
    {
        let dir = s.dir();
        let file = dir.join("net.wel");
        std::fs::write(&file, text).unwrap();
        s.add_in(
            dir,
            Case::new(format!("validate: mlp on a graph that {name}"), &["run", "mlp", &arg(&file), "--validate"], 2),
        );
    }
    // Belief propagation: priors that make every belief 0, or are not numbers.
    for (name, priors) in [
        ("all zero", "0\n0\n0\n0\n"),
        ("negative", "0.5\n-0.1\n0.3\n0.3\n"),
        ("nan", "0.5\nnan\n0.3\n0.2\n"),
        ("infinite", "inf\n0\n0\n0\n"),
    ] {
        let dir = s.dir();
        let file = dir.join("priors.txt");
        std::fs::write(&file, priors).unwrap();
        let args = ["run", "bp", "grid:2x2", "--priors", &arg(&file), "--validate"];
        s.add_in(dir, Case::new(format!("validate: bp with {name} priors is refused"), &args, 2));
    }
    let dir = s.dir();
    let file = dir.join("zero.wel");
    std::fs::write(&file, "0 1 0\n1 2 0\n").unwrap();
    let args = ["run", "bp", &arg(&file), "--validate"];
    s.add_in(dir, Case::new("validate: bp whose likelihoods are all 0 is refused", &args, 2));
    let dir = s.dir();
    let out = dir.join("b.txt");
    let args = ["run", "bp", "grid:4x4", "--validate", "--output", &arg(&out)];
    let check = move |_: &_| {
        let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
        let total: f64 = text.lines().filter_map(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()).sum();
        if (total - 1.0).abs() < 1e-4 {
            Ok(())
        } else {
            Err(format!("beliefs sum to {total}"))
        }
    };
    s.add_in(dir, Case::new("validate: bp on a grid passes and its beliefs sum to 1", &args, 0).check(check));
}
