//! [`SearchProgram`]: the application-specific part of many breadth-first searches, in the spirit of
//! the multi-search abstraction (McLaughlin, Riedy and Bader, seed 001). The many-source traversal
//! ([`crate::multi_source`]) runs the searches; a program says what each search accumulates when it
//! discovers a vertex (`discovered`, kernel code under `#[search_kernel]`, so that the same function
//! runs on the CPU and on a GPU), how two accumulations combine (`OP`), and how deep the searches go
//! (`max_level`). What to do at the end of a search is plain Rust on the results of [`search`]: each
//! search's [`Summary`] (vertices reached, sum of levels, eccentricity) and its accumulator.
//!
//! ```ignore
//! #[search_kernel]
//! impl SearchProgram for Harmonic {
//!     type Acc = f64;
//!     const OP: CombineOp = CombineOp::Sum;
//!     const IDENTITY: f64 = 0.0;
//!     fn discovered(&self, _v: Vertex, level: u32) -> f64 {
//!         if level == 0 { 0.0 } else { 1.0 / level as f64 }
//!     }
//! }
//! let (found, stats) = search(&graph, &Harmonic, &sources, Traversal::default())?;
//! ```

use crate::acc::device::{op_define, PRELUDE};
use crate::acc::{Combinable, CombineOp, DeviceScalar, Value, Vertex, VertexArray};
use crate::multi_source::{Searches, Summary, Traversal};
pub use crate::search_run::ErasedSearch;
use crate::search_run::{MultiSourceError, MultiStats, LANES};
use crate::VertexId;

/// What each of many breadth-first searches accumulates over the vertices it discovers. Implement it
/// under `#[search_kernel]`, which also makes it run on a GPU ([`DeviceSearchProgram`]).
pub trait SearchProgram: Sync {
    /// The accumulated value: `u32 i32 u64 i64 f32 f64`.
    type Acc: SearchValue;
    /// How discoveries combine: `Sum`, `Min`, `Max`, or `Or` (integers). Floating-point sums are
    /// added in no fixed order, so they may differ in the last bits between runs and backends.
    const OP: CombineOp;
    /// The accumulator of a search that has discovered nothing (the identity of `OP`).
    const IDENTITY: Self::Acc;

    /// What a search that discovers `v` at `level` adds to its accumulator (each search discovers its
    /// source at level 0 and every vertex it reaches once, at its distance). Kernel code.
    fn discovered(&self, v: Vertex, level: u32) -> Self::Acc;

    /// The last level the searches explore (their depth limit); `u32::MAX`, the default, explores
    /// everything reachable. Plain Rust, read once per run.
    fn max_level(&self) -> u32 {
        u32::MAX
    }

    /// The program's per-vertex arrays (`VertexData` fields read in `discovered`); listed by
    /// `#[search_kernel]`, never by hand.
    fn vertex_arrays(&self) -> Vec<VertexArray<'_>> {
        Vec::new()
    }
}

/// A search program that can also run on a GPU: implemented by `#[search_kernel]`, never by hand.
pub trait DeviceSearchProgram: SearchProgram {
    /// `discovered` as CUDA C (`simdx_discovered`), with the parameters' struct `simdx_params`;
    /// compiled after [`PRELUDE`] and [`search_defines`].
    fn device_code() -> &'static str;
    /// The parameters (the fields of `self` that `discovered` reads) as the bytes of `simdx_params`;
    /// `array_addresses[i]` is the device address of the `i`-th of [`SearchProgram::vertex_arrays`].
    fn device_params(&self, array_addresses: &[u64]) -> Vec<u8>;
}

/// An accumulator type: a [`Value`] with the built-in combines and an exact 64-bit form, in which the
/// traversal backends carry it.
pub trait SearchValue: Value + Combinable {
    /// The value's bits, zero-extended to 64.
    fn to_word(self) -> u64;
    /// The value whose bits [`SearchValue::to_word`] gave.
    fn from_word(word: u64) -> Self;
}

