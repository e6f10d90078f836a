//! [`Array`]: a read-only slice of plain numbers that either owns its memory (a `Vec`) or borrows it
//! from a memory-mapped file, so that the binary graph format loads without copying.

use std::ops::Deref;
use std::sync::Arc;

use memmap2::Mmap;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for f32 {}
}

/// Element types an [`Array`] may hold: fixed-size numbers for which every bit pattern is a valid
/// value, so that bytes from a file can be viewed as them.
pub trait Element: sealed::Sealed + Copy + Send + Sync + 'static {}
impl Element for u32 {}
impl Element for u64 {}
impl Element for f32 {}

/// A read-only array of numbers, owned or memory-mapped. Dereferences to `&[T]`.
#[derive(Clone)]
pub struct Array<T: Element> {
    repr: Repr<T>,
}

#[derive(Clone)]
enum Repr<T> {
    Owned(Arc<Vec<T>>),
    Mapped { map: Arc<Mmap>, byte_offset: usize, len: usize },
}

impl<T: Element> Array<T> {
    /// Views `len` elements of `map` starting at `byte_offset`. Returns `None` when the range does not
    /// fit in the map or the start is not aligned for `T`.
    pub(crate) fn mapped(map: Arc<Mmap>, byte_offset: usize, len: usize) -> Option<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let end = byte_offset.checked_add(bytes)?;
        if end > map.len() || (map.as_ptr() as usize + byte_offset) % std::mem::align_of::<T>() != 0 {
            return None;
        }
        Some(Array { repr: Repr::Mapped { map, byte_offset, len } })
    }

    /// Whether the data lives in a memory-mapped file rather than on the heap.
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Repr::Mapped { .. })
    }

    /// Bytes of heap memory this array owns (0 for a mapped array, whose pages belong to the file).
    pub fn heap_bytes(&self) -> usize {
        match &self.repr {
            Repr::Owned(v) => v.len() * std::mem::size_of::<T>(),
            Repr::Mapped { .. } => 0,
        }
    }

    /// Copies the elements into a `Vec`, or takes the vector back when this array owns it alone.
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Owned(v) => Arc::try_unwrap(v).unwrap_or_else(|shared| shared.as_ref().clone()),
            Repr::Mapped { .. } => self.deref().to_vec(),
        }
    }
}

impl<T: Element> From<Vec<T>> for Array<T> {
    fn from(v: Vec<T>) -> Self {
        Array { repr: Repr::Owned(Arc::new(v)) }
    }
}

impl<T: Element> Deref for Array<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match &self.repr {
            Repr::Owned(v) => v,
            Repr::Mapped { map, byte_offset, len } => {
                // SAFETY: `mapped` checked that [byte_offset, byte_offset + len * size_of::<T>()) lies
                // inside the map and that the start is aligned for T; T is a plain number type for which
                // every bit pattern is valid (sealed `Element`); the map is read-only and kept alive by
                // the Arc for as long as this borrow of `self` lasts.
                unsafe { std::slice::from_raw_parts(map.as_ptr().add(*byte_offset).cast::<T>(), *len) }
            }
        }
    }
}

impl<T: Element + std::fmt::Debug> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().take(16)).finish()?;
        if self.len() > 16 {
            write!(f, " ({} elements)", self.len())?;
        }
        Ok(())
    }
}

impl<T: Element + PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self.deref() == other.deref()
    }
}
