//! The proof, without a GPU, that the CUDA C which `#[graph_kernel]` emits is the same function as the
//! Rust it comes from.
//!
//! For every program — the library's `Bfs`, `Sssp` and `PageRank`, and five test-only programs below
//! (`I32Mix`, `F64Mix`, `U64Bits`, `I64Arith`, `F32Mix`: every scalar type as Value, and between them
//! the whole kernel subset) — this test builds one C translation unit (`HOST_SHIM` +
//! `device_unit::<P>()` + a generated harness `main`), compiles it with the system C compiler
//! (`cc -std=c11 -O1 -ffp-contract=off -Wall -Werror`, into a temporary directory), checks that the
//! device code is valid C++ too (`c++ -fsyntax-only`, where one is installed), and feeds the harness
//! random inputs: 8 parameter sets x 500 calls for each of init, active, source_value, compute, combine,
//! apply, global, can_update, bucket and done (40,000 calls a program). The inputs mix integer
//! MIN/MAX/0/±1/bit widths and their neighbours, infinities, NaNs (quiet and signaling, with payloads
//! and either sign), ±0, subnormals, floats within a few ulps of the float-to-int limits, small numbers
//! and raw random bits. The harness fills `simdx_params` from `device_params()` bytes (and checks
//! their size), calls every `simdx_<fn>` and prints the results' bits, which must equal the Rust
//! functions' bits exactly (see [`same`] for NaNs and [`compare`] for the zero of a float min/max).
//!
//! Inputs on which the Rust function panics (division by zero, `i32::MIN / -1`, a `clamp` with bad
//! bounds, and — in this debug test profile — arithmetic overflow and over-wide shifts) are left out:
//! C has no defined result for them, and Rust has none to compare with. [`prelude_helpers_match_rust`]
//! checks the wrapping, masking, saturating and converting helpers behind those operators directly
//! against Rust's `wrapping_*`, `saturating_*` and `as` (1,000 calls each).
//!
//! Transcendental functions (`exp`, `ln`, `powf`, ...) are library calls on both sides here (glibc's),
//! so they agree; the test avoids `powf` with a constant `0.5` exponent, which LLVM rewrites into
//! `sqrt` and gcc does not. On a GPU those functions are CUDA's and may differ in the last bits.
//!
//! The snapshot tests pin the CUDA C of `Bfs`, `Sssp` and `PageRank` in `tests/snapshots/*.cu`;
//! `SIMDX_UPDATE_SNAPSHOTS=1 cargo test --test programs device_code` rewrites them after a deliberate
//! change of the generator (read the diff).
//!
//! A missing C compiler fails the test (a skipped proof is no proof) unless `SIMDX_SKIP_HOST_CC=1`.
//! `CC` names another compiler than `cc`; `SIMDX_HOST_C_DIR=dir` keeps the generated C sources there.

// The test programs spell things the way a kernel may (unsimplified conditions, `a | b..=c` patterns,
// mixed-precedence shifts, min-then-max), to exercise the macro's translation of each form.
#![allow(clippy::precedence, clippy::manual_range_patterns, clippy::nonminimal_bool, clippy::manual_clamp)]

use std::cell::Cell;
use std::fmt::{Debug, Write as _};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Once;

use simdx::acc::device::{device_unit, DeviceProgram, HOST_SHIM};
use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx::graph_kernel;
use simdx_algos::{Bfs, PageRank, Sssp};

// ---------------------------------------------------------------------------------------------------
// Test-only programs: together they use every scalar type as Value, and the whole accepted subset.
// ---------------------------------------------------------------------------------------------------

/// An outside constant read by kernel code.
const LIMIT: i32 = 1 << 20;
/// Another one, of a 64-bit type.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// i32 values: wrapping, signed division and remainder, shifts, `match` with ranges and `|`, casts
/// from every type, a `bool` field, a bounded loop.
#[derive(Debug, Clone, Copy)]
struct I32Mix {
    shift: u32,
    bias: i64,
    scale: f32,
    flag: bool,
    cap: i32,
}

#[graph_kernel]
impl Program for I32Mix {
    type Value = i32;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Max;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Received;
    const IDENTITY: i32 = i32::MIN;
    const UNSEEN: i32 = i32::MIN;

    fn init(&self, v: Vertex) -> i32 {
        // Fields whose only uses are casts need their type said once (kernel code infers it from uses).
        let bias: i64 = self.bias;
        let scale: f32 = self.scale;
        match v.id % 16 {
            0 => i32::MAX,
            1 | 2 => -(v.out_degree as i32),
            3..=5 => (v.in_degree as i32).wrapping_mul(-7),
            6..10 => v.num_vertices as i32 >> (v.id % 40),
            10 | 11..=13 => (bias as i32).wrapping_sub(v.id as i32) ^ LIMIT,
            x if x > 14 && self.flag => x as i32 + -2147483648,
            _ => (scale as i32).wrapping_add(bias as f32 as i32),
        }
    }

    fn active(&self, now: i32, seen: i32) -> bool {
        now != seen && (now >= -LIMIT || seen == i32::MIN || seen == -2147483647 - 1)
    }

    fn source_value(&self, v: Vertex, value: i32, sent: i32) -> i32 {
        value.wrapping_mul(v.in_degree as i32) - (v.id as i32) - sent / 2
    }

    fn compute(&self, e: Edge<i32, u32>) -> i32 {
        let w = e.weight as i32;
        match e.src_out_degree % 8 {
            0 => e.dst / (w | 1),
            1 => e.src % (w | 1),
            2 => e.src / e.dst,
            3 => e.src.wrapping_add(w).wrapping_mul(3) - e.dst,
            4 => (e.src_out_degree as i32) << (e.weight % 40),
            5 => {
                if self.flag {
                    e.src ^ !w
                } else {
                    e.src.saturating_sub(e.dst).saturating_add(w)
                }
            }
            6 => e.src * w + e.dst.abs(),
            _ => -e.src >> (self.shift % 32u32) | e.dst & 0x0f0f,
        }
    }

    fn apply(&self, _v: Vertex, old: i32, combined: i32, global: f64) -> i32 {
        let g = global as i32;
        let x = combined.clamp(-self.cap.abs(), self.cap.abs());
        let mut acc = old;
        for i in 0..4 {
            acc = acc.wrapping_mul(31).wrapping_add(i);
        }
        acc <<= 1;
        acc -= 1;
        acc %= 100_000;
        acc *= 3;
        acc /= -7;
        acc >>= 2;
        let acc = acc;
        acc.wrapping_add(x).wrapping_sub(g).min(i32::MAX - 1).max(i32::MIN + 1)
    }

    const USES_GLOBAL: bool = true;

    fn global(&self, v: Vertex, value: i32, sent: i32) -> f64 {
        if v.out_degree == 0 {
            (value as f64 - sent as f64) * std::f64::consts::PI
        } else {
            (value as f64).sqrt()
        }
    }

    fn can_update(&self, value: i32) -> bool {
        value < i32::MAX && value != LIMIT && value != Self::IDENTITY
    }

    fn bucket(&self, value: i32) -> u32 {
        let class = match value {
            i32::MIN..=-1000 => 10,
            -999..=-8 | -6..=-1 => 20,
            -7 => 30,
            0 => 40,
            1..=i32::MAX => 50,
        };
        class + (value as u32).leading_zeros() + (value >> (self.shift % 32)) as u32 % 7
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        iterations as f64 * self.scale as f64 > change || change.is_nan()
    }
}