macro_rules! search_value {
    ($($t:ty => $bits:ty, $to:expr, $from:expr);* $(;)?) => {$(
        impl SearchValue for $t {
            #[inline]
            fn to_word(self) -> u64 {
                let bits: $bits = $to(self);
                bits as u64
            }
            #[inline]
            fn from_word(word: u64) -> Self {
                $from(word as $bits)
            }
        }
    )*};
}
search_value! {
    u32 => u32, |x| x, |b| b;
    i32 => u32, |x: i32| x as u32, |b: u32| b as i32;
    u64 => u64, |x| x, |b| b;
    i64 => u64, |x: i64| x as u64, |b: u64| b as i64;
    f32 => u32, f32::to_bits, f32::from_bits;
    f64 => u64, f64::to_bits, f64::from_bits;
}

/// The `#define`s the traversal's kernels need from `P`: `SIMDX_OP` and the accumulator's type, width
/// and identity (`simdx_acc`, `SIMDX_ACC_BYTES`, `SIMDX_ACC_IDENTITY`).
pub fn search_defines<P: SearchProgram>() -> String {
    format!(
        "#define SIMDX_OP {}\ntypedef {} simdx_acc;\n#define SIMDX_ACC_BYTES {}\n#define SIMDX_ACC_IDENTITY {}\n",
        op_define(P::OP),
        <P::Acc as DeviceScalar>::C_TYPE,
        std::mem::size_of::<P::Acc>(),
        P::IDENTITY.c_literal()
    )
}

impl<P: DeviceSearchProgram> ErasedSearch for P {
    fn identity(&self) -> u64 {
        P::IDENTITY.to_word()
    }

    fn max_level(&self) -> u32 {
        SearchProgram::max_level(self)
    }

    fn acc_bytes(&self) -> usize {
        std::mem::size_of::<P::Acc>()
    }

    #[inline]
    fn found(&self, v: Vertex, level: u32, lanes: u64, acc: &mut [u64; LANES]) {
        let x = self.discovered(v, level);
        let mut bits = lanes;
        while bits != 0 {
            let lane = bits.trailing_zeros() as usize;
            acc[lane] = P::OP.apply(P::Acc::from_word(acc[lane]), x).to_word();
            bits &= bits - 1;
        }
    }

    fn merge(&self, into: &mut [u64; LANES], from: &[u64; LANES]) {
        for (a, &b) in into.iter_mut().zip(from) {
            *a = P::OP.apply(P::Acc::from_word(*a), P::Acc::from_word(b)).to_word();
        }
    }

    fn vertex_arrays(&self) -> Vec<VertexArray<'_>> {
        SearchProgram::vertex_arrays(self)
    }

    fn device_unit(&self) -> String {
        format!("{PRELUDE}\n{}{}", search_defines::<P>(), P::device_code())
    }

    fn device_params(&self, array_addresses: &[u64]) -> Vec<u8> {
        DeviceSearchProgram::device_params(self, array_addresses)
    }
}

/// What one search of [`search`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Searched<A> {
    /// Vertices reached, sum of their levels, eccentricity (within [`SearchProgram::max_level`]).
    pub summary: Summary,
    /// The program's accumulator over the vertices the search discovered, its source included.
    pub acc: A,
}

/// What [`search`] gives: each search's result, in the order of the sources, and the traversal's
/// statistics.
pub type SearchRun<A> = (Vec<Searched<A>>, MultiStats);

/// Runs `program` over one breadth-first search from each of `sources` (64 at a time, on the backend
/// that `searches` is: a [`Graph`](crate::Graph) or a GPU's device graph), as `how` says; each
/// search's summary and accumulator, in the order of `sources`.
pub fn search<P: DeviceSearchProgram>(
    searches: &(impl Searches + ?Sized),
    program: &P,
    sources: &[VertexId],
    how: Traversal,
) -> Result<SearchRun<P::Acc>, MultiSourceError> {
    let (found, stats) = searches.accumulate(program, sources, how)?;
    let found = found.into_iter().map(|(summary, word)| Searched { summary, acc: P::Acc::from_word(word) }).collect();
    Ok((found, stats))
}
