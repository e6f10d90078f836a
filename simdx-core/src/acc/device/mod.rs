//! The device side of a program: [`DeviceProgram`], which `#[graph_kernel]` implements next to
//! [`Program`], gives a GPU backend the program's functions as CUDA C and its parameters as bytes.
//!
//! # The contract between generated code and a backend
//! A backend compiles [`PRELUDE`] followed by [`DeviceProgram::device_code`]. The program's code
//! defines, with every identifier of the user's prefixed by `sx_` so that none can clash with CUDA:
//! - `simdx_value` and `simdx_weight` (typedefs of `simdx_u32`, `simdx_f32`, ...), `simdx_params` (a
//!   struct of the program's fields that its functions read, laid out as [`DeviceProgram::device_params`]
//!   writes them; a per-vertex array is a `const T*` there, indexed by vertex id) and `simdx_edge`
//!   (`src`, `dst`, `weight`, `src_out_degree`, as [`Edge`](super::Edge));
//! - `SIMDX_OP`, `SIMDX_KIND`, `SIMDX_APPLY` (the `SIMDX_OP_*`, `SIMDX_KIND_*`, `SIMDX_APPLY_*` numbers of
//!   the prelude), `SIMDX_IDENTITY`, `SIMDX_UNSEEN`, `SIMDX_USES_GLOBAL`, `SIMDX_SILENT_PULLS` (see
//!   [`silent_pulls`]) with `SIMDX_SILENT` (the silent message, a `simdx_msg` literal), `SIMDX_WEIGHTED` and
//!   `SIMDX_LABELS` (whether the engines shortcut labels, [`Program::VALUES_ARE_LABELS`]),
//!   `SIMDX_UPDATE_GROWS_WITH_WEIGHT` ([`Program::UPDATE_GROWS_WITH_WEIGHT`]),
//!   `SIMDX_HAS_<NAME>` (1 where the program defines `source_value`, `bucket`, `can_update`, `done`,
//!   `combine`, `apply`, `global` itself rather than taking the default);
//! - one `__device__ __forceinline__` function per [`Program`] function, each taking
//!   `const simdx_params* sx_self` first: `simdx_init(p, simdx_vertex)`, `simdx_active(p, now, seen)`,
//!   `simdx_source_value(p, v, value, sent)`, `simdx_compute(p, simdx_edge)`, `simdx_combine(p, a, b)`, `simdx_apply(p, v, old, combined, global)`,
//!   `simdx_global(p, v, value, sent)`, `simdx_can_update(p, value)`, `simdx_bucket(p, value)` and
//!   `simdx_done(p, iterations, change)`, with the same results as the Rust functions bit for bit
//!   (integers wrap, shifts mask, float-to-int casts saturate). Only the transcendental functions
//!   (`exp`, `ln`, ...) may differ in the last bits on a GPU, whose math library is not glibc's.

use super::{convert, Apply, CombineKind, CombineOp, Program};
use crate::acc::ProgramHints;

/// The CUDA C every program's device code builds on: scalar typedefs, `simdx_vertex`, and the helpers
/// that keep Rust's integer and cast semantics. Plain C that is also CUDA C++, with no `#include`.
pub const PRELUDE: &str = include_str!("prelude.cuh");

/// A header that lets [`PRELUDE`] and device code compile as host C11 (it maps `__device__`,
/// `__forceinline__`, `__popc`, ... to standard C and GNU builtins): used to test generated code
/// against the Rust functions without a GPU.
pub const HOST_SHIM: &str = include_str!("host_shim.h");

/// A program that can also run on a GPU: implemented by `#[graph_kernel]`, never by hand.
pub trait DeviceProgram: ProgramHints {
    /// The program's functions as CUDA C, to be compiled after [`PRELUDE`] (see the module docs).
    fn device_code() -> &'static str;
    /// The program's parameters (the fields of `self` that its functions read) as the bytes of the C
    /// struct `simdx_params`, little-endian and laid out with C alignment. A per-vertex array field is
    /// a pointer there: `array_addresses[i]` is the device address of the `i`-th array of
    /// [`ProgramHints::vertex_arrays`] (missing addresses are written as 0).
    fn device_params(&self, array_addresses: &[u64]) -> Vec<u8>;
    /// Which optional functions the program defines and what its `compute` reads: the one place
    /// that decides them, for the engines and for the device code (whose `SIMDX_HAS_<NAME>` and
    /// `SIMDX_COMPUTE_READS_DST` defines [`DeviceFeatures::defines`] writes).
    const FEATURES: DeviceFeatures;
}

