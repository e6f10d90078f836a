//! `simdx gen KIND ARGS... -o FILE`: generate a graph and write it. `simdx gen kron 20 -o k.sxg` and
//! `simdx gen kron:20 -o k.sxg` mean the same.

use std::path::PathBuf;

use clap::Args;
use simdx_core::gen::{GeneratorSpec, DEFAULT_SEED};
use simdx_core::io::{write_graph, Format};

use super::error::CliError;
use super::graph_arg::parse_format;
use super::progress::with_spinner;

/// Arguments of `simdx gen`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  simdx gen kron 20 -o kron20.sxg        (Graph500 Kronecker, scale 20, degree 16)\n  \
                        simdx gen kron:20:32:w -o k.wel        (degree 32, weights in [1, 255])\n  \
                        simdx gen urand 18 -o u.el\n  simdx gen rmat 18 16 0.45 0.15 0.15 -o r.mtx\n  \
                        simdx gen grid 1024x1024 -o road.gr\n  \
                        simdx gen mlp 784,256,128,10 -o net.wel   (a random perceptron)"
)]
pub struct GenArgs {
    /// Generator: kron, urand, rmat, grid or mlp (or a whole spec such as kron:20).
    #[arg(value_name = "KIND")]
    kind: String,
    /// The generator's parameters: SCALE [DEGREE] for kron/urand, SCALE [DEGREE [A B C]] for rmat,
    /// WxH for grid; a last `w` or `w=LO-HI` adds integer weights. For mlp: the layer widths
    /// (W0,W1,...) and optionally a fan-in (f32 weights, directed).
    #[arg(value_name = "ARGS")]
    params: Vec<String>,
    /// The file to write; its extension picks the format unless --to is given.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Write in this format (mtx, el, wel, gr, sxg) whatever the extension.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    to: Option<Format>,
    /// Random seed; the same seed gives the same graph on any number of threads.
    #[arg(long, default_value_t = DEFAULT_SEED, value_parser = super::numbers::seed, allow_negative_numbers = true)]
    seed: u64,
}

/// Runs `simdx gen`.
pub fn run(args: GenArgs) -> Result<(), CliError> {
    let text = std::iter::once(args.kind.as_str()).chain(args.params.iter().map(String::as_str)).collect::<Vec<_>>();
    let spec = GeneratorSpec::parse(&text.join(":"))?;
    super::outputs::check(&[("--output", Some(&args.output))], &[])?;
    let (graph, generate) = with_spinner(format!("generating {spec}"), || spec.generate(args.seed));
    let graph = graph?;
    let (written, write) =
        with_spinner(format!("writing {}", args.output.display()), || write_graph(&graph, &args.output, args.to));
    written?;
    eprintln!(
        "{spec} (seed {}): {} vertices, {} edges; generated in {:.2} s, written to {} in {:.2} s",
        args.seed,
        graph.num_vertices(),
        graph.num_edges(),
        generate.as_secs_f64(),
        args.output.display(),
        write.as_secs_f64()
    );
    Ok(())
}
