//! The hostile-input suite: hundreds of runs of the released `simdx` binary as a wary new user would
//! try it — malformed and structurally wrong files, numbers outside every option's domain, outputs
//! that are links, pipes or inputs, limits, and answers checked against independent oracles. Each case
//! has the exit code it must give; a refusal must be one sentence; nothing may panic, run past 10 s or
//! take more than 1 GiB. Prints each failure and `N passed, N failed`; fails on any failure.
//!
//! Run alone with `cargo test --test hostile`; `HOSTILE_FILTER=text` runs the cases whose name holds it.

mod answers;
mod harness;
mod limits;
mod messages;
mod options;
mod oracle;
mod outputs;
mod readers;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use harness::Case;

/// The cases and the folders they run in.
pub struct Suite {
    root: PathBuf,
    cases: Vec<(PathBuf, Case)>,
}

impl Suite {
    /// A fresh folder for the next case, for the files it needs.
    pub fn dir(&self) -> PathBuf {
        let dir = self.root.join(format!("case{}", self.cases.len()));
        std::fs::create_dir_all(&dir).expect("a case folder");
        dir
    }

    /// Adds a case that runs in `dir` (from [`Suite::dir`]).
    pub fn add_in(&mut self, dir: PathBuf, case: Case) {
        self.cases.push((dir, case));
    }

    /// Adds a case that needs no files of its own.
    pub fn add(&mut self, case: Case) {
        let dir = self.dir();
        self.add_in(dir, case);
    }
}

/// A path as an argument.
pub fn arg(path: &Path) -> String {
    path.display().to_string()
}

fn main() {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_simdx"));
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut suite = Suite { root: root.path().to_path_buf(), cases: Vec::new() };
    answers::cases(&mut suite);
    readers::cases(&mut suite);
    outputs::cases(&mut suite);
    limits::cases(&mut suite);
    options::cases(&mut suite);
    messages::cases(&mut suite);

    let filter = std::env::var("HOSTILE_FILTER").unwrap_or_default();
    let cases: Vec<_> = suite.cases.iter().filter(|(_, c)| c.name.contains(&filter)).collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((dir, case)) = cases.get(i) else { break };
                if let Err(why) = case.run(&binary, dir) {
                    failures.lock().unwrap().push(format!("FAIL {}: {why}", case.name));
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    for failure in &failures {
        println!("{failure}");
    }
    println!("hostile inputs: {} passed, {} failed", cases.len() - failures.len(), failures.len());
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
