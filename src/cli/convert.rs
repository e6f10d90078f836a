//! `simdx convert IN OUT`: read a graph (file or generator spec) and write it in another format.

use std::path::PathBuf;

use clap::Args;
use simdx_core::io::{write_graph, Format};

use super::error::CliError;
use super::graph_arg::{parse_format, GraphArg};
use super::progress::with_spinner;

/// Arguments of `simdx convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    input: GraphArg,
    /// The file to write; its extension picks the format unless --to is given.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Write in this format (mtx, el, wel, gr, sxg) whatever OUT's extension.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    to: Option<Format>,
}

/// Runs `simdx convert`.
pub fn run(args: ConvertArgs) -> Result<(), CliError> {
    let inputs: Vec<&std::path::Path> = args.input.file().into_iter().collect();
    super::outputs::check(&[("OUT", Some(&args.output))], &inputs)?;
    let (graph, load) = args.input.load()?;
    let (written, write) =
        with_spinner(format!("writing {}", args.output.display()), || write_graph(&graph, &args.output, args.to));
    written?;
    eprintln!(
        "wrote {} ({} vertices, {} edges) in {:.2} s (load {:.2} s)",
        args.output.display(),
        graph.num_vertices(),
        graph.num_edges(),
        write.as_secs_f64(),
        load.as_secs_f64()
    );
    Ok(())
}
