//! The C that a kernel function becomes, before its types are settled: expressions and statements
//! that hold type variables, rendered to CUDA C once inference is done, so that every operator and
//! helper is chosen for its operands' final type (`simdx_add_i32`, `fminf`, typed literals).

use crate::span::{error_at, At};

use crate::lit;
use crate::ty::{Ty, TyVar, Types};

/// An arithmetic or bitwise operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// A C expression.
#[derive(Debug, Clone)]
pub enum CExpr {
    /// An integer literal: its magnitude and sign, typed by its variable.
    Int { value: u128, negative: bool, ty: TyVar, span: At },
    /// A float literal as written (digits), typed by its variable.
    Float { digits: String, negative: bool, ty: TyVar },
    /// C text needing no type (a name, `true`, a macro).
    Raw(String),
    /// `base.field` or `base->field`.
    Field { base: Box<CExpr>, field: String, arrow: bool },
    /// An arithmetic or bitwise operation on operands of type `ty` (for shifts, the left one's).
    Arith { op: Arith, a: Box<CExpr>, b: Box<CExpr>, ty: TyVar },
    /// A comparison or `&&` / `||`: C's own operator.
    Infix { op: &'static str, a: Box<CExpr>, b: Box<CExpr> },
    /// `-a`.
    Neg { a: Box<CExpr>, ty: TyVar },
    /// `!a`: logical for `bool`, bitwise otherwise.
    Not { a: Box<CExpr>, ty: TyVar },
    /// `a as to`.
    Cast { a: Box<CExpr>, from: TyVar, to: Ty },
    /// A scalar method: `receiver.name(args)`, receiver first in `args`.
    Method { name: String, args: Vec<CExpr>, ty: TyVar, span: At },
    /// `c ? a : b`.
    Ternary { c: Box<CExpr>, a: Box<CExpr>, b: Box<CExpr> },
    /// `base[index]`: a read of a per-vertex array.
    Index { base: Box<CExpr>, index: Box<CExpr> },
    /// `name(args)`: a call of a kernel helper function.
    Call { name: String, args: Vec<CExpr> },
}

/// A C statement.
#[derive(Debug, Clone)]
pub enum CStmt {
    /// `T name = init;`
    Decl {
        name: String,
        ty: TyVar,
        init: Option<CExpr>,
    },
    /// `place = value;`
    Assign {
        place: String,
        value: CExpr,
    },
    /// `if (c) { .. } else { .. }`
    If {
        c: CExpr,
        then: Vec<CStmt>,
        otherwise: Vec<CStmt>,
    },
    /// `for var in lo..hi` (or `..=hi` when `inclusive`).
    For {
        var: String,
        ty: TyVar,
        lo: CExpr,
        hi: CExpr,
        inclusive: bool,
        end: String,
        body: Vec<CStmt>,
    },
    /// `{ .. }`
    Block(Vec<CStmt>),
    Return(Option<CExpr>),
    Break,
    Continue,
    /// `#line N`: the Rust line the next statement comes from.
    Line(usize),
}

/// What a scalar method needs and gives.
pub struct MethodSig {
    /// Arguments besides the receiver, all of the receiver's type.
    pub arity: usize,
    /// The result: `None` is the receiver's type.
    pub result: Option<Ty>,
}

/// The scalar methods kernel code may call, by name.
pub fn method(name: &str) -> Option<MethodSig> {
    let same = |arity| Some(MethodSig { arity, result: None });
    match name {
        "min" | "max" | "wrapping_add" | "wrapping_sub" | "wrapping_mul" | "saturating_add" | "saturating_sub"
        | "powf" | "hypot" | "atan2" => same(1),
        "clamp" | "mul_add" => same(2),
        "abs" | "sqrt" | "exp" | "exp2" | "ln" | "log2" | "log10" | "sin" | "cos" | "tan" | "tanh" | "floor"
        | "ceil" | "round" | "trunc" | "recip" | "signum" => same(0),
        "is_nan" | "is_finite" | "is_infinite" => Some(MethodSig { arity: 0, result: Some(Ty::Bool) }),
        "count_ones" | "leading_zeros" | "trailing_zeros" => Some(MethodSig { arity: 0, result: Some(Ty::U32) }),
        _ => None,
    }
}

/// The list shown when a method is not supported.
pub const METHODS: &str = "min, max, clamp, abs, wrapping_add/sub/mul, saturating_add/sub, count_ones, \
     leading_zeros, trailing_zeros, sqrt, exp, exp2, ln, log2, log10, sin, cos, tan, tanh, powf, hypot, \
     atan2, mul_add, floor, ceil, round, trunc, recip, signum, is_nan, is_finite, is_infinite";

/// Renders IR to C, collecting type errors found only now (a float method on an integer, ...).
pub struct Render<'a> {
    pub types: &'a mut Types,
    pub errors: &'a mut Vec<syn::Error>,
    /// The file name placeholder of `#line` directives.
    pub file: &'a str,
}

