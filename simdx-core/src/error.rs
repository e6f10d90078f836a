//! The error type of simdx-core: every failure a user can cause (a bad file, a bad generator spec,
//! a graph too large for the id types) is a [`GraphError`] whose message is one sentence naming the
//! file, the line (or byte offset) and what was wrong.

use std::path::PathBuf;

/// Anything that can go wrong while reading, writing, generating or building a graph.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The operating system refused an operation on a file.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A text file is malformed at a given line (1-based).
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file being read.
        path: PathBuf,
        /// 1-based line number of the offending line.
        line: u64,
        /// What was wrong, as a sentence fragment.
        message: String,
    },
    /// A binary file is malformed at a given byte offset.
    #[error("{path}: at byte {offset}: {message}")]
    Binary {
        /// The file being read.
        path: PathBuf,
        /// Byte offset where the problem was found.
        offset: u64,
        /// What was wrong.
        message: String,
    },
    /// A file that is not malformed at any one place but is unusable as a whole.
    #[error("{path}: {message}")]
    File {
        /// The file involved.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A generator spec such as `kron:20` that does not parse or is out of range.
    #[error("bad generator spec '{spec}': {message}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// What was wrong.
        message: String,
    },
    /// An edge list handed to the builder that cannot form a graph.
    #[error("invalid edge list: {0}")]
    Build(String),
    /// A set of vertices given by the user (`--sources`) that names none, or one the graph lacks.
    #[error("{0}")]
    Vertices(String),
}

impl GraphError {
    /// A parse error at `line` of `path`.
    pub fn parse(path: impl Into<PathBuf>, line: u64, message: impl Into<String>) -> Self {
        GraphError::Parse { path: path.into(), line, message: message.into() }
    }

    /// A whole-file error for `path`.
    pub fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        GraphError::File { path: path.into(), message: message.into() }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        GraphError::Io { path: path.into(), source }
    }
}

/// Result alias used throughout simdx-core.
pub type Result<T, E = GraphError> = std::result::Result<T, E>;