/// f64 values with f32 weights: float methods, saturating float-to-int casts, a custom combine,
/// constants of the float types, `-0.0`.
#[derive(Debug, Clone, Copy)]
struct F64Mix {
    alpha: f64,
    beta: f32,
    limit: u64,
    k: i64,
}

#[graph_kernel]
impl Program for F64Mix {
    type Value = f64;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Custom;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = f64::NEG_INFINITY;
    const UNSEEN: f64 = f64::NAN;
    const USES_GLOBAL: bool = true;

    fn init(&self, v: Vertex) -> f64 {
        let x = v.id as f64 / self.alpha;
        match v.id % 6 {
            0 => f64::INFINITY,
            1 => x.sqrt().ln(),
            2 => (x * std::f64::consts::PI).floor() + self.k as f64,
            3 => f64::NAN,
            4 => x.exp() * f64::EPSILON - f64::MIN_POSITIVE,
            _ => -0.0,
        }
    }

    fn active(&self, now: f64, seen: f64) -> bool {
        !(now == seen) && !now.is_nan() || now.is_finite() != seen.is_finite()
    }

    fn compute(&self, e: Edge<f64, f32>) -> f64 {
        let w = e.weight as f64;
        let sel = e.src_out_degree % 8;
        if sel == 0 {
            e.src.mul_add(w, e.dst)
        } else if sel == 1 {
            e.src.powf(w) + 2.0f64.powf(e.dst)
        } else if sel == 2 {
            (e.src + w).exp() - 1.0
        } else if sel == 3 {
            e.src.round() * e.dst.abs().sqrt()
        } else if sel == 4 {
            e.src.clamp(-1.0, w.abs())
        } else if sel == 5 {
            e.src.min(e.dst).max(w) % 3.5
        } else if sel == 6 {
            (e.src as i64 as f64) + (e.dst as u64 as f64) + (e.src as i32 as f64) + (e.dst as u32 as f64)
        } else {
            -e.src.ln() / f64::MAX + f64::max(e.dst.floor(), -1.0) * std::f64::consts::E
        }
    }

    fn combine(&self, a: f64, b: f64) -> f64 {
        if a.is_finite() && b.is_finite() {
            a + b
        } else {
            a.max(b)
        }
    }

    fn apply(&self, v: Vertex, old: f64, combined: f64, global: f64) -> f64 {
        let d = (combined - old).abs();
        if d < self.alpha {
            old
        } else {
            let beta: f32 = self.beta;
            combined.mul_add(beta as f64, global) / (v.in_degree as f64 + 1.0)
        }
    }

    fn global(&self, v: Vertex, value: f64, _sent: f64) -> f64 {
        value * v.out_degree as f64
    }

    fn can_update(&self, value: f64) -> bool {
        !value.is_nan() && value < f64::MAX
    }

    fn bucket(&self, value: f64) -> u32 {
        (value / self.alpha) as u32
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        change.abs() <= self.alpha || iterations as u64 >= self.limit || (change as i64) == self.k
    }
}

/// u64 values, unweighted, voting `Or` combine: bit counts, saturating and wrapping arithmetic,
/// inclusive and exclusive loops with `break` and `continue`, `if` as an expression.
#[derive(Debug, Clone, Copy)]
struct U64Bits {
    mask: u64,
    rounds: u32,
}

#[graph_kernel]
impl Program for U64Bits {
    type Value = u64;
    type Weight = ();
    const OP: CombineOp = CombineOp::Or;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u64 = 0;
    const UNSEEN: u64 = 0;

    fn init(&self, v: Vertex) -> u64 {
        let x = (v.id as u64) << 32 | v.num_vertices as u64;
        let mut h = x ^ self.mask;
        for i in 0..=3u64 {
            h = h.wrapping_mul(GOLDEN).wrapping_add(i);
            h ^= h >> 29;
        }
        h
    }

    fn active(&self, now: u64, seen: u64) -> bool {
        now & !seen != 0
    }

    fn compute(&self, e: Edge<u64, ()>) -> u64 {
        if e.src & 0xff == 0x2a {
            return std::cmp::max(e.src, e.dst);
        }
        let c = e.src.count_ones() as u64;
        let l = e.src.leading_zeros();
        let t = e.dst.trailing_zeros();
        match c {
            0 => u64::MAX,
            1..=8 | 60..=64 => e.src.saturating_add(e.dst) >> (l % 64),
            9 | 10 => e.src + e.dst,
            _ => e.src.saturating_sub(e.dst).wrapping_mul(c) | (t as u64) << 58,
        }
    }

    fn can_update(&self, value: u64) -> bool {
        value != u64::MAX
    }

    fn bucket(&self, value: u64) -> u32 {
        let big = if value as f32 > 1e18 { 1 } else { 0 };
        (value % 1000) as u32 + (value as f64 >= 1e19) as u32 + big + (value as i32) as u32 % 3
            - (value as u32).leading_zeros() % u32::BITS
            + (value as u32).leading_zeros()
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        let mut k = 0u32;
        for i in 0..self.rounds {
            if i > 12 {
                break;
            }
            if i % 3 == 1 {
                continue;
            }
            k += i;
        }
        iterations == k || change == 0.0
    }
}

/// i64 values with f32 weights: signed division and remainder, negation, shifts, clamp, casts.
#[derive(Debug, Clone, Copy)]
struct I64Arith {
    step: i64,
    ratio: f32,
    top: u32,
}

#[graph_kernel]
impl Program for I64Arith {
    type Value = i64;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: i64 = i64::MAX;
    const UNSEEN: i64 = i64::MAX;

    fn init(&self, v: Vertex) -> i64 {
        if v.id < self.top {
            v.id as i64 * -3
        } else {
            i64::MAX
        }
    }

    fn active(&self, now: i64, seen: i64) -> bool {
        now < seen
            || now != seen && {
                let d = seen.wrapping_sub(now);
                d.count_ones() == 1
            }
    }

    fn compute(&self, e: Edge<i64, f32>) -> i64 {
        let w = e.weight;
        let q = w as i64;
        match e.src_out_degree % 7 {
            0 => e.src.wrapping_add(q).wrapping_mul(self.step),
            1 => e.src / q,
            2 => e.src % (e.dst | 1),
            3 => -e.src >> (e.src_out_degree % 64),
            4 => ((e.src as f64) * (w as f64)) as i64 ^ (w as u64 as i64),
            5 => (e.src as i32 as i64) - (e.dst as u32 as i64) + (w as i32 as i64),
            _ => (e.src as f32 * w) as i64 + e.dst.min(q).max(-q) << 1,
        }
    }

    fn apply(&self, _v: Vertex, old: i64, combined: i64, global: f64) -> i64 {
        if combined == i64::MAX {
            old
        } else {
            old.min(combined).saturating_sub(global as i64).clamp(-self.step.abs(), self.step.abs())
        }
    }

    fn global(&self, v: Vertex, value: i64, sent: i64) -> f64 {
        (value as f64 + sent as f64) / v.num_vertices as f64
    }

    fn can_update(&self, value: i64) -> bool {
        value > i64::MIN
    }

    fn bucket(&self, value: i64) -> u32 {
        (value as u64).leading_zeros() + value.count_ones() + value.trailing_zeros() * 2
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        let ratio: f32 = self.ratio;
        iterations >= self.top || change < ratio as f64
    }
}

/// f32 values and weights: the f32 methods, float remainder, float-to-int casts from f32.
#[derive(Debug, Clone, Copy)]
struct F32Mix {
    a: f32,
    b: f64,
    n: i32,
}

#[graph_kernel]
impl Program for F32Mix {
    type Value = f32;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: f32 = f32::INFINITY;
    const UNSEEN: f32 = f32::INFINITY;

