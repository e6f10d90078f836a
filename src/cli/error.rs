//! [`CliError`]: every way a command can fail, with the exit code it maps to.

use simdx_core::GraphError;

/// A failed command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input: a malformed or missing graph file, a bad generator spec, an invalid option value.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// An option combination or value the command cannot use.
    #[error("{0}")]
    Usage(String),
    /// `--validate` found the result wrong.
    #[error("validation failed: {0}")]
    Validation(String),
    /// Writing to standard output failed.
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
}

impl From<simdx::RunError> for CliError {
    fn from(e: simdx::RunError) -> Self {
        CliError::Usage(e.to_string())
    }
}

impl CliError {
    /// Exit code: 2 for bad input or usage, 1 for anything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Graph(_) | CliError::Usage(_) => 2,
            CliError::Validation(_) | CliError::Output(_) => 1,
        }
    }
}
