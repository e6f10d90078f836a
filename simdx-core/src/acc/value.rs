//! [`Value`]: the scalar types a program may keep per vertex (`u32 i32 u64 i64 f32 f64`), each with an
//! atomic cell so that the CPU backend can combine updates concurrently.

use std::fmt::{Debug, Display};
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering};

use super::combine::CombineOp;
use super::device::DeviceScalar;

/// A per-vertex value: a plain scalar with an atomic cell.
pub trait Value: Copy + Send + Sync + PartialEq + PartialOrd + Debug + Display + DeviceScalar + 'static {
    /// The atomic cell holding one value.
    type Cell: AtomicCell<Self>;
    /// The value as `f64` (for convergence sums and output).
    fn to_f64(self) -> f64;
    /// Whether this is the largest value of the type (an integer's MAX, a float's +inf): printed as
    /// `inf` in outputs, meaning "unreached".
    fn is_max(self) -> bool;
    /// The value in the widest type of its kind, on the way to [`convert`].
    fn widen(self) -> Wide;
    /// `w` in this type, as Rust's `as` turns it (saturating floats to integers, rounding to nearest).
    fn narrow(w: Wide) -> Self;
}

/// A [`Value`] in the widest type of its kind: what [`convert`] passes through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wide {
    /// `u32` or `u64`.
    Unsigned(u64),
    /// `i32` or `i64`.
    Signed(i64),
    /// `f32` or `f64`.
    Float(f64),
}

/// `a` as another value type, exactly as Rust's `a as B` would convert it; the identity when `A` and
/// `B` are the same type (the compiler then removes the conversion). The engines use it where a
/// value becomes a message by default ([`crate::acc::Program::source_value`]).
#[inline]
pub fn convert<A: Value, B: Value>(a: A) -> B {
    match (&a as &dyn std::any::Any).downcast_ref::<B>() {
        Some(same) => *same,
        None => B::narrow(a.widen()),
    }
}

/// `as` from each kind of [`Wide`] to the scalar type `$t`.
macro_rules! narrow_to {
    ($t:ty) => {
        #[inline]
        fn narrow(w: Wide) -> Self {
            match w {
                Wide::Unsigned(x) => x as $t,
                Wide::Signed(x) => x as $t,
                Wide::Float(x) => x as $t,
            }
        }
    };
}

/// An atomic cell for a [`Value`], with the combine operations the engine needs.
pub trait AtomicCell<V>: Send + Sync {
    /// A cell holding `v`.
    fn new(v: V) -> Self;
    /// Reads the value.
    fn load(&self) -> V;
    /// Writes the value.
    fn store(&self, v: V);
    /// Atomically replaces the value `x` by `combine(x, v)`; returns the previous value. `op` lets
    /// integer types use native read-modify-write instructions; otherwise a compare-and-swap loop
    /// applies `combine`.
    fn combine(&self, op: CombineOp, v: V, combine: impl Fn(V, V) -> V) -> V;
    /// Writes `new` if the cell holds `current` (bit for bit); returns the value it held, `Ok` when it
    /// was `current`.
    fn compare_exchange(&self, current: V, new: V) -> Result<V, V>;
}