    fn init(&self, v: Vertex) -> f32 {
        if v.id == 0 {
            0.0
        } else {
            f32::INFINITY
        }
    }

    fn active(&self, now: f32, seen: f32) -> bool {
        now < seen || now.is_nan() != seen.is_nan()
    }

    fn source_value(&self, v: Vertex, value: f32, sent: f32) -> f32 {
        if v.out_degree == 0 {
            value
        } else {
            (value - sent) / v.out_degree as f32
        }
    }

    fn compute(&self, e: Edge<f32, f32>) -> f32 {
        let x = e.src;
        let w = e.weight;
        match e.src_out_degree % 10 {
            0 => x.floor() + w.ceil() - x.trunc() * w.round() + 2.5e3f32 * 1_000.5 - 16777217.0,
            1 => x.sqrt() + w.exp(),
            // A variable exponent: LLVM (so Rust) rewrites `powf(x, 0.5)` into `sqrt` and gcc keeps the
            // library call, so the two disagree in the last bit for a constant 0.5 (see the module doc).
            2 => x.ln() * w.powf(e.dst),
            3 => x.mul_add(w, e.dst),
            4 => x.signum() * w.recip() + x.abs().hypot(w),
            5 => x % w,
            6 => x.clamp(-self.a.abs(), self.a.abs()),
            7 => (x as u32 as f32) + (x as i32 as f32) + (x as u64 as f32) + (x as i64 as f32),
            8 => {
                let t = if w.is_infinite() { f32::MAX } else { w * std::f32::consts::PI };
                x.min(t).max(-t) - f32::MIN_POSITIVE
            }
            _ => {
                let n: i32 = self.n;
                (x as f64 * self.b) as f32 + n as f32 / 3.0
            }
        }
    }

    fn bucket(&self, value: f32) -> u32 {
        (value * self.a) as u32
    }

    fn can_update(&self, value: f32) -> bool {
        value.is_finite() && value > -1e30
    }
}

// ---------------------------------------------------------------------------------------------------
// Random inputs.
// ---------------------------------------------------------------------------------------------------

/// xorshift64*: a small deterministic generator, so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// Random bits of a random width, so that small and large magnitudes both occur.
    fn wide(&mut self) -> u64 {
        let shift = self.below(64) as u32;
        self.next() >> shift
    }
}

/// A type that crosses to the C harness as raw bits (zero-extended to 64).
trait Bits: Copy + Debug + 'static {
    /// 32 or 64 for floats (whose NaNs compare as a class), 0 otherwise.
    const FLOAT_WIDTH: u32;
    /// The type's name in the helper harness's conversion functions (`in_i32`, `out_i32`).
    const TAG: &'static str;
    fn to_bits64(self) -> u64;
    fn gen(rng: &mut Rng) -> Self;
}

impl Bits for () {
    const FLOAT_WIDTH: u32 = 0;
    const TAG: &'static str = "unit";
    fn to_bits64(self) -> u64 {
        0
    }
    fn gen(_: &mut Rng) -> Self {}
}

impl Bits for bool {
    const FLOAT_WIDTH: u32 = 0;
    const TAG: &'static str = "bool";
    fn to_bits64(self) -> u64 {
        self as u64
    }
    fn gen(rng: &mut Rng) -> Self {
        rng.next() & 1 == 1
    }
}

macro_rules! int_bits {
    ($($t:ty, $u:ty);*) => {$(
        impl Bits for $t {
            const FLOAT_WIDTH: u32 = 0;
            const TAG: &'static str = stringify!($t);
            fn to_bits64(self) -> u64 {
                self as $u as u64
            }
            fn gen(rng: &mut Rng) -> Self {
                const SPECIAL: &[$t] = &[
                    0, 1, 2, 3, 7, 31, 32, 33, 63, 64, <$t>::MAX, <$t>::MAX - 1, <$t>::MIN,
                    <$t>::MIN.wrapping_add(1), <$t>::MAX / 2, <$t>::MAX / 2 + 1, 1000, 1 << 20,
                    (0 as $t).wrapping_sub(1), (0 as $t).wrapping_sub(2), (0 as $t).wrapping_sub(1 << 20),
                ];
                match rng.below(10) {
                    0..=2 => rng.pick(SPECIAL),
                    3..=4 => rng.below(200) as $t,
                    5 => (rng.below(200) as $t).wrapping_neg(),
                    _ => rng.wide() as $t,
                }
            }
        }
    )*};
}
int_bits!(u32, u32; i32, u32; u64, u64; i64, u64);

macro_rules! float_bits {
    ($($t:ident, $u:ty, $w:expr);*) => {$(
        impl Bits for $t {
            const FLOAT_WIDTH: u32 = $w;
            const TAG: &'static str = stringify!($t);
            fn to_bits64(self) -> u64 {
                self.to_bits() as u64
            }
            fn gen(rng: &mut Rng) -> Self {
                let special: &[$t] = &[
                    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.1, 1e-3, 1e30, -1e30,
                    $t::INFINITY, $t::NEG_INFINITY, $t::NAN, -$t::NAN, $t::from_bits(1), $t::from_bits(!0 >> 1),
                    $t::MIN_POSITIVE, $t::from_bits(<$t>::MIN_POSITIVE.to_bits() - 1), $t::MAX, $t::MIN,
                    $t::EPSILON, std::$t::consts::PI, 100.0, -100.0,
                ];
                // Near the float-to-int limits: the bounds and a few ulps either side.
                let limits: &[$t] = &[
                    i32::MAX as $t, i32::MIN as $t, i32::MIN as $t - 1.0, u32::MAX as $t, i64::MAX as $t,
                    i64::MIN as $t, u64::MAX as $t, -1.0, 1.0,
                ];
                match rng.below(12) {
                    0..=2 => rng.pick(special),
                    3..=4 => {
                        let b = rng.pick(limits).to_bits() as i64 + rng.below(9) as i64 - 4;
                        $t::from_bits(b as $u)
                    }
                    5 => (rng.below(2001) as i64 - 1000) as $t / rng.pick(&[1.0, 2.0, 4.0, 10.0]),
                    6 => $t::from_bits(rng.next() as $u | (0x7ffu64 << ($w - 12)) as $u), // NaNs and infinities
                    7 => $t::from_bits((rng.next() >> (64 - $w + 9)) as $u), // subnormals and tiny values
                    _ => $t::from_bits(rng.next() as $u),
                }
            }
        }
    )*};
}
float_bits!(f32, u32, 32; f64, u64, 64);

thread_local! {
    /// The length of the per-vertex arrays of the program under test (vertex ids stay below it).
    static ID_BOUND: Cell<Option<u32>> = const { Cell::new(None) };
}

fn vertex(rng: &mut Rng) -> Vertex {
    let id = match ID_BOUND.with(Cell::get) {
        Some(bound) => rng.below(u64::from(bound.max(1))) as u32,
        None => u32::gen(rng),
    };
    Vertex { id, out_degree: u32::gen(rng), in_degree: u32::gen(rng), num_vertices: u32::gen(rng) }
}

fn vertex_c(v: &Vertex) -> String {
    format!("{:x} {:x} {:x} {:x}", v.id, v.out_degree, v.in_degree, v.num_vertices)
}

// ---------------------------------------------------------------------------------------------------
// The harness.
// ---------------------------------------------------------------------------------------------------

