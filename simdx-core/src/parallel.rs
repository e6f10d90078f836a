//! Small parallel helpers shared by the builder, readers and generators: a slice that many rayon
//! tasks write at disjoint indices, and an exclusive prefix sum.

use std::marker::PhantomData;

/// A mutable slice shared between rayon tasks that promise to touch disjoint elements.
pub(crate) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a SharedSlice is only a raw view of a `&mut [T]`; sending it to or sharing it between threads
// is as safe as sending `T` values, provided callers uphold the disjointness contract of `write` and
// `slice_mut`.
unsafe impl<T: Send> Send for SharedSlice<'_, T> {}
// SAFETY: see the Send impl; all access goes through the unsafe methods below.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    /// Shares `slice` for the lifetime of the borrow.
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        SharedSlice { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// Writes `value` at `index`.
    ///
    /// # Safety
    /// No other task may read or write `index` while this slice is shared.
    pub(crate) unsafe fn write(&self, index: usize, value: T) {
        assert!(index < self.len, "SharedSlice index {index} out of bounds {}", self.len);
        // SAFETY: in bounds (asserted); exclusive access to this element is the caller's contract.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// A mutable view of `range`.
    ///
    /// # Safety
    /// No other task may touch any element of `range` while the returned slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice_mut(&self, range: std::ops::Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len, "SharedSlice range out of bounds");
        // SAFETY: in bounds (asserted); exclusivity over the range is the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.end - range.start) }
    }
}

/// Exclusive prefix sum of `counts`: returns `counts.len() + 1` offsets starting at 0.
pub(crate) fn offsets_from_counts(counts: impl ExactSizeIterator<Item = u64>) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    let mut total = 0u64;
    offsets.push(0);
    for c in counts {
        total += c;
        offsets.push(total);
    }
    offsets
}