/// What `#[graph_kernel]` found in a program: which of the optional [`Program`] functions it defines
/// itself rather than taking the default, and whether its `compute` reads the destination's value.
/// `init`, `active` and `compute` are always defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceFeatures {
    /// The program defines `source_value` (the engines keep a send slot per vertex).
    pub source_value: bool,
    /// It defines `combine`.
    pub combine: bool,
    /// It defines `apply`.
    pub apply: bool,
    /// It defines `global`.
    pub global: bool,
    /// It defines `can_update`.
    pub can_update: bool,
    /// It defines `bucket` (delta-stepping's priority buckets).
    pub bucket: bool,
    /// It defines `done` (a stopping test of its own).
    pub done: bool,
    /// Its `compute` reads the destination's value (`edge.dst`), so an arc's update is not known
    /// before the destination is loaded.
    pub compute_reads_dst: bool,
}

impl DeviceFeatures {
    /// The features as the device code's `#define`s: `SIMDX_HAS_<NAME>` (1 where the program defines
    /// the function, in the order of [`Program`]'s functions) and `SIMDX_COMPUTE_READS_DST`.
    pub fn defines(&self) -> String {
        let has = [
            ("INIT", true),
            ("ACTIVE", true),
            ("SOURCE_VALUE", self.source_value),
            ("COMPUTE", true),
            ("COMBINE", self.combine),
            ("APPLY", self.apply),
            ("GLOBAL", self.global),
            ("CAN_UPDATE", self.can_update),
            ("BUCKET", self.bucket),
            ("DONE", self.done),
        ];
        let mut text: String =
            has.iter().map(|(name, on)| format!("#define SIMDX_HAS_{name} {}\n", u32::from(*on))).collect();
        text.push_str(&format!("#define SIMDX_COMPUTE_READS_DST {}\n", u32::from(self.compute_reads_dst)));
        text
    }
}

/// The whole translation unit of a program's device code: [`PRELUDE`] then the program.
pub fn device_unit<P: DeviceProgram>() -> String {
    let mut unit = String::with_capacity(PRELUDE.len() + P::device_code().len() + 1);
    unit.push_str(PRELUDE);
    unit.push('\n');
    unit.push_str(P::device_code());
    unit
}

/// The `#define`s of a program that follow from its [`Program`] constants: `SIMDX_OP`, `SIMDX_KIND`,
/// `SIMDX_APPLY`, `SIMDX_USES_GLOBAL`, `SIMDX_IDENTITY`, `SIMDX_UNSEEN`, `SIMDX_SILENT_PULLS` with
/// `SIMDX_SILENT` (see [`silent_pulls`]), `SIMDX_LABELS` (1 where the engines shortcut labels: see
/// [`Program::VALUES_ARE_LABELS`]) and `SIMDX_UPDATE_GROWS_WITH_WEIGHT` (see
/// [`Program::UPDATE_GROWS_WITH_WEIGHT`]). Generated code calls this so that the device sees the
/// constants' Rust values.
pub fn program_defines<P: ProgramHints>() -> String {
    let op = op_define(P::OP);
    let kind = match P::KIND {
        CombineKind::Aggregate => "SIMDX_KIND_AGGREGATE",
        CombineKind::Voting => "SIMDX_KIND_VOTING",
    };
    let apply = match P::APPLY {
        Apply::InPlace => "SIMDX_APPLY_IN_PLACE",
        Apply::Received => "SIMDX_APPLY_RECEIVED",
        Apply::Every => "SIMDX_APPLY_EVERY",
    };
    format!(
        "#define SIMDX_OP {op}\n#define SIMDX_KIND {kind}\n#define SIMDX_APPLY {apply}\n\
         #define SIMDX_USES_GLOBAL {}\n#define SIMDX_IDENTITY {}\n#define SIMDX_UNSEEN {}\n\
         #define SIMDX_SILENT_PULLS {}\n#define SIMDX_SILENT {}\n#define SIMDX_LABELS {}\n\
         #define SIMDX_UPDATE_GROWS_WITH_WEIGHT {}\n",
        P::USES_GLOBAL as u32,
        P::IDENTITY.c_literal(),
        P::UNSEEN.c_literal(),
        silent_pulls::<P>() as u32,
        P::SILENT.unwrap_or(convert(P::UNSEEN)).c_literal(),
        super::program::shortcuts_labels::<P>() as u32,
        P::UPDATE_GROWS_WITH_WEIGHT as u32
    )
}

