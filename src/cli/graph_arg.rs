//! The GRAPH argument every subcommand shares: a file path or a generator spec, with the options
//! that go with it (`--undirected`, `--format`, `--seed`), and loading it with a progress spinner.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use simdx_core::gen::{GeneratorSpec, DEFAULT_SEED};
use simdx_core::io::{read_labelled_graph, Format, ReadOptions, VertexLabels};
use simdx_core::{Duplicates, Graph, SelfLoops};

use super::error::CliError;
use super::progress::with_spinner;

/// A graph given on the command line.
#[derive(Debug, Args)]
pub struct GraphArg {
    /// A graph file (.mtx .el .wel .gr .sxg) or a generator spec (kron:20, urand:20, rmat:20, grid:1024x1024,
    /// mlp:784,256,10).
    #[arg(value_name = "GRAPH")]
    pub graph: String,
    /// Symmetrise a directed input (.el, .wel, .gr, general .mtx) into an undirected graph.
    #[arg(long)]
    pub undirected: bool,
    /// Read the file in this format instead of guessing from its extension.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,
    /// Seed for generator specs; `run` also picks random sources and shuffles louvain's vertex orders
    /// from it.
    #[arg(long, default_value_t = DEFAULT_SEED, value_parser = super::numbers::seed, allow_negative_numbers = true)]
    pub seed: u64,
    /// Keep self-loops instead of removing them (files only).
    #[arg(long)]
    pub keep_self_loops: bool,
    /// Keep duplicate edges instead of keeping only the lightest copy (files only).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Number the vertex ids of an .el or .wel file densely, whatever they are (64-bit numbers, names),
    /// in the order they first appear; `--output` writes the original ids back.
    #[arg(long)]
    pub relabel: bool,
}

/// Parses a format name as clap's value parser.
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| format!("unknown format '{name}': expected one of mtx, el, wel, gr, sxg"))
}

impl GraphArg {
    /// A short description of where the graph comes from, for output headers.
    pub fn describe(&self) -> String {
        if simdx_core::gen::is_spec(&self.graph) {
            format!("{} (generated, seed {})", self.graph, self.seed)
        } else {
            self.graph.clone()
        }
    }

    /// The graph file, or `None` for a generator spec.
    pub fn file(&self) -> Option<&std::path::Path> {
        (!simdx_core::gen::is_spec(&self.graph)).then(|| std::path::Path::new(&self.graph))
    }

    /// Loads or generates the graph, showing a spinner on a terminal; returns it with the time taken.
    pub fn load(&self) -> Result<(Graph, Duration), CliError> {
        self.load_labelled().map(|(graph, _, took)| (graph, took))
    }

    /// As [`GraphArg::load`], with each vertex's original id when `--relabel` numbered them.
    pub fn load_labelled(&self) -> Result<(Graph, Option<VertexLabels>, Duration), CliError> {
        if simdx_core::gen::is_spec(&self.graph) {
            let spec = GeneratorSpec::parse(&self.graph)?;
            // Options for files only: refused rather than ignored with a spec.
            let file_only = [
                ("--format", self.format.is_some(), "files"),
                ("--relabel", self.relabel, "edge list files"),
                ("--undirected", self.undirected, "files (a generated graph is undirected unless its spec ends in :d)"),
                ("--keep-self-loops", self.keep_self_loops, "files"),
                ("--keep-duplicates", self.keep_duplicates, "files"),
            ];
            if let Some((option, _, applies)) = file_only.iter().find(|(_, given, _)| *given) {
                return Err(CliError::Usage(format!(
                    "{option} applies to {applies}, not to the generator spec '{spec}'"
                )));
            }
            let (graph, took) = with_spinner(format!("generating {spec}"), || spec.generate(self.seed));
            return Ok((graph?, None, took));
        }
        let options = ReadOptions {
            format: self.format,
            undirected: self.undirected,
            self_loops: if self.keep_self_loops { SelfLoops::Keep } else { SelfLoops::Remove },
            duplicates: if self.keep_duplicates { Duplicates::Keep } else { Duplicates::Remove },
            relabel: self.relabel,
        };
        let path = PathBuf::from(&self.graph);
        let (read, took) = with_spinner(format!("loading {}", path.display()), || read_labelled_graph(&path, &options));
        let (graph, labels) = read?;
        Ok((graph, labels, took))
    }
}