/// The C `main` that follows the program's code: reads one call per line (a tag, then the arguments'
/// bits in hex), prints the result's bits in hex. `S n b0 .. bn-1` sets the parameters from bytes.
const HARNESS_MAIN: &str = r#"
#include <stdio.h>
#include <stdlib.h>
static simdx_params sx_p;
static unsigned char sx_raw[512];
static unsigned long long rd(void) {
    unsigned long long x;
    if (scanf("%llx", &x) != 1) { fprintf(stderr, "harness: malformed input\n"); exit(3); }
    return x;
}
static simdx_value rv(void) { unsigned long long b = rd(); simdx_value v; memcpy(&v, &b, sizeof v); return v; }
static simdx_msg rm(void) { unsigned long long b = rd(); simdx_msg m; memcpy(&m, &b, sizeof m); return m; }
static simdx_weight rw(void) { unsigned long long b = rd(); simdx_weight w; memcpy(&w, &b, sizeof w); return w; }
static simdx_f64 rf(void) { unsigned long long b = rd(); simdx_f64 v; memcpy(&v, &b, sizeof v); return v; }
static simdx_vertex rvx(void) {
    simdx_vertex v;
    v.id = (simdx_u32)rd();
    v.out_degree = (simdx_u32)rd();
    v.in_degree = (simdx_u32)rd();
    v.num_vertices = (simdx_u32)rd();
    return v;
}
static void pv(simdx_value v) { unsigned long long b = 0; memcpy(&b, &v, sizeof v); printf("%llx\n", b); }
static void pm(simdx_msg m) { unsigned long long b = 0; memcpy(&b, &m, sizeof m); printf("%llx\n", b); }
static void pf(simdx_f64 v) { unsigned long long b = 0; memcpy(&b, &v, sizeof v); printf("%llx\n", b); }
static void pb(bool b) { printf("%x\n", b ? 1u : 0u); }
int main(void) {
    char tag[8];
    while (scanf("%7s", tag) == 1) {
        switch (tag[0]) {
        case 'S': {
            unsigned long long n = rd();
            if (n != sizeof(simdx_params) || n > sizeof sx_raw) {
                fprintf(stderr, "harness: device_params() gave %llu bytes, sizeof(simdx_params) is %zu\n", n,
                        sizeof(simdx_params));
                return 4;
            }
            for (unsigned long long i = 0; i < n; i++) sx_raw[i] = (unsigned char)rd();
            memcpy(&sx_p, sx_raw, sizeof sx_p);
            break;
        }
        case 'R': {
            /* A per-vertex array: its bytes, whose address goes at a byte offset of the parameters. */
            unsigned long long at = rd(), n = rd();
            unsigned char* data = (unsigned char*)malloc(n ? (size_t)n : 1);
            for (unsigned long long i = 0; i < n; i++) data[i] = (unsigned char)rd();
            if (at + sizeof data > sizeof(simdx_params)) { fprintf(stderr, "harness: bad array offset\n"); return 6; }
            for (size_t k = 0; k < sizeof data; k++) sx_raw[(at + k) % sizeof sx_raw] = ((unsigned char*)&data)[k];
            memcpy(&sx_p, sx_raw, sizeof sx_p);
            break;
        }
        case 'I': { simdx_vertex v = rvx(); pv(simdx_init(&sx_p, v)); break; }
        case 'A': { simdx_value a = rv(); simdx_value b = rv(); pb(simdx_active(&sx_p, a, b)); break; }
        case 'C': {
            simdx_edge e;
            e.src = rm();
            e.dst = rv();
            e.weight = rw();
            e.src_out_degree = (simdx_u32)rd();
            pv(simdx_compute(&sx_p, e));
            break;
        }
        case 'M': { simdx_value a = rv(); simdx_value b = rv(); pv(simdx_combine(&sx_p, a, b)); break; }
        case 'P': {
            simdx_vertex v = rvx();
            simdx_value o = rv();
            simdx_value c = rv();
            simdx_f64 g = rf();
            pv(simdx_apply(&sx_p, v, o, c, g));
            break;
        }
        case 'G': { simdx_vertex v = rvx(); simdx_value x = rv(); simdx_value y = rv(); pf(simdx_global(&sx_p, v, x, y)); break; }
        case 'V': { simdx_vertex v = rvx(); simdx_value x = rv(); simdx_value y = rv(); pm(simdx_source_value(&sx_p, v, x, y)); break; }
        case 'U': { simdx_value x = rv(); pb(simdx_can_update(&sx_p, x)); break; }
        case 'B': { simdx_value x = rv(); printf("%x\n", (unsigned)simdx_bucket(&sx_p, x)); break; }
        case 'D': { simdx_u32 it = (simdx_u32)rd(); simdx_f64 ch = rf(); pb(simdx_done(&sx_p, it, ch)); break; }
        default: fprintf(stderr, "harness: unknown tag %s\n", tag); return 5;
        }
    }
    return 0;
}
"#;

/// One call: the harness line, the Rust result's bits, and how to read them.
struct Case {
    line: String,
    what: String,
    expected: u64,
    float_width: u32,
}

/// Equal results: the same bits, or two NaNs of the same width. Rust (like IEEE 754 and LLVM) does not
/// specify the sign or payload of a NaN produced by arithmetic, and a GPU returns its own canonical NaN
/// (`0x7fffffff`) where x86 returns the "default NaN" with the sign bit set; only NaN-ness is defined.
fn same(expected: u64, got: u64, float_width: u32) -> bool {
    expected == got
        || match float_width {
            32 => f32::from_bits(expected as u32).is_nan() && f32::from_bits(got as u32).is_nan() && got >> 32 == 0,
            64 => f64::from_bits(expected).is_nan() && f64::from_bits(got).is_nan(),
            _ => false,
        }
}

thread_local! {
    /// Set while a Rust function runs on an input that may panic: the panic is expected, not reported.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, returning `None` if it panics (the input is then left out).
fn try_rust<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info)
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r.ok()
}

/// Collects the calls of one program.
struct Calls {
    cases: Vec<Case>,
    /// The harness input: the calls' lines, with `S ...` lines that set the parameters between them.
    script: String,
    /// Inputs left out because the Rust function panics on them.
    excluded: usize,
}

impl Calls {
    fn push<T: Bits>(&mut self, line: String, what: impl FnOnce() -> String, result: Option<T>) {
        match result {
            Some(r) => {
                self.script.push_str(&line);
                self.script.push('\n');
                self.cases.push(Case { line, what: what(), expected: r.to_bits64(), float_width: T::FLOAT_WIDTH });
            }
            None => self.excluded += 1,
        }
    }
}