macro_rules! integer_value {
    ($t:ty, $atomic:ty, $wide:ident, $as:ty) => {
        impl Value for $t {
            type Cell = $atomic;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn is_max(self) -> bool {
                self == <$t>::MAX
            }
            #[inline]
            fn widen(self) -> Wide {
                Wide::$wide(self as $as)
            }
            narrow_to!($t);
        }
        impl AtomicCell<$t> for $atomic {
            #[inline]
            fn new(v: $t) -> Self {
                <$atomic>::new(v)
            }
            #[inline]
            fn load(&self) -> $t {
                <$atomic>::load(self, Ordering::Relaxed)
            }
            #[inline]
            fn store(&self, v: $t) {
                <$atomic>::store(self, v, Ordering::Relaxed)
            }
            #[inline]
            fn combine(&self, op: CombineOp, v: $t, combine: impl Fn($t, $t) -> $t) -> $t {
                match op {
                    CombineOp::Min => self.fetch_min(v, Ordering::Relaxed),
                    CombineOp::Max => self.fetch_max(v, Ordering::Relaxed),
                    CombineOp::Sum => self.fetch_add(v, Ordering::Relaxed),
                    CombineOp::Or => self.fetch_or(v, Ordering::Relaxed),
                    CombineOp::Custom => {
                        let mut old = self.load(Ordering::Relaxed);
                        loop {
                            match self.compare_exchange_weak(old, combine(old, v), Ordering::Relaxed, Ordering::Relaxed)
                            {
                                Ok(previous) => return previous,
                                Err(actual) => old = actual,
                            }
                        }
                    }
                }
            }
            #[inline]
            fn compare_exchange(&self, current: $t, new: $t) -> Result<$t, $t> {
                <$atomic>::compare_exchange(self, current, new, Ordering::Relaxed, Ordering::Relaxed)
            }
        }
    };
}

integer_value!(u32, AtomicU32, Unsigned, u64);
integer_value!(i32, AtomicI32, Signed, i64);
integer_value!(u64, AtomicU64, Unsigned, u64);
integer_value!(i64, AtomicI64, Signed, i64);

/// An atomic float stored as its bits; every combine is a compare-and-swap loop.
#[derive(Debug)]
pub struct AtomicFloat<B>(B);

macro_rules! float_value {
    ($t:ty, $bits:ty) => {
        impl Value for $t {
            type Cell = AtomicFloat<$bits>;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn is_max(self) -> bool {
                self == <$t>::INFINITY
            }
            #[inline]
            fn widen(self) -> Wide {
                Wide::Float(self as f64)
            }
            narrow_to!($t);
        }
        impl AtomicCell<$t> for AtomicFloat<$bits> {
            #[inline]
            fn new(v: $t) -> Self {
                AtomicFloat(<$bits>::new(v.to_bits()))
            }
            #[inline]
            fn load(&self) -> $t {
                <$t>::from_bits(self.0.load(Ordering::Relaxed))
            }
            #[inline]
            fn store(&self, v: $t) {
                self.0.store(v.to_bits(), Ordering::Relaxed)
            }
            #[inline]
            fn combine(&self, _op: CombineOp, v: $t, combine: impl Fn($t, $t) -> $t) -> $t {
                let mut old = self.0.load(Ordering::Relaxed);
                loop {
                    let new = combine(<$t>::from_bits(old), v).to_bits();
                    if new == old {
                        return <$t>::from_bits(old);
                    }
                    match self.0.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                        Ok(previous) => return <$t>::from_bits(previous),
                        Err(actual) => old = actual,
                    }
                }
            }
            #[inline]
            fn compare_exchange(&self, current: $t, new: $t) -> Result<$t, $t> {
                self.0
                    .compare_exchange(current.to_bits(), new.to_bits(), Ordering::Relaxed, Ordering::Relaxed)
                    .map(<$t>::from_bits)
                    .map_err(<$t>::from_bits)
            }
        }
    };
}

float_value!(f32, AtomicU32);
float_value!(f64, AtomicU64);

#[cfg(test)]
mod tests {
    use super::convert;

    #[test]
    fn convert_is_rusts_as() {
        assert_eq!(convert::<f64, f32>(0.1), 0.1f64 as f32);
        assert_eq!(convert::<f64, u32>(-3.7), 0);
        assert_eq!(convert::<f64, u32>(1e12), u32::MAX);
        assert_eq!(convert::<i32, u32>(-5), -5i32 as u32);
        assert_eq!(convert::<u64, i32>(u64::MAX), -1);
        assert_eq!(convert::<i64, f32>(i64::MAX), i64::MAX as f32);
        assert_eq!(convert::<u64, u64>(u64::MAX - 1), u64::MAX - 1);
        assert!(convert::<f32, f32>(f32::NAN).is_nan());
        assert_eq!(convert::<f32, f32>(-0.0).to_bits(), (-0.0f32).to_bits());
    }
}
