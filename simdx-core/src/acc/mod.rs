//! The Active-Compute-Combine (ACC) model: the traits an algorithm implements (by hand, or through
//! `#[graph_kernel]`) to run on any simdx backend. See [`Program`] for the model and an example.

pub mod combine;
pub mod device;
pub mod hints;
pub mod program;
pub mod value;
pub mod vertex_data;
pub mod weight;

pub use combine::{Combinable, CombineOp};
pub use device::{DeviceProgram, DeviceScalar};
pub use hints::ProgramHints;
pub use program::{Apply, CombineKind, Edge, Program, Vertex};
pub use value::{convert, AtomicCell, Value, Wide};
pub use vertex_data::{check_lengths, LengthMismatch, VertexArray, VertexData, VertexScalar};
pub use weight::{weights_of, EdgeWeight, WeightView};