impl Render<'_> {
    fn ty(&mut self, v: TyVar) -> Ty {
        self.types.get(v).unwrap_or(Ty::Unit)
    }

    fn error(&mut self, span: At, message: String) -> String {
        self.errors.push(error_at(span, message));
        "0".into()
    }

    /// An expression.
    pub fn expr(&mut self, e: &CExpr) -> String {
        match e {
            CExpr::Int { value, negative, ty, span } => {
                let t = self.ty(*ty);
                match lit::int(*value, *negative, t) {
                    Some(s) => s,
                    None => {
                        let sign = if *negative { "-" } else { "" };
                        self.error(*span, format!("the literal `{sign}{value}` does not fit in `{}`", t.rust()))
                    }
                }
            }
            CExpr::Float { digits, negative, ty } => {
                let t = self.ty(*ty);
                lit::float(digits, *negative, t).unwrap_or_else(|| "0".into())
            }
            CExpr::Raw(s) => s.clone(),
            CExpr::Field { base, field, arrow } => {
                let base = self.expr(base);
                format!("{base}{}{field}", if *arrow { "->" } else { "." })
            }
            CExpr::Arith { op, a, b, ty } => self.arith(*op, a, b, *ty),
            CExpr::Infix { op, a, b } => format!("({} {op} {})", self.expr(a), self.expr(b)),
            CExpr::Neg { a, ty } => {
                let t = self.ty(*ty);
                let a = self.expr(a);
                if t.is_signed_int() {
                    format!("simdx_neg_{}({a})", t.tag())
                } else {
                    format!("(-{a})")
                }
            }
            CExpr::Not { a, ty } => {
                let op = if self.ty(*ty) == Ty::Bool { "!" } else { "~" };
                format!("({op}{})", self.expr(a))
            }
            CExpr::Cast { a, from, to } => {
                let from = self.ty(*from);
                let a = self.expr(a);
                if from == *to {
                    a
                } else if from.is_float() && to.is_int() {
                    format!("simdx_{}_to_{}({a})", from.tag(), to.tag())
                } else {
                    format!("(({}){a})", to.c())
                }
            }
            CExpr::Method { name, args, ty, span } => self.method(name, args, *ty, *span),
            CExpr::Ternary { c, a, b } => format!("({} ? {} : {})", self.expr(c), self.expr(a), self.expr(b)),
            CExpr::Index { base, index } => format!("{}[{}]", self.expr(base), self.expr(index)),
            CExpr::Call { name, args } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{name}({})", args.join(", "))
            }
        }
    }

    fn arith(&mut self, op: Arith, a: &CExpr, b: &CExpr, ty: TyVar) -> String {
        let t = self.ty(ty);
        let (a, b) = (self.expr(a), self.expr(b));
        let tag = t.tag();
        let infix = |sym: &str| format!("({a} {sym} {b})");
        match op {
            Arith::Shl | Arith::Shr => {
                let name = if op == Arith::Shl { "shl" } else { "shr" };
                format!("simdx_{name}_{tag}({a}, (simdx_u32)({b}))")
            }
            Arith::Add | Arith::Sub | Arith::Mul | Arith::Div | Arith::Rem if t.is_signed_int() => {
                let name = match op {
                    Arith::Add => "add",
                    Arith::Sub => "sub",
                    Arith::Mul => "mul",
                    Arith::Div => "div",
                    _ => "rem",
                };
                format!("simdx_{name}_{tag}({a}, {b})")
            }
            Arith::Rem if t == Ty::F32 => format!("fmodf({a}, {b})"),
            Arith::Rem if t == Ty::F64 => format!("fmod({a}, {b})"),
            Arith::Add => infix("+"),
            Arith::Sub => infix("-"),
            Arith::Mul => infix("*"),
            Arith::Div => infix("/"),
            Arith::Rem => infix("%"),
            Arith::And => infix("&"),
            Arith::Or => infix("|"),
            Arith::Xor => infix("^"),
        }
    }

    fn method(&mut self, name: &str, args: &[CExpr], ty: TyVar, span: At) -> String {
        let t = self.ty(ty);
        let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
        let tag = t.tag();
        let f = if t == Ty::F32 { "f" } else { "" };
        let call = |c_name: &str| format!("{c_name}({})", a.join(", "));
        let wrong = |this: &mut Self, kind: &str| {
            this.error(span, format!("`{name}` is not available on `{}` in kernel code ({kind})", t.rust()))
        };
        match name {
            "min" | "max" | "clamp" if t.is_int() => call(&format!("simdx_{name}_{tag}")),
            "min" if t.is_float() => call(&format!("fmin{f}")),
            "max" if t.is_float() => call(&format!("fmax{f}")),
            "clamp" if t.is_float() => call(&format!("simdx_clamp_{tag}")),
            "abs" if t.is_signed_int() => call(&format!("simdx_abs_{tag}")),
            "abs" if t.is_float() => call(&format!("fabs{f}")),
            "wrapping_add" | "wrapping_sub" | "wrapping_mul" if t.is_int() => {
                let op = match name {
                    "wrapping_add" => Arith::Add,
                    "wrapping_sub" => Arith::Sub,
                    _ => Arith::Mul,
                };
                self.arith(op, &CExpr::Raw(a[0].clone()), &CExpr::Raw(a[1].clone()), ty)
            }
            "saturating_add" | "saturating_sub" if t.is_int() => {
                call(&format!("simdx_sat_{}_{tag}", if name == "saturating_add" { "add" } else { "sub" }))
            }
            "count_ones" | "leading_zeros" | "trailing_zeros" if t.is_int() => {
                let helper = match name {
                    "count_ones" => "popc",
                    "leading_zeros" => "clz",
                    _ => "ctz",
                };
                let unsigned = if matches!(t, Ty::U32 | Ty::I32) { Ty::U32 } else { Ty::U64 };
                format!("simdx_{helper}_{}(({}){})", unsigned.tag(), unsigned.c(), a[0])
            }
            "sqrt" | "exp" | "exp2" | "log2" | "log10" | "sin" | "cos" | "tan" | "tanh" | "floor" | "ceil"
            | "round" | "trunc" | "hypot" | "atan2"
                if t.is_float() =>
            {
                call(&format!("{name}{f}"))
            }
            "ln" if t.is_float() => call(&format!("log{f}")),
            "powf" if t.is_float() => call(&format!("pow{f}")),
            "mul_add" if t.is_float() => call(&format!("fma{f}")),
            "recip" if t.is_float() => format!("({} / {})", if f.is_empty() { "1.0" } else { "1.0f" }, a[0]),
            "signum" if t.is_float() => call(&format!("simdx_signum_{tag}")),
            "is_nan" if t.is_float() => format!("({0} != {0})", a[0]),
            "is_finite" | "is_infinite" if t.is_float() => call(&format!("simdx_{name}_{tag}")),
            _ if t.is_float() => wrong(self, "it is an integer method"),
            _ => wrong(self, "it is a float method"),
        }
    }

    /// Statements, indented by `depth` levels.
    pub fn stmts(&mut self, stmts: &[CStmt], depth: usize, out: &mut String) {
        for s in stmts {
            self.stmt(s, depth, out);
        }
    }

    fn stmt(&mut self, s: &CStmt, depth: usize, out: &mut String) {
        let pad = "    ".repeat(depth);
        match s {
            CStmt::Decl { name, ty, init } => {
                let t = self.ty(*ty).c();
                match init {
                    Some(e) => {
                        let e = self.expr(e);
                        out.push_str(&format!("{pad}{t} {name} = {e};\n"));
                    }
                    None => out.push_str(&format!("{pad}{t} {name};\n")),
                }
            }
            CStmt::Assign { place, value } => {
                let v = self.expr(value);
                out.push_str(&format!("{pad}{place} = {v};\n"));
            }
            CStmt::If { c, then, otherwise } => {
                let c = self.expr(c);
                out.push_str(&format!("{pad}if ({c}) {{\n"));
                self.stmts(then, depth + 1, out);
                if otherwise.is_empty() {
                    out.push_str(&format!("{pad}}}\n"));
                } else {
                    out.push_str(&format!("{pad}}} else {{\n"));
                    self.stmts(otherwise, depth + 1, out);
                    out.push_str(&format!("{pad}}}\n"));
                }
            }
            CStmt::For { var, ty, lo, hi, inclusive, end, body } => {
                let t = self.ty(*ty);
                let c = t.c();
                let (lo, hi) = (self.expr(lo), self.expr(hi));
                let one = lit::int(1, false, t).unwrap_or_else(|| "1".into());
                let step = self.arith(Arith::Add, &CExpr::Raw(var.clone()), &CExpr::Raw(one), *ty);
                out.push_str(&format!("{pad}{{\n{pad}    {c} {end} = {hi};\n"));
                if *inclusive {
                    // `lo..=hi` may end at the type's MAX, where `var <= end` never fails: a flag set
                    // at the top of the body ends the loop after `end` instead.
                    out.push_str(&format!("{pad}    bool {end}_go = ({lo} <= {end});\n"));
                    out.push_str(&format!("{pad}    for ({c} {var} = {lo}; {end}_go; {var} = {step}) {{\n"));
                    out.push_str(&format!("{pad}        {end}_go = ({var} != {end});\n"));
                } else {
                    out.push_str(&format!("{pad}    for ({c} {var} = {lo}; {var} < {end}; {var} = {step}) {{\n"));
                }
                self.stmts(body, depth + 2, out);
                out.push_str(&format!("{pad}    }}\n{pad}}}\n"));
            }
            CStmt::Block(inner) => {
                out.push_str(&format!("{pad}{{\n"));
                self.stmts(inner, depth + 1, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            CStmt::Return(Some(e)) => {
                let e = self.expr(e);
                out.push_str(&format!("{pad}return {e};\n"));
            }
            CStmt::Return(None) => out.push_str(&format!("{pad}return;\n")),
            CStmt::Break => out.push_str(&format!("{pad}break;\n")),
            CStmt::Continue => out.push_str(&format!("{pad}continue;\n")),
            CStmt::Line(n) => out.push_str(&format!("#line {n} \"{}\"\n", self.file)),
        }
    }
}
