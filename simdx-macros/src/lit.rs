//! C literals of exactly a Rust type and value: `7u`, `(-1ll)`, `(0.5f)`, bit-exact infinities. The
//! same rules as `simdx_core::acc::device::DeviceScalar::c_literal`, which this crate cannot depend on.

use crate::ty::Ty;

/// An integer `value` (negated when `negative`) as a C literal of type `ty`; `None` if it does not fit.
pub fn int(value: u128, negative: bool, ty: Ty) -> Option<String> {
    let (min, max): (i128, i128) = match ty {
        Ty::U32 => (0, u32::MAX as i128),
        Ty::I32 => (i32::MIN as i128, i32::MAX as i128),
        Ty::U64 => (0, u64::MAX as i128),
        Ty::I64 => (i64::MIN as i128, i64::MAX as i128),
        _ => return None,
    };
    let v = if negative { -(value as i128) } else { value as i128 };
    if v < min || v > max {
        return None;
    }
    Some(match ty {
        Ty::U32 => format!("{v}u"),
        Ty::U64 => format!("{v}ull"),
        Ty::I32 if v == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        Ty::I64 if v == i64::MIN as i128 => "(-9223372036854775807ll - 1ll)".into(),
        Ty::I32 if v < 0 => format!("({v})"),
        Ty::I32 => format!("{v}"),
        Ty::I64 if v < 0 => format!("({v}ll)"),
        _ => format!("{v}ll"),
    })
}

/// A float given by its Rust digits (`1.5`, `1e-3`, `2.`) as a C literal of type `ty`, rounded as rustc
/// rounds it.
pub fn float(digits: &str, negative: bool, ty: Ty) -> Option<String> {
    let digits = digits.replace('_', "");
    match ty {
        Ty::F32 => digits.parse::<f32>().ok().map(|v| f32_value(if negative { -v } else { v })),
        Ty::F64 => digits.parse::<f64>().ok().map(|v| f64_value(if negative { -v } else { v })),
        _ => None,
    }
}

/// An f32 value as a C literal.
pub fn f32_value(v: f32) -> String {
    if v.is_finite() {
        format!("({v:?}f)")
    } else {
        format!("simdx_f32_from_bits({}u)", v.to_bits())
    }
}

/// An f64 value as a C literal.
pub fn f64_value(v: f64) -> String {
    if v.is_finite() {
        format!("({v:?})")
    } else {
        format!("simdx_f64_from_bits({}ull)", v.to_bits())
    }
}

/// `u32::MAX`, `f32::INFINITY`, `f64::consts::PI`, ...: the value of an associated constant of a
/// primitive type, as a C literal, with its type.
pub fn primitive_const(ty: Ty, name: &str) -> Option<String> {
    macro_rules! int_consts {
        ($t:ty) => {
            match name {
                "MAX" => <$t>::MAX as i128,
                "MIN" => <$t>::MIN as i128,
                "BITS" => return int(<$t>::BITS as u128, false, Ty::U32),
                _ => return None,
            }
        };
    }
    macro_rules! float_consts {
        ($t:ident, $render:ident) => {{
            use std::$t::consts;
            let v = match name {
                "MAX" => $t::MAX,
                "MIN" => $t::MIN,
                "MIN_POSITIVE" => $t::MIN_POSITIVE,
                "EPSILON" => $t::EPSILON,
                "INFINITY" => $t::INFINITY,
                "NEG_INFINITY" => $t::NEG_INFINITY,
                "NAN" => $t::NAN,
                "PI" => consts::PI,
                "TAU" => consts::TAU,
                "E" => consts::E,
                "SQRT_2" => consts::SQRT_2,
                "FRAC_1_SQRT_2" => consts::FRAC_1_SQRT_2,
                "LN_2" => consts::LN_2,
                "LN_10" => consts::LN_10,
                "LOG2_E" => consts::LOG2_E,
                "LOG10_E" => consts::LOG10_E,
                "FRAC_PI_2" => consts::FRAC_PI_2,
                _ => return None,
            };
            return Some($render(v));
        }};
    }
    let v: i128 = match ty {
        Ty::U32 => int_consts!(u32),
        Ty::I32 => int_consts!(i32),
        Ty::U64 => int_consts!(u64),
        Ty::I64 => int_consts!(i64),
        Ty::F32 => float_consts!(f32, f32_value),
        Ty::F64 => float_consts!(f64, f64_value),
        _ => return None,
    };
    int(v.unsigned_abs(), v < 0, ty)
}

/// The type of a primitive's associated constant (`BITS` is always `u32`).
pub fn primitive_const_ty(ty: Ty, name: &str) -> Ty {
    if name == "BITS" {
        Ty::U32
    } else {
        ty
    }
}