/// The prelude's name of a combine operation (`SIMDX_OP_MIN`, ...), for `#define SIMDX_OP`.
pub fn op_define(op: CombineOp) -> &'static str {
    match op {
        CombineOp::Min => "SIMDX_OP_MIN",
        CombineOp::Max => "SIMDX_OP_MAX",
        CombineOp::Sum => "SIMDX_OP_SUM",
        CombineOp::Or => "SIMDX_OP_OR",
        CombineOp::Custom => "SIMDX_OP_CUSTOM",
    }
}

/// Whether the engines treat `P`'s values as labels ([`Program::VALUES_ARE_LABELS`], with an integer
/// `Min` or `Max` combine applied in place): they link its classes or shortcut its labels. The device
/// code says the same in `SIMDX_LABELS`.
pub fn label_program<P: Program>() -> bool {
    super::program::shortcuts_labels::<P>()
}

/// Whether a GPU pull may read every source's send slot without testing which sources are active:
/// an [`Apply::Every`] aggregation program with a silent message ([`ProgramHints::SILENT`]), which the
/// slots of the vertices that do not send then hold. (The device also needs the program to have a
/// `source_value`, without which there are no send slots.)
pub fn silent_pulls<P: ProgramHints>() -> bool {
    P::SILENT.is_some() && P::KIND == CombineKind::Aggregate && P::APPLY == Apply::Every
}

/// A scalar type that can cross to the device: its C name, how its values are written as C literals,
/// and its bytes. Implemented for `u32 i32 u64 i64 f32 f64 bool`.
pub trait DeviceScalar: Copy {
    /// The C type generated code uses for it (`simdx_u32`, ..., `bool`).
    const C_TYPE: &'static str;
    /// `self` as a C literal of exactly this type and value (`7u`, `-1ll`, `0.5f`, bit-exact
    /// infinities and NaNs).
    fn c_literal(self) -> String;
    /// Appends `self`'s little-endian bytes to `out`.
    fn write_le(self, out: &mut Vec<u8>);
}

impl DeviceScalar for u32 {
    const C_TYPE: &'static str = "simdx_u32";
    fn c_literal(self) -> String {
        format!("{self}u")
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl DeviceScalar for u64 {
    const C_TYPE: &'static str = "simdx_u64";
    fn c_literal(self) -> String {
        format!("{self}ull")
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl DeviceScalar for i32 {
    const C_TYPE: &'static str = "simdx_i32";
    fn c_literal(self) -> String {
        match self {
            i32::MIN => "(-2147483647 - 1)".to_string(),
            v if v < 0 => format!("({v})"),
            v => format!("{v}"),
        }
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl DeviceScalar for i64 {
    const C_TYPE: &'static str = "simdx_i64";
    fn c_literal(self) -> String {
        match self {
            i64::MIN => "(-9223372036854775807ll - 1ll)".to_string(),
            v if v < 0 => format!("({v}ll)"),
            v => format!("{v}ll"),
        }
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl DeviceScalar for f32 {
    const C_TYPE: &'static str = "simdx_f32";
    fn c_literal(self) -> String {
        if self.is_finite() {
            // `{:?}` prints the shortest decimal that reads back as the same f32, always with a `.` or `e`.
            format!("({:?}f)", self)
        } else {
            format!("simdx_f32_from_bits({}u)", self.to_bits())
        }
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl DeviceScalar for f64 {
    const C_TYPE: &'static str = "simdx_f64";
    fn c_literal(self) -> String {
        if self.is_finite() {
            format!("({:?})", self)
        } else {
            format!("simdx_f64_from_bits({}ull)", self.to_bits())
        }
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl DeviceScalar for bool {
    const C_TYPE: &'static str = "bool";
    fn c_literal(self) -> String {
        if self { "true" } else { "false" }.to_string()
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
}

/// Pads `out` with zero bytes up to a multiple of `align` (for laying out `simdx_params`).
pub fn pad_to(out: &mut Vec<u8>, align: usize) {
    while out.len() % align != 0 {
        out.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_typed_and_exact() {
        assert_eq!(7u32.c_literal(), "7u");
        assert_eq!(i32::MIN.c_literal(), "(-2147483647 - 1)");
        assert_eq!((-3i64).c_literal(), "(-3ll)");
        assert_eq!(0.1f32.c_literal(), "(0.1f)");
        assert_eq!(1.0f32.c_literal(), "(1.0f)");
        assert_eq!(1e300f64.c_literal(), "(1e300)");
        assert_eq!(f32::INFINITY.c_literal(), "simdx_f32_from_bits(2139095040u)");
    }
}
