//! The hostile-input suite's machinery: a [`Case`] is one or more runs of the `simdx` binary, each
//! with the exit code it must give, and an optional check of what the last run printed or wrote.
//! Every run is watched for the suite's global limits: no panic, at most [`TIME_LIMIT`] of wall time,
//! at most [`MEMORY_LIMIT_KB`] of resident memory, and a refusal (exit 2) says one sentence.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest any run may take.
pub const TIME_LIMIT: Duration = Duration::from_secs(10);
/// The most resident memory any run may reach (1 GiB).
pub const MEMORY_LIMIT_KB: i64 = 1 << 20;

/// What one run of the binary gave.
#[derive(Debug, Default)]
pub struct Ran {
    /// The exit code (`None`: killed by a signal or by the time limit).
    pub code: Option<i32>,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// Its peak resident memory, in KiB.
    pub max_rss_kb: i64,
}

/// A check of the last run's outcome: `Err` says what is wrong.
pub type Check = Box<dyn Fn(&Ran) -> Result<(), String> + Send + Sync>;

/// One run: the arguments and the exit code it must give.
pub struct Step {
    args: Vec<String>,
    expect: i32,
}

/// A named hostile case.
pub struct Case {
    /// What the case tries, e.g. `sssp: weights that overflow u32`.
    pub name: String,
    steps: Vec<Step>,
    check: Option<Check>,
}

impl Case {
    /// A case whose first run is `args`, which must exit with `expect`.
    pub fn new(name: impl Into<String>, args: &[&str], expect: i32) -> Case {
        Case { name: name.into(), steps: Vec::new(), check: None }.then(args, expect)
    }

    /// A further run, after the ones before it.
    pub fn then(mut self, args: &[&str], expect: i32) -> Case {
        self.steps.push(Step { args: args.iter().map(|a| a.to_string()).collect(), expect });
        self
    }

    /// Checks the last run's outcome.
    pub fn check(mut self, check: impl Fn(&Ran) -> Result<(), String> + Send + Sync + 'static) -> Case {
        self.check = Some(Box::new(check));
        self
    }

    /// Runs every step in `dir`; `Err` says the first thing that was wrong.
    pub fn run(&self, binary: &Path, dir: &Path) -> Result<(), String> {
        let mut last = Ran::default();
        for (i, step) in self.steps.iter().enumerate() {
            let out = dir.join(format!("step{i}"));
            last = run_limited(binary, &step.args, dir, &out)?;
            let shown = step.args.join(" ");
            if last.stderr.contains("panicked") {
                return Err(format!("`{shown}` panicked: {}", last.stderr.trim()));
            }
            if last.code != Some(step.expect) {
                return Err(format!(
                    "`{shown}` exited with {:?}, expected {}; stderr: {}",
                    last.code,
                    step.expect,
                    last.stderr.trim()
                ));
            }
            if step.expect == 2 {
                one_sentence(&last.stderr).map_err(|why| format!("`{shown}`: {why}"))?;
            }
        }
        match &self.check {
            Some(check) => check(&last),
            None => Ok(()),
        }
    }
}

/// A refusal is one line, `simdx: error: ...` or clap's `error: ...` with its usage lines.
fn one_sentence(stderr: &str) -> Result<(), String> {
    let first = stderr.lines().next().unwrap_or("");
    if first.starts_with("simdx: error: ") && stderr.trim_end().lines().count() == 1 {
        return Ok(());
    }
    if first.starts_with("error: ") {
        return Ok(());
    }
    Err(format!("a refusal is not one `simdx: error:` sentence: {stderr:?}"))
}

/// Runs `binary args` in `dir` with its output in files beside `out`, under the time limit, and
/// checks its peak resident memory.
fn run_limited(binary: &Path, args: &[String], dir: &Path, out: &Path) -> Result<Ran, String> {
    let stdout_path = out.with_extension("out");
    let stderr_path = out.with_extension("err");
    let file = |p: &PathBuf| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .env("NCCL_NVLS_ENABLE", "0")
        .stdin(Stdio::null())
        .stdout(file(&stdout_path)?)
        .stderr(file(&stderr_path)?)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let started = Instant::now();
    let pid = child.id() as libc::pid_t;
    let (status, max_rss_kb) = loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own child, not yet reaped; both pointers are to live locals.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break (status, usage.ru_maxrss);
        }
        if done < 0 {
            return Err(format!("waiting for `{}` failed", args.join(" ")));
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("`{}` ran past {:?}", args.join(" "), TIME_LIMIT));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if max_rss_kb > MEMORY_LIMIT_KB {
        return Err(format!("`{}` used {} MiB", args.join(" "), max_rss_kb / 1024));
    }
    let read = |p: &PathBuf| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok(Ran { code, stdout: read(&stdout_path), stderr: read(&stderr_path), max_rss_kb })
}
