//! Software prefetch hints for loops over scattered frontier vertices: while one frontier vertex
//! pushes its edges, the neighbour lists (and weights) of a vertex a few places ahead are already
//! being fetched, so that the start of each list does not cost a full memory round trip; the light
//! snapshot before a push fetches each vertex's degree and seen value the same way.

use crate::acc::{EdgeWeight, WeightView};
use crate::{Csr, VertexId};

/// Frontier vertices prefetched ahead of the one being processed.
pub(crate) const AHEAD: usize = 8;

/// Cache lines fetched from the start of each neighbour list.
const LINES: usize = 2;

/// Asks the CPU to bring `slice[i]` into cache (nothing if `i` is out of range or the target is not
/// x86-64).
#[inline(always)]
pub(crate) fn element<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(i) {
        // SAFETY: a prefetch is only a hint: it never faults and changes no state visible to the
        // program; the address is that of a live element of `slice`.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// Prefetches the first cache lines of `v`'s neighbour list in `csr` and of its weights.
#[inline(always)]
pub(crate) fn adjacency<W: EdgeWeight>(csr: &Csr, weights: &WeightView<'_, W>, v: VertexId) {
    let range = csr.range(v);
    let per_line = 64 / std::mem::size_of::<VertexId>();
    for line in 0..LINES {
        let i = range.start + line * per_line;
        if i >= range.end {
            break;
        }
        element(csr.targets(), i);
        if let WeightView::PerArc(w) = weights {
            element(w, i);
        }
    }
}
