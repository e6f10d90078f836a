//! The backend name and the engine options a Python call passes as keyword arguments, turned into
//! [`Backend`] and [`RunOptions`]; an unknown option or value is a `TypeError` or `ValueError` that
//! lists what is accepted.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use simdx::engine::{DirectionPolicy, FilterPolicy, FusionPolicy, LabelPolicy, RunOptions};
use simdx::Backend;

use crate::errors::{type_error, value_error};

/// The option names a call accepts, with what each takes.
pub const OPTIONS: &str = "direction ('auto', 'push', 'pull'), direction_threshold (0..1), \
    filter ('jit', 'online', 'ballot'), fusion ('auto', 'none', 'push-pull', 'all', 'async'), labels ('link', 'propagate'), max_iterations, threads";

/// `"auto"`, `"cpu"` or `"cuda"` as a [`Backend`].
pub fn backend(name: &str) -> PyResult<Backend> {
    match name {
        "auto" => Ok(Backend::Auto),
        "cpu" => Ok(Backend::Cpu),
        "cuda" => Ok(Backend::Cuda),
        other => Err(value_error(format!("backend '{other}' is not one of 'auto', 'cpu', 'cuda'"))),
    }
}

/// `gpus=` among a program's keyword arguments (a count, or `"all"`: every GPU of the host), and the
/// other arguments: a program's run on several GPUs takes the graph split over them.
pub fn gpus_option<'py>(options: Option<&Bound<'py, PyDict>>) -> PyResult<(Option<usize>, Option<Bound<'py, PyDict>>)> {
    let Some(options) = options else { return Ok((None, None)) };
    let rest = options.copy()?;
    let gpus = match rest.get_item("gpus")? {
        Some(v) if !v.is_none() => match v.extract::<String>() {
            Ok(all) if all == "all" => Some(simdx::gpu_count().max(1)),
            Ok(other) => return Err(value_error(format!("gpus = '{other}' is not a number of GPUs or 'all'"))),
            Err(_) => Some(
                v.extract::<usize>()
                    .map_err(|_| value_error(format!("gpus = {v} is not a number of GPUs or 'all'")))?,
            ),
        },
        _ => None,
    };
    if rest.contains("gpus")? {
        rest.del_item("gpus")?;
    }
    Ok((gpus, Some(rest)))
}

/// How many GPUs a call asks for (`None`: one), checked against `backend`: several apply to `auto`
/// and `cuda` only.
pub fn gpu_count(backend: Backend, gpus: Option<usize>) -> PyResult<usize> {
    match gpus {
        None => Ok(1),
        Some(0) => Err(value_error("gpus must be at least 1")),
        Some(n) if n > 1 && backend == Backend::Cpu => {
            Err(value_error(format!("gpus={n} needs backend 'auto' or 'cuda', not 'cpu'")))
        }
        Some(n) => Ok(n),
    }
}

/// The run options from a dict of keyword arguments (absent: the defaults).
pub fn run_options(options: Option<&Bound<'_, PyDict>>) -> PyResult<RunOptions> {
    let mut run = RunOptions::default();
    let Some(options) = options else { return Ok(run) };
    let mut threshold = None;
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "direction" => {
                run.direction = match value.extract::<String>()?.as_str() {
                    "auto" => DirectionPolicy::default(),
                    "push" => DirectionPolicy::Push,
                    "pull" => DirectionPolicy::Pull,
                    other => {
                        return Err(value_error(format!("direction '{other}' is not one of 'auto', 'push', 'pull'")))
                    }
                }
            }
            "direction_threshold" => {
                let share: f64 = value.extract()?;
                if !(0.0..=1.0).contains(&share) {
                    return Err(value_error(format!("direction_threshold {share} is not within [0, 1]")));
                }
                threshold = Some(share);
            }
            "filter" => {
                run.filter = match value.extract::<String>()?.as_str() {
                    "jit" => FilterPolicy::Jit,
                    "online" => FilterPolicy::Online,
                    "ballot" => FilterPolicy::Ballot,
                    other => {
                        return Err(value_error(format!("filter '{other}' is not one of 'jit', 'online', 'ballot'")))
                    }
                }
            }
            "fusion" => {
                run.fusion = match value.extract::<String>()?.as_str() {
                    "auto" => FusionPolicy::Auto,
                    "none" => FusionPolicy::None,
                    "push-pull" => FusionPolicy::PushPull,
                    "all" => FusionPolicy::All,
                    "async" => FusionPolicy::Async,
                    other => {
                        return Err(value_error(format!(
                            "fusion '{other}' is not one of 'auto', 'none', 'push-pull', 'all', 'async'"
                        )))
                    }
                }
            }
            "labels" => {
                run.labels = match value.extract::<String>()?.as_str() {
                    "link" => LabelPolicy::Link,
                    "propagate" => LabelPolicy::Propagate,
                    other => return Err(value_error(format!("labels '{other}' is not one of 'link', 'propagate'"))),
                }
            }
            "max_iterations" => run.max_iterations = value.extract()?,
            "threads" => {
                let threads: usize = value.extract()?;
                if threads == 0 {
                    return Err(value_error("threads must be at least 1"));
                }
                run.threads = Some(threads);
            }
            other => return Err(type_error(format!("unknown option '{other}'; the options are {OPTIONS}"))),
        }
    }
    if let Some(threshold) = threshold {
        match run.direction {
            DirectionPolicy::Auto { .. } => run.direction = DirectionPolicy::Auto { threshold },
            _ => return Err(value_error("direction_threshold applies only to direction='auto'")),
        }
    }
    Ok(run)
}
