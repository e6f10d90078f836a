//! The exceptions the package raises: `simdx.SimdxError` for what fails inside simdx (a file that
//! cannot be read, a run the engine refuses, the GPU), with the same one-sentence messages as the
//! command line; Python's `ValueError` and `TypeError` for arguments that are wrong.

use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::{create_exception, PyErr};

create_exception!(
    simdx,
    SimdxError,
    PyException,
    "Something failed inside simdx: a graph file that cannot be read, a run the engine refuses, the GPU."
);

/// `error`'s message as a [`SimdxError`].
pub fn simdx_error(error: impl std::fmt::Display) -> PyErr {
    SimdxError::new_err(error.to_string())
}

/// A `ValueError` with `message`.
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// A `TypeError` with `message`.
pub fn type_error(message: impl Into<String>) -> PyErr {
    PyTypeError::new_err(message.into())
}