/// Calls of every function of `P` on `per_fn` random inputs for each of the program instances.
fn calls<P>(instances: &[P], per_fn: usize, rng: &mut Rng) -> Calls
where
    P: Program + DeviceProgram,
    P::Value: Bits,
    P::Message: Bits,
    P::Weight: Bits,
{
    let mut c = Calls { cases: Vec::new(), script: String::new(), excluded: 0 };
    for p in instances {
        // Each array's address goes where a distinctive stand-in address lands in the parameters.
        let arrays = p.vertex_arrays();
        let stand_ins: Vec<u64> = (0..arrays.len() as u64).map(|k| 0x5eed_0000_0000_0000 | (k << 3)).collect();
        let params = p.device_params(&stand_ins);
        let _ = write!(c.script, "S {:x}", params.len());
        for b in &params {
            let _ = write!(c.script, " {b:x}");
        }
        c.script.push('\n');
        for (a, stand_in) in arrays.iter().zip(&stand_ins) {
            let at = params.windows(8).position(|w| w == stand_in.to_le_bytes()).expect("each array has an address");
            let _ = write!(c.script, "R {at:x} {:x}", a.bytes.len());
            for b in a.bytes {
                let _ = write!(c.script, " {b:x}");
            }
            c.script.push('\n');
        }
        ID_BOUND.with(|b| b.set(arrays.iter().map(|a| a.len as u32).min()));
        let val = |rng: &mut Rng| P::Value::gen(rng);
        let msg = |rng: &mut Rng| P::Message::gen(rng);
        for _ in 0..per_fn {
            let v = vertex(rng);
            c.push(format!("I {}", vertex_c(&v)), || format!("init({v:?})"), try_rust(|| p.init(v)));

            let (now, seen) = (val(rng), val(rng));
            let line = format!("A {:x} {:x}", now.to_bits64(), seen.to_bits64());
            c.push(line, || format!("active({now:?}, {seen:?})"), try_rust(|| p.active(now, seen)));

            let e = Edge { src: msg(rng), dst: val(rng), weight: P::Weight::gen(rng), src_out_degree: u32::gen(rng) };
            let line = format!(
                "C {:x} {:x} {:x} {:x}",
                e.src.to_bits64(),
                e.dst.to_bits64(),
                e.weight.to_bits64(),
                e.src_out_degree
            );
            c.push(line, || format!("compute({e:?})"), try_rust(|| p.compute(e)));

            let (a, b) = (val(rng), val(rng));
            let line = format!("M {:x} {:x}", a.to_bits64(), b.to_bits64());
            c.push(line, || format!("combine({a:?}, {b:?})"), try_rust(|| p.combine(a, b)));

            let (v, old, comb, global) = (vertex(rng), val(rng), val(rng), f64::gen(rng));
            let line =
                format!("P {} {:x} {:x} {:x}", vertex_c(&v), old.to_bits64(), comb.to_bits64(), global.to_bits());
            let what = || format!("apply({v:?}, {old:?}, {comb:?}, {global:?})");
            c.push(line, what, try_rust(|| p.apply(v, old, comb, global)));

            let (v, x, y) = (vertex(rng), val(rng), val(rng));
            let line = format!("G {} {:x} {:x}", vertex_c(&v), x.to_bits64(), y.to_bits64());
            c.push(line, || format!("global({v:?}, {x:?}, {y:?})"), try_rust(|| p.global(v, x, y)));

            let (v, x, y) = (vertex(rng), val(rng), val(rng));
            let line = format!("V {} {:x} {:x}", vertex_c(&v), x.to_bits64(), y.to_bits64());
            c.push(line, || format!("source_value({v:?}, {x:?}, {y:?})"), try_rust(|| p.source_value(v, x, y)));

            let x = val(rng);
            c.push(format!("U {:x}", x.to_bits64()), || format!("can_update({x:?})"), try_rust(|| p.can_update(x)));

            let x = val(rng);
            c.push(format!("B {:x}", x.to_bits64()), || format!("bucket({x:?})"), try_rust(|| p.bucket(x)));

            let (it, ch) = (u32::gen(rng), f64::gen(rng));
            let line = format!("D {it:x} {:x}", ch.to_bits());
            c.push(line, || format!("done({it}, {ch:?})"), try_rust(|| p.done(it, ch)));
        }
    }
    ID_BOUND.with(|b| b.set(None));
    c
}

/// The C compiler, or `None` when it is missing and `SIMDX_SKIP_HOST_CC=1` allows that.
fn compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    match Command::new(&cc).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(_) => Some(cc),
        Err(e) => {
            if std::env::var("SIMDX_SKIP_HOST_CC").as_deref() == Ok("1") {
                eprintln!("device_code_host: no C compiler `{cc}` ({e}); skipped because SIMDX_SKIP_HOST_CC=1");
                None
            } else {
                panic!(
                    "device_code_host needs a C compiler to prove that the device code matches the Rust code, and \
                     `{cc}` could not be run ({e}). Install one (e.g. `apt-get install gcc`), name it with CC=..., \
                     or set SIMDX_SKIP_HOST_CC=1 to skip this proof."
                )
            }
        }
    }
}

