//! [`VertexData`]: a read-only array with one value per vertex that a program carries as a field
//! (inputs, biases, priors, personalisation, source sets) and kernel code reads by vertex id,
//! `self.x[v.id]`, on every backend. The engines check its length against the graph before a run
//! ([`ProgramHints::vertex_arrays`](super::ProgramHints::vertex_arrays)), and the CUDA engine uploads it.

use std::ops::Index;
use std::sync::Arc;

use super::device::DeviceScalar;
use crate::VertexId;

/// One value of type `T` per vertex, shared cheaply between clones (an `Arc<[T]>`). `T` is a kernel
/// scalar: `u32 i32 u64 i64 f32 f64 bool`.
///
/// ```
/// use simdx_core::acc::VertexData;
/// let x = VertexData::from(vec![0.5f32, 1.0, 2.0]);
/// assert_eq!(x[2], 2.0);
/// assert_eq!(x.len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct VertexData<T>(Arc<[T]>);

impl<T> VertexData<T> {
    /// The number of values (must equal the graph's vertex count when a program runs).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values, indexed by vertex id.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

impl<T: Copy> VertexData<T> {
    /// `len` copies of `value`.
    pub fn filled(value: T, len: usize) -> Self {
        VertexData(vec![value; len].into())
    }
}

impl VertexData<bool> {
    /// A set of vertices as a per-vertex flag: `true` for each id in `members`, over `len` vertices.
    /// Ids at or above `len` are left out (callers check them first, as
    /// [`parse_vertex_set`](crate::io::vertex_values::parse_vertex_set) does).
    pub fn set(len: usize, members: &[VertexId]) -> Self {
        let mut flags = vec![false; len];
        for &m in members {
            if let Some(f) = flags.get_mut(m as usize) {
                *f = true;
            }
        }
        VertexData(flags.into())
    }
}

impl VertexData<f64> {
    /// The uniform distribution over a set of vertices: `1 / |set|` for each id in `members` (an id
    /// named twice counts once), 0 elsewhere, over `len` vertices; ids at or above `len` are left out.
    pub fn uniform_over(len: usize, members: &[VertexId]) -> Self {
        let flags = VertexData::set(len, members);
        let share = 1.0 / flags.0.iter().filter(|&&f| f).count().max(1) as f64;
        flags.0.iter().map(|&f| if f { share } else { 0.0 }).collect::<Vec<f64>>().into()
    }
}

impl<T> From<Vec<T>> for VertexData<T> {
    fn from(values: Vec<T>) -> Self {
        VertexData(values.into())
    }
}

impl<T: Clone> From<&[T]> for VertexData<T> {
    fn from(values: &[T]) -> Self {
        VertexData(values.into())
    }
}

impl<T> Index<VertexId> for VertexData<T> {
    type Output = T;
    #[inline]
    fn index(&self, v: VertexId) -> &T {
        &self.0[v as usize]
    }
}

/// A program's per-vertex array as the engines see it: its field name, length and bytes.
#[derive(Debug, Clone, Copy)]
pub struct VertexArray<'a> {
    /// The field's name (`x`, `bias`), for error messages.
    pub name: &'static str,
    /// The number of values.
    pub len: usize,
    /// The values' little-endian bytes (what the CUDA engine uploads).
    pub bytes: &'a [u8],
}

/// A per-vertex array whose length is not the graph's vertex count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the program's per-vertex data `{name}` has {len} values, but the graph has {vertices} vertices")]
pub struct LengthMismatch {
    /// The field's name.
    pub name: &'static str,
    /// Its number of values.
    pub len: usize,
    /// The graph's vertex count.
    pub vertices: usize,
}

/// Checks that every per-vertex array of `program` holds one value per vertex of a graph with
/// `vertices` vertices (what both engines do before a run).
pub fn check_lengths<P: super::ProgramHints + ?Sized>(program: &P, vertices: usize) -> Result<(), LengthMismatch> {
    match program.vertex_arrays().into_iter().find(|a| a.len != vertices) {
        Some(a) => Err(LengthMismatch { name: a.name, len: a.len, vertices }),
        None => Ok(()),
    }
}

/// Scalars a [`VertexData`] may hold on every backend: their bytes can be viewed in place.
pub trait VertexScalar: DeviceScalar + Send + Sync + 'static {}
impl VertexScalar for u32 {}
impl VertexScalar for i32 {}
impl VertexScalar for u64 {}
impl VertexScalar for i64 {}
impl VertexScalar for f32 {}
impl VertexScalar for f64 {}
impl VertexScalar for bool {}

impl<T: VertexScalar> VertexData<T> {
    /// This array as the engines see it, named `name` (what `#[graph_kernel]` emits per field).
    pub fn as_vertex_array(&self, name: &'static str) -> VertexArray<'_> {
        let values: &[T] = &self.0;
        // SAFETY: `T` is one of the plain scalars of `VertexScalar` (no padding, every byte
        // initialised; `bool` is one byte holding 0 or 1), so its values may be read as bytes; the
        // slice covers exactly the values' memory and borrows `self`. The bytes are little-endian
        // on every target simdx supports (x86_64 and aarch64 hosts, NVIDIA devices).
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) };
        VertexArray { name, len: values.len(), bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_the_values() {
        let x = VertexData::from(vec![1u32, 0x0102_0304]);
        let a = x.as_vertex_array("x");
        assert_eq!((a.name, a.len), ("x", 2));
        assert_eq!(a.bytes, &[1, 0, 0, 0, 4, 3, 2, 1]);
        let s = VertexData::set(4, &[1, 3, 9]);
        assert_eq!(s.as_vertex_array("s").bytes, &[0, 1, 0, 1]);
        assert_eq!(VertexData::uniform_over(4, &[2, 0, 2]).as_slice(), &[0.5, 0.0, 0.5, 0.0]);
    }
}
