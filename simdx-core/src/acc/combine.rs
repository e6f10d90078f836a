//! How the updates that reach one vertex are merged: [`CombineOp`] and the arithmetic
//! ([`Combinable`]) it needs from every value type. Shared by programs and the values' atomic cells.

/// How the updates that reach one vertex are merged. Must be commutative and associative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CombineOp {
    /// The smallest update.
    Min,
    /// The largest update.
    Max,
    /// The sum of the updates (integers wrap, as in Rust release builds).
    Sum,
    /// Bitwise or (integers only).
    Or,
    /// The program's own [`Program::combine`](super::Program::combine), applied with a compare-and-swap loop.
    Custom,
}

impl CombineOp {
    /// Combines `a` and `b` with this built-in operation (panics for [`CombineOp::Custom`]).
    #[inline]
    pub fn apply<V: Combinable>(self, a: V, b: V) -> V {
        match self {
            CombineOp::Min => V::min_of(a, b),
            CombineOp::Max => V::max_of(a, b),
            CombineOp::Sum => V::sum_of(a, b),
            CombineOp::Or => V::or_of(a, b),
            CombineOp::Custom => panic!("CombineOp::Custom has no built-in meaning; the program defines combine"),
        }
    }
}

/// Arithmetic the built-in combine operations need, for every [`Value`](super::Value) type.
pub trait Combinable: Sized {
    /// The smaller of two values (for floats, `f32::min` semantics).
    fn min_of(a: Self, b: Self) -> Self;
    /// The larger of two values.
    fn max_of(a: Self, b: Self) -> Self;
    /// The (wrapping, for integers) sum.
    fn sum_of(a: Self, b: Self) -> Self;
    /// Bitwise or; for floats, panics (an `Or` combine on floats is a program error).
    fn or_of(a: Self, b: Self) -> Self;
}

macro_rules! int_combinable {
    ($($t:ty),*) => {$(
        impl Combinable for $t {
            #[inline]
            fn min_of(a: Self, b: Self) -> Self { a.min(b) }
            #[inline]
            fn max_of(a: Self, b: Self) -> Self { a.max(b) }
            #[inline]
            fn sum_of(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline]
            fn or_of(a: Self, b: Self) -> Self { a | b }
        }
    )*};
}
int_combinable!(u32, i32, u64, i64);

macro_rules! float_combinable {
    ($($t:ty),*) => {$(
        impl Combinable for $t {
            #[inline]
            fn min_of(a: Self, b: Self) -> Self { a.min(b) }
            #[inline]
            fn max_of(a: Self, b: Self) -> Self { a.max(b) }
            #[inline]
            fn sum_of(a: Self, b: Self) -> Self { a + b }
            #[inline]
            fn or_of(_: Self, _: Self) -> Self { panic!("CombineOp::Or is not defined for floats") }
        }
    )*};
}
float_combinable!(f32, f64);