/// Compiles `source` into `dir/name`, panicking with the compiler's log (and numbered source) on error.
fn compile(cc: &str, dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&src, source).expect("write the C source");
    if let Ok(keep) = std::env::var("SIMDX_HOST_C_DIR") {
        std::fs::create_dir_all(&keep).expect("create SIMDX_HOST_C_DIR");
        std::fs::write(Path::new(&keep).join(format!("{name}.c")), source).expect("keep the C source");
    }
    let out = Command::new(cc)
        .args(["-std=c11", "-O1", "-ffp-contract=off", "-Wall", "-Werror", "-Wno-unused-variable", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg("-lm")
        .output()
        .expect("run the C compiler");
    if !out.status.success() {
        let numbered: String = source.lines().enumerate().map(|(i, l)| format!("{:5} {l}\n", i + 1)).collect();
        panic!(
            "the C of `{name}` does not compile:\n{}\n--- source ---\n{numbered}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    exe
}

/// Checks that the device code is also valid C++ (CUDA C is C++): `c++ -fsyntax-only`, or `CXX`. A
/// missing C++ compiler only skips this check; the C one is the proof.
fn check_cxx(name: &str, dir: &Path, unit: &str) {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if Command::new(&cxx).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_err() {
        eprintln!("{name}: no C++ compiler `{cxx}`; the device code was not checked as C++");
        return;
    }
    let src = dir.join(format!("{name}.cpp"));
    std::fs::write(&src, unit).expect("write the C++ source");
    let out = Command::new(&cxx)
        .args(["-x", "c++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-variable"])
        .arg(&src)
        .output()
        .expect("run the C++ compiler");
    assert!(
        out.status.success(),
        "the device code of `{name}` is not valid C++:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the harness on `script`; returns its output lines.
fn run_harness(exe: &Path, dir: &Path, script: &str) -> Vec<String> {
    let input = dir.join(format!("{}.in", exe.file_name().unwrap().to_string_lossy()));
    std::fs::write(&input, script).expect("write the test vectors");
    let out = Command::new(exe)
        .stdin(std::fs::File::open(&input).expect("open the test vectors"))
        .output()
        .expect("run the harness");
    assert!(out.status.success(), "the harness failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("ASCII output").lines().map(str::to_string).collect()
}

/// The differential test of one program: Rust and the generated C on the same inputs.
fn differential<P>(name: &str, instances: &[P], min_max_zero: bool, seed: u64)
where
    P: Program + DeviceProgram,
    P::Value: Bits,
    P::Message: Bits,
    P::Weight: Bits,
{
    let Some(cc) = compiler() else { return };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let unit = format!("{HOST_SHIM}\n{}\n{HARNESS_MAIN}", device_unit::<P>());
    let exe = compile(&cc, dir.path(), name, &unit);
    check_cxx(name, dir.path(), &format!("{HOST_SHIM}\n{}", device_unit::<P>()));
    let mut rng = Rng(seed);
    let calls = calls(instances, PER_FN, &mut rng);
    let lines = run_harness(&exe, dir.path(), &calls.script);
    assert_eq!(lines.len(), calls.cases.len(), "{name}: the harness printed the wrong number of results");
    let total = calls.cases.len() + calls.excluded;
    eprintln!(
        "{name}: {} calls compared over {} parameter sets ({} inputs on which Rust panics left out of {total})",
        calls.cases.len(),
        instances.len(),
        calls.excluded
    );
    assert!(
        calls.excluded * 3 < total,
        "{name}: too many inputs panic in Rust ({} of {total}); the test covers too little",
        calls.excluded
    );
    compare(name, &calls.cases, &lines, min_max_zero);
}

/// Compares the harness's output `lines` with the Rust results of `cases`, panicking with the first few
/// mismatches. With `min_max_zero` (programs that take a float `min`/`max`), a zero result matches a
/// zero of either sign: which of `+0.0` and `-0.0` `min`/`max` return for the pair is unspecified in
/// Rust (it changes with the optimisation level) and in CUDA.
fn compare(name: &str, cases: &[Case], lines: &[String], min_max_zero: bool) {
    let mut mismatches = Vec::new();
    for (case, line) in cases.iter().zip(lines) {
        let got = u64::from_str_radix(line.trim(), 16).expect("a hex result");
        let zeros = match case.float_width {
            32 => f32::from_bits(case.expected as u32) == 0.0 && got >> 32 == 0 && f32::from_bits(got as u32) == 0.0,
            64 => f64::from_bits(case.expected) == 0.0 && f64::from_bits(got) == 0.0,
            _ => false,
        };
        if !same(case.expected, got, case.float_width) && !(min_max_zero && zeros) {
            mismatches.push(format!(
                "  {}: Rust {:#x}, C {got:#x}   (harness line `{}`)",
                case.what, case.expected, case.line
            ));
        }
    }
    if !mismatches.is_empty() {
        let n = mismatches.len();
        mismatches.truncate(40);
        panic!("{name}: {n} results of the device code differ from Rust:\n{}", mismatches.join("\n"));
    }
}

/// Calls per function per parameter set.
const PER_FN: usize = 500;

/// Instances with random parameters, from `make`.
fn instances<P>(seed: u64, make: impl Fn(&mut Rng) -> P) -> Vec<P> {
    let mut rng = Rng(seed);
    (0..8).map(|_| make(&mut rng)).collect()
}

#[test]
fn bfs_device_code_matches_rust() {
    let ps = instances(1, |r| Bfs { source: if r.below(2) == 0 { r.below(4) as u32 } else { u32::gen(r) } });
    differential("bfs", &ps, false, 11);
}

#[test]
fn sssp_device_code_matches_rust() {
    let ps = instances(2, |r| Sssp { source: r.below(4) as u32, delta: u32::gen(r) });
    differential("sssp", &ps, false, 12);
}

#[test]
fn pagerank_device_code_matches_rust() {
    let ps = instances(3, |r| PageRank {
        damping: if r.below(2) == 0 { 0.85 } else { f64::gen(r) },
        tolerance: f64::gen(r),
        max_iterations: u32::gen(r),
    });
    differential("pagerank", &ps, false, 13);
}

#[test]
fn i32_program_device_code_matches_rust() {
    let ps = instances(4, |r| I32Mix {
        shift: u32::gen(r),
        bias: i64::gen(r),
        scale: f32::gen(r),
        flag: bool::gen(r),
        cap: r.below(1 << 20) as i32,
    });
    differential("i32mix", &ps, false, 14);
}

#[test]
fn f64_program_device_code_matches_rust() {
    let ps = instances(5, |r| F64Mix { alpha: f64::gen(r), beta: f32::gen(r), limit: u64::gen(r), k: i64::gen(r) });
    differential("f64mix", &ps, true, 15);
}

#[test]
fn u64_program_device_code_matches_rust() {
    let ps = instances(6, |r| U64Bits { mask: u64::gen(r), rounds: r.below(20) as u32 });
    differential("u64bits", &ps, false, 16);
}

#[test]
fn i64_program_device_code_matches_rust() {
    let ps = instances(7, |r| I64Arith { step: i64::gen(r) / 2, ratio: f32::gen(r), top: u32::gen(r) });
    differential("i64arith", &ps, false, 17);
}

#[test]
fn f32_program_device_code_matches_rust() {
    let ps = instances(8, |r| F32Mix { a: f32::gen(r), b: f64::gen(r), n: i32::gen(r) });
    differential("f32mix", &ps, true, 18);
}

// ---------------------------------------------------------------------------------------------------
// The prelude's helpers against Rust's release semantics.
// ---------------------------------------------------------------------------------------------------

/// Draws arguments (raw bits) for a helper and gives Rust's result, or `None` where it is undefined.
type CaseFn = Box<dyn Fn(&mut Rng) -> Option<([u64; 3], u64)>>;

/// One helper: its C call on the harness's `a`, `b`, `c` (raw bits), and random calls with Rust's result.
struct HelperOp {
    c: String,
    float_width: u32,
    /// Random arguments and Rust's result, or `None` for arguments the helper is not defined on.
    case: CaseFn,
}

fn op1<A: Bits, R: Bits>(f: &str, rust: fn(A) -> Option<R>) -> HelperOp {
    HelperOp {
        c: format!("out_{}({f}(in_{}(a)))", R::TAG, A::TAG),
        float_width: R::FLOAT_WIDTH,
        case: Box::new(move |rng| {
            let a = A::gen(rng);
            rust(a).map(|r| ([a.to_bits64(), 0, 0], r.to_bits64()))
        }),
    }
}

fn op2<A: Bits, B: Bits, R: Bits>(f: &str, rust: fn(A, B) -> Option<R>) -> HelperOp {
    HelperOp {
        c: format!("out_{}({f}(in_{}(a), in_{}(b)))", R::TAG, A::TAG, B::TAG),
        float_width: R::FLOAT_WIDTH,
        case: Box::new(move |rng| {
            let (a, b) = (A::gen(rng), B::gen(rng));
            rust(a, b).map(|r| ([a.to_bits64(), b.to_bits64(), 0], r.to_bits64()))
        }),
    }
}

fn op3<A: Bits>(f: &str, rust: fn(A, A, A) -> Option<A>) -> HelperOp {
    HelperOp {
        c: format!("out_{0}({f}(in_{0}(a), in_{0}(b), in_{0}(c)))", A::TAG),
        float_width: A::FLOAT_WIDTH,
        case: Box::new(move |rng| {
            let (a, b, c) = (A::gen(rng), A::gen(rng), A::gen(rng));
            rust(a, b, c).map(|r| ([a.to_bits64(), b.to_bits64(), c.to_bits64()], r.to_bits64()))
        }),
    }
}

/// The helpers with Rust's meaning in a release build (where `+` wraps and `<<` masks its amount).
fn helper_ops() -> Vec<HelperOp> {
    macro_rules! signed {
        ($ops:ident, $t:ident) => {
            $ops.extend([
                op2(concat!("simdx_add_", stringify!($t)), |a: $t, b: $t| Some(a.wrapping_add(b))),
                op2(concat!("simdx_sub_", stringify!($t)), |a: $t, b: $t| Some(a.wrapping_sub(b))),
                op2(concat!("simdx_mul_", stringify!($t)), |a: $t, b: $t| Some(a.wrapping_mul(b))),
                op1(concat!("simdx_neg_", stringify!($t)), |a: $t| Some(a.wrapping_neg())),
                op1(concat!("simdx_abs_", stringify!($t)), |a: $t| Some(a.wrapping_abs())),
                // Rust panics on a zero divisor and on MIN / -1 in every build; C has no result for them.
                op2(concat!("simdx_div_", stringify!($t)), |a: $t, b: $t| a.checked_div(b)),
                op2(concat!("simdx_rem_", stringify!($t)), |a: $t, b: $t| a.checked_rem(b)),
            ]);
        };
    }
    macro_rules! any_int {
        ($ops:ident, $t:ident) => {
            $ops.extend([
                op2(concat!("simdx_shl_", stringify!($t)), |a: $t, n: u32| Some(a.wrapping_shl(n))),
                op2(concat!("simdx_shr_", stringify!($t)), |a: $t, n: u32| Some(a.wrapping_shr(n))),
                op2(concat!("simdx_sat_add_", stringify!($t)), |a: $t, b: $t| Some(a.saturating_add(b))),
                op2(concat!("simdx_sat_sub_", stringify!($t)), |a: $t, b: $t| Some(a.saturating_sub(b))),
                op2(concat!("simdx_min_", stringify!($t)), |a: $t, b: $t| Some(a.min(b))),
                op2(concat!("simdx_max_", stringify!($t)), |a: $t, b: $t| Some(a.max(b))),
                op3(concat!("simdx_clamp_", stringify!($t)), |x: $t, lo: $t, hi: $t| {
                    (lo <= hi).then(|| x.clamp(lo, hi))
                }),
            ]);
        };
    }
    macro_rules! float {
        ($ops:ident, $t:ident, $suffix:expr) => {
            $ops.extend([
                op1(concat!("simdx_is_finite_", stringify!($t)), |x: $t| Some(x.is_finite())),
                op1(concat!("simdx_is_infinite_", stringify!($t)), |x: $t| Some(x.is_infinite())),
                op1(concat!("simdx_signum_", stringify!($t)), |x: $t| Some(x.signum())),
                // Rust asserts that the bounds are ordered and not NaN.
                op3(concat!("simdx_clamp_", stringify!($t)), |x: $t, lo: $t, hi: $t| {
                    (lo <= hi).then(|| x.clamp(lo, hi))
                }),
                // Which zero min/max return for +0.0 and -0.0 is unspecified (see the host shim).
                op2(concat!("fmin", $suffix), |a: $t, b: $t| (a != 0.0 || b != 0.0).then(|| a.min(b))),
                op2(concat!("fmax", $suffix), |a: $t, b: $t| (a != 0.0 || b != 0.0).then(|| a.max(b))),
                op1(concat!("simdx_", stringify!($t), "_to_u32"), |x: $t| Some(x as u32)),
                op1(concat!("simdx_", stringify!($t), "_to_i32"), |x: $t| Some(x as i32)),
                op1(concat!("simdx_", stringify!($t), "_to_u64"), |x: $t| Some(x as u64)),
                op1(concat!("simdx_", stringify!($t), "_to_i64"), |x: $t| Some(x as i64)),
            ]);
        };
    }
    let mut ops = Vec::new();
    signed!(ops, i32);
    signed!(ops, i64);
    any_int!(ops, i32);
    any_int!(ops, i64);
    any_int!(ops, u32);
    any_int!(ops, u64);
    float!(ops, f32, "f");
    float!(ops, f64, "");
    ops.extend([
        op1("simdx_popc_u32", |x: u32| Some(x.count_ones())),
        op1("simdx_popc_u64", |x: u64| Some(x.count_ones())),
        op1("simdx_clz_u32", |x: u32| Some(x.leading_zeros())),
        op1("simdx_clz_u64", |x: u64| Some(x.leading_zeros())),
        op1("simdx_ctz_u32", |x: u32| Some(x.trailing_zeros())),
        op1("simdx_ctz_u64", |x: u64| Some(x.trailing_zeros())),
        op1("simdx_f32_from_bits", |x: u32| Some(f32::from_bits(x))),
        op1("simdx_f64_from_bits", |x: u64| Some(f64::from_bits(x))),
    ]);
    ops
}

/// The harness of the helpers: conversions from and to bits, then `main` (reads `op a b c`).
fn helper_harness(ops: &[HelperOp]) -> String {
    let mut c = String::from(
        r#"
#include <stdio.h>
#include <stdlib.h>
typedef unsigned long long bits;
static simdx_u32 in_u32(bits b) { return (simdx_u32)b; }
static simdx_i32 in_i32(bits b) { return (simdx_i32)(simdx_u32)b; }
static simdx_u64 in_u64(bits b) { return (simdx_u64)b; }
static simdx_i64 in_i64(bits b) { return (simdx_i64)b; }
static simdx_f32 in_f32(bits b) { simdx_u32 u = (simdx_u32)b; simdx_f32 f; memcpy(&f, &u, sizeof f); return f; }
static simdx_f64 in_f64(bits b) { simdx_f64 f; memcpy(&f, &b, sizeof f); return f; }
static bits out_u32(simdx_u32 v) { return v; }
static bits out_i32(simdx_i32 v) { return (simdx_u32)v; }
static bits out_u64(simdx_u64 v) { return v; }
static bits out_i64(simdx_i64 v) { return (simdx_u64)v; }
static bits out_bool(bool v) { return v ? 1u : 0u; }
static bits out_f32(simdx_f32 v) { simdx_u32 u; memcpy(&u, &v, sizeof u); return u; }
static bits out_f64(simdx_f64 v) { bits u; memcpy(&u, &v, sizeof u); return u; }
int main(void) {
    unsigned op;
    bits a, b, c, r = 0;
    while (scanf("%x %llx %llx %llx", &op, &a, &b, &c) == 4) {
        (void)a; (void)b; (void)c;
        switch (op) {
"#,
    );
    for (i, op) in ops.iter().enumerate() {
        let _ = writeln!(c, "        case {i}: r = {}; break;", op.c);
    }
    c.push_str("        default: fprintf(stderr, \"harness: unknown op %u\\n\", op); return 5;\n        }\n");
    c.push_str("        printf(\"%llx\\n\", r);\n    }\n    return 0;\n}\n");
    c
}

/// The prelude's wrapping, masking, saturating and converting helpers against Rust's `wrapping_*`,
/// `saturating_*`, `as`, ...: what `+`, `<<`, `-x` mean in a release build, which the programs above
/// cannot show where this debug test build panics on overflow.
#[test]
fn prelude_helpers_match_rust() {
    let Some(cc) = compiler() else { return };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ops = helper_ops();
    let unit = format!("{HOST_SHIM}\n{}\n{}", simdx::acc::device::PRELUDE, helper_harness(&ops));
    let exe = compile(&cc, dir.path(), "helpers", &unit);
    let mut rng = Rng(99);
    let (mut script, mut cases) = (String::new(), Vec::new());
    for (i, op) in ops.iter().enumerate() {
        for _ in 0..PER_FN * 2 {
            if let Some((args, expected)) = (op.case)(&mut rng) {
                let line = format!("{i:x} {:x} {:x} {:x}", args[0], args[1], args[2]);
                script.push_str(&line);
                script.push('\n');
                cases.push(Case { line, what: op.c.clone(), expected, float_width: op.float_width });
            }
        }
    }
    let lines = run_harness(&exe, dir.path(), &script);
    assert_eq!(lines.len(), cases.len(), "helpers: the harness printed the wrong number of results");
    compare("helpers", &cases, &lines, false);
}

// ---------------------------------------------------------------------------------------------------
// Snapshots of the emitted CUDA C.
// ---------------------------------------------------------------------------------------------------

/// Compares `code` with `tests/snapshots/<name>.cu`, or rewrites it when `SIMDX_UPDATE_SNAPSHOTS=1`.
fn snapshot(name: &str, code: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(format!("{name}.cu"));
    if std::env::var("SIMDX_UPDATE_SNAPSHOTS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).expect("create tests/snapshots");
        std::fs::write(&path, code).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("no snapshot {} ({e}); create it with SIMDX_UPDATE_SNAPSHOTS=1", path.display()));
    if expected != code {
        let (n, (want, got)) = expected
            .lines()
            .chain(std::iter::repeat("<end>"))
            .zip(code.lines().chain(std::iter::repeat("<end>")))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("<trailing newline>", "<trailing newline>")));
        panic!(
            "the device code of `{name}` changed from {} (first at line {}):\n  expected: {want}\n  got:      {got}\n\
             --- generated ---\n{code}\nIf the change is deliberate, rerun with SIMDX_UPDATE_SNAPSHOTS=1 and read the diff.",
            path.display(),
            n + 1
        );
    }
}

/// The features `#[graph_kernel]` decides (`DeviceProgram::FEATURES`) are what the device code
/// declares: the engines read the constants, the kernels the defines written from them.
#[test]
fn program_features_are_the_device_codes_defines() {
    let features = [
        (Bfs::FEATURES, Bfs::device_code()),
        (Sssp::FEATURES, Sssp::device_code()),
        (PageRank::FEATURES, PageRank::device_code()),
    ];
    for (f, code) in &features {
        assert!(code.contains(&f.defines()), "{f:?}");
    }
    let [bfs, sssp, pagerank] = features.map(|(f, _)| f);
    assert!(bfs.can_update && !bfs.source_value && !bfs.bucket && !bfs.done);
    assert!(sssp.bucket && !sssp.source_value && !sssp.compute_reads_dst);
    assert!(pagerank.source_value && pagerank.global && pagerank.apply && pagerank.done && !pagerank.bucket);
}

#[test]
fn bfs_device_code_snapshot() {
    snapshot("bfs", Bfs::device_code());
}

#[test]
fn sssp_device_code_snapshot() {
    snapshot("sssp", Sssp::device_code());
}

#[test]
fn pagerank_device_code_snapshot() {
    snapshot("pagerank", PageRank::device_code());
}

// The library's wcc, kcore and spmv: the same proof and snapshots.
use simdx_algos::{KCore, Spmv, Wcc};

#[test]
fn wcc_device_code_matches_rust() {
    differential("wcc", &[Wcc; 8], false, 21);
}

#[test]
fn kcore_device_code_matches_rust() {
    let ps = instances(22, |r| KCore { k: if r.below(2) == 0 { r.below(40) as u32 } else { u32::gen(r) } });
    differential("kcore", &ps, false, 22);
}

/// `len` random values of `T`, as per-vertex data.
fn random_data<T: Bits + simdx::acc::VertexScalar>(r: &mut Rng, len: usize) -> VertexData<T> {
    (0..len).map(|_| T::gen(r)).collect::<Vec<T>>().into()
}

#[test]
fn spmv_device_code_matches_rust() {
    let ps = instances(23, |r| {
        let n = 1 + r.below(64) as usize;
        Spmv { x: random_data(r, n) }
    });
    differential("spmv", &ps, false, 23);
}

#[test]
fn wcc_device_code_snapshot() {
    snapshot("wcc", Wcc::device_code());
}

#[test]
fn kcore_device_code_snapshot() {
    snapshot("kcore", KCore::device_code());
}

#[test]
fn spmv_device_code_snapshot() {
    snapshot("spmv", Spmv::device_code());
}

// The library's bp and mlp: the same proof and snapshots.
use simdx_algos::{Bp, Mlp};

#[test]
fn bp_device_code_matches_rust() {
    let ps = instances(24, |r| {
        let (iterations, n) =
            (if r.below(2) == 0 { r.below(20) as u32 } else { u32::gen(r) }, 1 + r.below(64) as usize);
        Bp { iterations, priors: random_data(r, n) }
    });
    differential("bp", &ps, false, 24);
}

#[test]
fn mlp_device_code_matches_rust() {
    let ps = instances(25, |r| {
        let n = 1 + r.below(64) as usize;
        Mlp { input: random_data(r, n), bias: random_data(r, n) }
    });
    differential("mlp", &ps, false, 25);
}

#[test]
fn bp_device_code_snapshot() {
    snapshot("bp", Bp::device_code());
}

#[test]
fn mlp_device_code_snapshot() {
    snapshot("mlp", Mlp::device_code());
}

#[test]
fn spmv_device_code_snapshot_reads_x_by_vertex_id() {
    assert!(Spmv::device_code().contains("sx_self->sx_x[sx_v.id]"));
}

// Per-vertex data of several types and kernel helper functions (nested, with a constant, called with
// arguments that need statements): a test-only program, and the library's ppr and multi-source bfs.
use simdx::kernel_fn;
use simdx_algos::{MultiSourceBfs, Ppr};

/// `x`, but at least `lo`.
#[kernel_fn]
fn at_least(x: i64, lo: i64) -> i64 {
    if x < lo {
        lo
    } else {
        x
    }
}

/// `x` clamped into `[lo, hi]` through another helper (`hi` wins when `lo > hi`).
#[kernel_fn]
fn clip(x: i64, lo: i64, hi: i64) -> i64 {
    at_least(x, lo).min(hi)
}

/// A helper reading an outside constant.
#[kernel_fn]
fn scaled(x: u32) -> i64 {
    let limit: i32 = LIMIT;
    (x as i64) * 3 - limit as i64
}

/// Reads `u32`, `i64` and `bool` per-vertex data and calls helpers.
struct Columns {
    weight: VertexData<u32>,
    offset: VertexData<i64>,
    flag: VertexData<bool>,
    scale: i64,
}

#[graph_kernel]
impl Program for Columns {
    type Value = i64;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Received;
    const IDENTITY: i64 = i64::MAX;
    const UNSEEN: i64 = i64::MAX;

    fn init(&self, v: Vertex) -> i64 {
        // A helper's parameter types are not known where it is called: values whose type kernel code
        // cannot tell by themselves (fields, per-vertex data) are bound with their type first.
        let offset: i64 = self.offset[v.id];
        let weight: u32 = self.weight[v.id];
        if self.flag[v.id] {
            clip(offset, -1000, 1000)
        } else {
            scaled(weight)
        }
    }

    fn active(&self, now: i64, seen: i64) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<i64, u32>) -> i64 {
        e.src.saturating_add(e.weight as i64)
    }

    fn apply(&self, v: Vertex, old: i64, combined: i64, _global: f64) -> i64 {
        let scale: i64 = self.scale;
        let bound = clip(
            {
                let t: i64 = self.offset[v.id];
                t / 2
            },
            if self.flag[v.id] { -scale } else { scale },
            i64::MAX,
        );
        at_least(old.min(combined), bound)
    }
}

#[test]
fn per_vertex_data_and_helpers_match_rust() {
    let ps = instances(26, |r| {
        let n = 1 + r.below(64) as usize;
        Columns {
            weight: random_data(r, n),
            offset: random_data(r, n),
            flag: random_data(r, n),
            scale: (r.below(1 << 20) as i64) - (1 << 19),
        }
    });
    differential("columns", &ps, false, 26);
    let code = Columns::device_code();
    assert_eq!(code.matches("/* kernel_fn sx_fn_at_least_").count(), 1, "a helper called twice is defined once");
    assert!(code.find("sx_fn_at_least_").unwrap() < code.find("sx_fn_clip_").unwrap(), "callees come first");
}

#[test]
fn ppr_device_code_matches_rust() {
    let ps = instances(27, |r| {
        let n = 1 + r.below(64) as usize;
        Ppr {
            damping: f64::gen(r),
            tolerance: f64::gen(r),
            max_iterations: u32::gen(r),
            personalization: random_data(r, n),
        }
    });
    differential("ppr", &ps, false, 27);
}

#[test]
fn multi_source_bfs_device_code_matches_rust() {
    let ps = instances(28, |r| {
        let n = 1 + r.below(64) as usize;
        MultiSourceBfs { sources: random_data(r, n) }
    });
    differential("msbfs", &ps, false, 28);
}
