//! Reads the body of a kernel function: checks that it stays inside the accepted subset (reporting
//! every construct that does not, at its span, with what to write instead), infers the type of every
//! expression, and lowers it to the C IR of [`crate::ir`].

use std::collections::{BTreeMap, HashMap};

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Block, Expr, Lit, Pat, RangeLimits, Stmt, Type, UnOp};

use crate::ir::{self, Arith, CExpr, CStmt};
use crate::span::{at, error_at, At};
use crate::ty::{Ty, TyVar, Types};

/// A local variable in scope.
#[derive(Clone)]
struct Local {
    c_name: String,
    ty: TyVar,
    /// `let mut`, or a `let x;` whose value comes later: assignable.
    mutable: bool,
}

/// Something from outside the function that its code reads: a field of `self` or a constant.
pub struct Outside {
    /// The C name it has in generated code.
    pub c_name: String,
    /// Its type variable.
    pub ty: TyVar,
    /// The Rust expression it stands for (`self.delta`, `UNREACHED`, `crate::X`), for the generated Rust.
    pub rust: syn::Expr,
    /// A per-vertex array (`self.x[v.id]`): `ty` is then its element type.
    pub array: bool,
}

/// A kernel helper function that kernel code calls (`sigmoid(x)`, `helpers::clip(x, lo, hi)`).
pub struct HelperCall {
    /// The path as written at the call.
    pub path: syn::Path,
    /// The placeholder its C name has in generated code until the helper says it (`@SIMDX_FN_0@`).
    pub placeholder: String,
    /// Its parameters' types and its result's, as the calls use them.
    pub params: Vec<TyVar>,
    pub result: TyVar,
    /// The first call, where a type mismatch is reported.
    pub span: Span,
}

/// The program-wide state of lowering: one type table for all functions (a field has one type), the
/// fields and constants found, and the errors.
pub struct Lowering {
    pub types: Types,
    pub errors: Vec<syn::Error>,
    /// Fields of `self` read by any function, by name.
    pub fields: BTreeMap<String, Outside>,
    /// Constants from outside the impl, by their Rust path.
    pub consts: BTreeMap<String, Outside>,
    /// Kernel helper functions called, by their Rust path.
    pub helpers: BTreeMap<String, HelperCall>,
    /// While lowering a `#[kernel_fn]` helper: its name (helpers have no `self` and do not recurse).
    pub helper: Option<String>,
    /// The program's `Value`, `Message` and `Weight` types.
    pub value: Ty,
    pub message: Ty,
    pub weight: Ty,
}

/// Lowering of one function.
pub struct FnLowering<'a> {
    pub cx: &'a mut Lowering,
    scopes: Vec<Vec<(String, Local)>>,
    used_names: HashMap<String, usize>,
    temps: usize,
    ret: TyVar,
}

/// A lowered expression: statements to run first, then the value (`None` for `()` or a diverging
/// expression) and its type.
type Lowered = (Vec<CStmt>, Option<CExpr>, TyVar);

impl Lowering {
    pub fn new(value: Ty, message: Ty, weight: Ty) -> Self {
        Lowering {
            types: Types::default(),
            errors: Vec::new(),
            fields: BTreeMap::new(),
            consts: BTreeMap::new(),
            helpers: BTreeMap::new(),
            helper: None,
            value,
            message,
            weight,
        }
    }

    pub fn error(&mut self, at: impl Into<At>, message: impl Into<String>) {
        self.errors.push(error_at(at.into(), message.into()));
    }

    /// Settles the types left open (literals take their defaults) and reports each field, constant or
    /// helper result whose type the code never pins down.
    pub fn finish_types(&mut self) {
        for (span, what) in self.types.finish() {
            self.error(
                span,
                format!(
                    "kernel code cannot tell the type of {what} from how it is used here; bind it with its type \
                     first, e.g. `let x: u32 = {};`",
                    what.trim_matches('`')
                ),
            );
        }
    }

    /// The Rust that writes a `#define` for each outside constant the code reads, with the constant's
    /// value (into `code: String` or `&mut String`).
    pub fn const_defines(&mut self, krate: &proc_macro2::TokenStream) -> proc_macro2::TokenStream {
        let mut out = proc_macro2::TokenStream::new();
        let consts: Vec<(String, TyVar, syn::Expr)> =
            self.consts.values().map(|o| (o.c_name.clone(), o.ty, o.rust.clone())).collect();
        for (c, ty, path) in consts {
            let t = syn::Ident::new(self.types.get(ty).unwrap_or(Ty::U32).rust(), Span::call_site());
            out.extend(quote::quote_spanned! {path.span()=>
                code.push_str(&::std::format!("#define {} {}\n", #c, <#t as #krate::acc::DeviceScalar>::c_literal(#path)));
            });
        }
        out
    }

    /// A type written in kernel code: a scalar, `Self::Value`, `Self::Message`, `Self::Weight`, `Vertex`
    /// or `Edge<..>`.
    pub fn ty_of(&mut self, t: &Type) -> Option<Ty> {
        match t {
            Type::Path(p) if p.qself.is_none() => {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let last = segs.last().map(String::as_str).unwrap_or("");
                match (segs.len(), segs.first().map(String::as_str)) {
                    (2, Some("Self")) if last == "Value" => return Some(self.value),
                    (2, Some("Self")) if last == "Message" => return Some(self.message),
                    (2, Some("Self")) if last == "Weight" => return Some(self.weight),
                    (2, Some("Self")) if last == "Acc" => return Some(self.value),
                    _ => {}
                }
                if let Some(s) = Ty::scalar(last) {
                    return Some(s);
                }
                match last {
                    "Vertex" => Some(Ty::Vertex),
                    "Edge" => Some(Ty::Edge),
                    "Vec" | "String" | "Box" | "Rc" | "Arc" | "HashMap" | "BTreeMap" | "HashSet" | "VecDeque" => {
                        self.error(
                            at(&t),
                            format!(
                                "heap types like `{last}` are not allowed in kernel code; use the scalars \
                                 u32 i32 u64 i64 f32 f64 bool"
                            ),
                        );
                        None
                    }
                    _ => {
                        self.error(
                            at(&t),
                            format!(
                                "the type `{last}` is not allowed in kernel code; use the scalars u32 i32 u64 \
                                 i64 f32 f64 bool, `Self::Value` or `Self::Weight`"
                            ),
                        );
                        None
                    }
                }
            }
            Type::Tuple(t) if t.elems.is_empty() => Some(Ty::Unit),
            Type::Reference(_) | Type::Ptr(_) => {
                self.error(
                    at(&t),
                    "references and pointers are not allowed in kernel code; pass values (every kernel type is Copy)",
                );
                None
            }
            _ => {
                self.error(
                    at(&t),
                    "this type is not allowed in kernel code; use the scalars u32 i32 u64 i64 f32 f64 bool",
                );
                None
            }
        }
    }
}

/// Whether lowered statements are only `#line` markers (so the value can stay an expression).
fn only_lines(stmts: &[CStmt]) -> bool {
    stmts.iter().all(|s| matches!(s, CStmt::Line(_)))
}

/// The names a kernel may not use, because they mean something else in CUDA C (they are renamed).
fn c_name(rust: &str) -> String {
    format!("sx_{rust}")
}

impl<'a> FnLowering<'a> {
    /// Starts a function returning `ret`.
    pub fn new(cx: &'a mut Lowering, ret: Ty) -> Self {
        let ret = cx.types.known(ret);
        FnLowering { cx, scopes: vec![Vec::new()], used_names: HashMap::new(), temps: 0, ret }
    }

    /// Declares a parameter; returns its C name.
    pub fn param(&mut self, name: &str, ty: Ty) -> String {
        let tv = self.cx.types.known(ty);
        self.bind(name, tv, false)
    }

    fn bind(&mut self, name: &str, ty: TyVar, mutable: bool) -> String {
        let n = self.used_names.entry(name.to_string()).or_insert(0);
        *n += 1;
        // A shadowing binding gets `sx<n>_name`, which no user identifier (always `sx_...`) can equal.
        let c = if *n == 1 { c_name(name) } else { format!("sx{n}_{name}") };
        self.scopes.last_mut().expect("a scope").push((name.to_string(), Local { c_name: c.clone(), ty, mutable }));
        c
    }

    fn lookup(&self, name: &str) -> Option<Local> {
        self.scopes.iter().rev().find_map(|s| s.iter().rev().find(|(n, _)| n == name).map(|(_, l)| l.clone()))
    }

    fn temp(&mut self, what: &str) -> String {
        self.temps += 1;
        // `sxt<n>_...` cannot equal a user identifier (always `sx_...`) or a shadowing one (`sx<n>_...`).
        format!("sxt{}_{what}", self.temps)
    }

    fn unify(&mut self, a: TyVar, b: TyVar, span: impl Into<At>) {
        if let Err((x, y)) = self.cx.types.unify(a, b) {
            self.cx.error(span, format!("mismatched types in kernel code: `{x}` and `{y}`"));
        }
    }

    fn require(&mut self, v: TyVar, ty: Ty, span: impl Into<At>) {
        if let Err((x, y)) = self.cx.types.require(v, ty) {
            self.cx.error(span, format!("mismatched types in kernel code: expected `{x}`, found `{y}`"));
        }
    }

    fn fail(&mut self, span: impl Into<At>, message: impl Into<String>) -> Lowered {
        self.cx.error(span, message);
        let t = self.cx.types.known(Ty::Never);
        (Vec::new(), Some(CExpr::Raw("0".into())), t)
    }

    /// The function body: statements ending in `return` of the block's value.
    pub fn body(&mut self, block: &Block) -> Vec<CStmt> {
        let (mut stmts, value, ty) = self.block(block);
        let ret = self.ret;
        self.unify(ret, ty, at(&block));
        if let Some(v) = value {
            stmts.push(CStmt::Return(Some(v)));
        }
        stmts
    }

    fn block(&mut self, block: &Block) -> Lowered {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        let mut value = None;
        let mut ty = self.cx.types.known(Ty::Unit);
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            out.push(CStmt::Line(stmt.span().start().line));
            match stmt {
                Stmt::Local(local) => self.local(local, &mut out),
                Stmt::Expr(e, semi) => {
                    let (s, v, t) = self.expr(e);
                    out.extend(s);
                    if i + 1 == n && semi.is_none() {
                        value = v;
                        ty = t;
                    } else if self.cx.types.get(t) == Some(Ty::Never) {
                        ty = t;
                    }
                }
                Stmt::Item(item) => {
                    self.cx.error(
                        at(&item),
                        "items (fn, struct, use, ...) are not allowed inside kernel code; define them outside the impl",
                    );
                }
                Stmt::Macro(m) => {
                    self.macro_error(&m.mac);
                }
            }
        }
        self.scopes.pop();
        (out, value, ty)
    }

    fn local(&mut self, local: &syn::Local, out: &mut Vec<CStmt>) {
        let (pat, declared) = match &local.pat {
            Pat::Type(pt) => (&*pt.pat, self.cx.ty_of(&pt.ty)),
            p => (p, None),
        };
        let ty = match declared {
            Some(t) => self.cx.types.known(t),
            None => self.cx.types.fresh(),
        };
        let init = match &local.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    self.cx.error(at(&diverge), "`let ... else` is not allowed in kernel code; use if/else");
                }
                let (s, v, t) = self.expr(&init.expr);
                out.extend(s);
                self.unify(ty, t, at(&init.expr));
                v
            }
            None => None,
        };
        match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let deferred = local.init.is_none();
                let name = self.bind(&p.ident.to_string(), ty, p.mutability.is_some() || deferred);
                out.push(CStmt::Decl { name, ty, init });
            }
            Pat::Wild(_) => {}
            other => {
                self.cx.error(
                    at(&other),
                    "only `let name = ...` and `let mut name = ...` are allowed in kernel code (no destructuring)",
                );
            }
        }
    }

    fn macro_error(&mut self, mac: &syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let message = match name.as_str() {
            "panic" | "unreachable" | "todo" | "unimplemented" | "assert" | "assert_eq" | "assert_ne"
            | "debug_assert" => {
                format!("`{name}!` is not allowed in kernel code: a kernel cannot panic; return a value that means \"no update\" instead")
            }
            _ => format!("macros like `{name}!` are not allowed in kernel code; write the expression out"),
        };
        self.cx.error(at(&mac), message);
    }

    /// An expression.
    fn expr(&mut self, e: &Expr) -> Lowered {
        match e {
            Expr::Lit(l) => self.literal(&l.lit, false),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Path(p) => self.path(p),
            Expr::Field(f) => self.field(f),
            Expr::Binary(b) => self.binary(b),
            Expr::Unary(u) => self.unary(u),
            Expr::Cast(c) => {
                let (s, v, from) = self.expr(&c.expr);
                let to = self.cx.ty_of(&c.ty).unwrap_or(Ty::Unit);
                let tv = self.cx.types.known(to);
                let a = Box::new(v.unwrap_or(CExpr::Raw("0".into())));
                (s, Some(CExpr::Cast { a, from, to }), tv)
            }
            Expr::If(i) => self.if_expr(i),
            Expr::Block(b) => {
                if b.label.is_some() {
                    return self.fail(at(&b), "labelled blocks are not allowed in kernel code");
                }
                let (mut s, v, t) = self.block(&b.block);
                if only_lines(&s) {
                    return (Vec::new(), v, t);
                }
                let Some(v) = v else { return (vec![CStmt::Block(s)], None, t) };
                // The value may read the block's own `let`s, which end with the C block: it is assigned
                // to a variable declared outside, inside the block.
                let tmp = self.temp("blk");
                s.push(CStmt::Assign { place: tmp.clone(), value: v });
                (vec![CStmt::Decl { name: tmp.clone(), ty: t, init: None }, CStmt::Block(s)], Some(CExpr::Raw(tmp)), t)
            }
            Expr::Match(m) => self.match_expr(m),
            Expr::MethodCall(m) => self.method_call(m),
            Expr::Call(c) => self.call(c),
            Expr::Return(r) => {
                let mut s = Vec::new();
                let v = match &r.expr {
                    Some(x) => {
                        let (xs, xv, xt) = self.expr(x);
                        s.extend(xs);
                        let ret = self.ret;
                        self.unify(ret, xt, at(&x));
                        xv
                    }
                    None => None,
                };
                s.push(CStmt::Return(v));
                let t = self.cx.types.known(Ty::Never);
                (s, None, t)
            }
            Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return self.fail(at(&b), "`break` with a label or a value is not allowed in kernel code");
                }
                let t = self.cx.types.known(Ty::Never);
                (vec![CStmt::Break], None, t)
            }
            Expr::Continue(c) => {
                if c.label.is_some() {
                    return self.fail(at(&c), "`continue` with a label is not allowed in kernel code");
                }
                let t = self.cx.types.known(Ty::Never);
                (vec![CStmt::Continue], None, t)
            }
            Expr::Assign(a) => self.assign(&a.left, None, &a.right, at(&a)),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Loop(_) | Expr::While(_) => self.fail(
                at(&e),
                "loops without a bound are not allowed in kernel code; use `for i in a..b` with a bounded range",
            ),
            Expr::Closure(_) => {
                self.fail(at(&e), "closures are not allowed in kernel code; write the expression inline")
            }
            Expr::Reference(_) => {
                self.fail(at(&e), "references are not allowed in kernel code; pass values (every kernel type is Copy)")
            }
            Expr::Index(ix) => self.index(ix),
            Expr::Array(_) | Expr::Repeat(_) => {
                self.fail(at(&e), "arrays are not allowed in kernel code; kernel values are scalars")
            }
            Expr::Tuple(t) if t.elems.is_empty() => {
                let t = self.cx.types.known(Ty::Unit);
                (Vec::new(), None, t)
            }
            Expr::Tuple(_) => self.fail(at(&e), "tuples are not allowed in kernel code; use separate scalar variables"),
            Expr::Struct(_) => {
                self.fail(at(&e), "struct literals are not allowed in kernel code; kernel values are scalars")
            }
            Expr::Macro(m) => {
                self.macro_error(&m.mac);
                let t = self.cx.types.known(Ty::Never);
                (Vec::new(), Some(CExpr::Raw("0".into())), t)
            }
            Expr::Unsafe(_) => self.fail(at(&e), "`unsafe` is not allowed in kernel code"),
            Expr::Try(_) => {
                self.fail(at(&e), "`?` is not allowed in kernel code: there is no Option or Result on the device")
            }
            Expr::Let(_) => self
                .fail(at(&e), "`if let` / `while let` are not allowed in kernel code; use `if` or `match` on integers"),
            Expr::Range(_) => self.fail(at(&e), "ranges are only allowed as the bound of a `for` loop in kernel code"),
            _ => self.fail(at(&e), "this expression is not allowed in kernel code"),
        }
    }

    fn literal(&mut self, lit: &Lit, negative: bool) -> Lowered {
        match lit {
            Lit::Int(i) => {
                let ty = match i.suffix() {
                    "" => self.cx.types.int_literal(),
                    s => match Ty::scalar(s) {
                        Some(t) if t.is_int() => self.cx.types.known(t),
                        _ => {
                            return self.fail(at(&i), format!("the literal suffix `{s}` is not allowed in kernel code"))
                        }
                    },
                };
                // syn folds the minus of a negative literal in a pattern (`-7 =>`) into the literal itself.
                let (negative, digits) = match i.base10_digits().strip_prefix('-') {
                    Some(digits) => (!negative, digits),
                    None => (negative, i.base10_digits()),
                };
                match digits.parse::<u128>() {
                    Ok(value) => (Vec::new(), Some(CExpr::Int { value, negative, ty, span: at(&i) }), ty),
                    Err(e) => self.fail(at(&i), e.to_string()),
                }
            }
            Lit::Float(f) => {
                let ty = match f.suffix() {
                    "" => self.cx.types.float_literal(),
                    "f32" => self.cx.types.known(Ty::F32),
                    "f64" => self.cx.types.known(Ty::F64),
                    s => return self.fail(at(&f), format!("the literal suffix `{s}` is not allowed in kernel code")),
                };
                let (negative, digits) = match f.base10_digits().strip_prefix('-') {
                    Some(digits) => (!negative, digits.to_string()),
                    None => (negative, f.base10_digits().to_string()),
                };
                (Vec::new(), Some(CExpr::Float { digits, negative, ty }), ty)
            }
            Lit::Bool(b) => {
                let t = self.cx.types.known(Ty::Bool);
                (Vec::new(), Some(CExpr::Raw(b.value.to_string())), t)
            }
            _ => {
                self.fail(at(&lit), "strings, characters and byte literals are not allowed in kernel code; use numbers")
            }
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Lowered {
        if p.qself.is_some() {
            return self.fail(at(&p), "qualified paths (`<T as Trait>::X`) are not allowed in kernel code");
        }
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let span = at(&p);
        if segs.len() == 1 {
            if segs[0] == "self" {
                return self.fail(span, "`self` can only be used to read a field (`self.delta`) in kernel code");
            }
            if let Some(local) = self.lookup(&segs[0]) {
                return (Vec::new(), Some(CExpr::Raw(local.c_name)), local.ty);
            }
        }
        // A primitive's constant: `u32::MAX`, `f32::INFINITY`, `std::f64::consts::PI`.
        let prim = segs.iter().position(|s| Ty::scalar(s).is_some() && s != "VertexId");
        if let (Some(i), Some(name)) = (prim, segs.last()) {
            let t = Ty::scalar(&segs[i]).expect("a scalar");
            let in_std = segs[..i].iter().all(|s| s == "std" || s == "core");
            let rest = &segs[i + 1..];
            let shape_ok = rest.len() == 1 || (rest.len() == 2 && rest[0] == "consts");
            if in_std && shape_ok {
                return match crate::lit::primitive_const(t, name) {
                    Some(text) => {
                        let tv = self.cx.types.known(crate::lit::primitive_const_ty(t, name));
                        (Vec::new(), Some(CExpr::Raw(text)), tv)
                    }
                    None => self.fail(span, format!("`{}` is not a constant kernel code knows", segs.join("::"))),
                };
            }
        }
        if segs.len() == 2 && segs[0] == "Self" {
            let (c, t) = match segs[1].as_str() {
                "IDENTITY" => ("SIMDX_IDENTITY", self.cx.value),
                "UNSEEN" => ("SIMDX_UNSEEN", self.cx.value),
                other => {
                    return self.fail(
                        span,
                        format!(
                            "`Self::{other}` is not available in kernel code; only `Self::IDENTITY` and `Self::UNSEEN`"
                        ),
                    )
                }
            };
            let tv = self.cx.types.known(t);
            return (Vec::new(), Some(CExpr::Raw(c.into())), tv);
        }
        // Anything else names a constant outside the impl; its value is taken from Rust.
        let key = segs.join("::");
        let c = format!("sx_c_{}", segs.join("_"));
        let ty = match self.cx.consts.get(&key) {
            Some(o) => o.ty,
            None => {
                let ty = self.cx.types.outside(span, format!("`{key}`"));
                self.cx
                    .consts
                    .insert(key, Outside { c_name: c.clone(), ty, rust: Expr::Path(p.clone()), array: false });
                ty
            }
        };
        (Vec::new(), Some(CExpr::Raw(c)), ty)
    }

    fn field(&mut self, f: &syn::ExprField) -> Lowered {
        let name = match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(_) => return self.fail(at(&f), "tuple fields are not allowed in kernel code"),
        };
        if let Expr::Path(p) = &*f.base {
            if p.path.is_ident("self") {
                return match self.self_field(f, &name, false) {
                    Some((field, ty)) => (Vec::new(), Some(field), ty),
                    None => self.fail(
                        at(&f),
                        format!(
                            "`self.{name}` is per-vertex data elsewhere in this program: read it by a vertex id, \
                             `self.{name}[v.id]`"
                        ),
                    ),
                };
            }
        }
        let (s, v, t) = self.expr(&f.base);
        if self.cx.types.get(t) == Some(Ty::Never) {
            // The base was already reported (or diverges): no second error about the field.
            return (s, Some(CExpr::Raw("0".into())), t);
        }
        let field_ty = match (self.cx.types.get(t), name.as_str()) {
            (Some(Ty::Vertex), "id" | "out_degree" | "in_degree" | "num_vertices") => Ty::U32,
            (Some(Ty::Edge), "src") => self.cx.message,
            (Some(Ty::Edge), "dst") => self.cx.value,
            (Some(Ty::Edge), "weight") => self.cx.weight,
            (Some(Ty::Edge), "src_out_degree") => Ty::U32,
            _ => {
                return self.fail(
                    at(&f),
                    format!("no field `{name}` here: kernel code reads fields of `self`, of a `Vertex` (id, out_degree, in_degree, num_vertices) and of an `Edge` (src, dst, weight, src_out_degree)"),
                )
            }
        };
        let tv = self.cx.types.known(field_ty);
        let base = Box::new(v.unwrap_or(CExpr::Raw("0".into())));
        (s, Some(CExpr::Field { base, field: name, arrow: false }), tv)
    }

    /// `self.name` as C, registering the field (`array`: read as per-vertex data); `None` when the
    /// field was registered the other way.
    fn self_field(&mut self, f: &syn::ExprField, name: &str, array: bool) -> Option<(CExpr, TyVar)> {
        if let Some(helper) = &self.cx.helper {
            let message =
                format!("a kernel helper function has no `self`; pass `self.{name}` to `{helper}` as a parameter");
            self.cx.error(at(&f), message);
            return Some((CExpr::Raw("0".into()), self.cx.types.known(Ty::Never)));
        }
        let c = c_name(name);
        let ty = match self.cx.fields.get(name) {
            Some(o) if o.array != array => return None,
            Some(o) => o.ty,
            None => {
                let what = if array { format!("`self.{name}[v.id]`") } else { format!("`self.{name}`") };
                let ty = self.cx.types.outside(at(&f), what);
                let member = &f.member;
                let rust: Expr = syn::parse_quote!(self.#member);
                self.cx.fields.insert(name.to_string(), Outside { c_name: c.clone(), ty, rust, array });
                ty
            }
        };
        let base = Box::new(CExpr::Raw("sx_self".into()));
        Some((CExpr::Field { base, field: c, arrow: true }, ty))
    }

    /// `self.x[v.id]`: a read of per-vertex data, by the id of a `Vertex` (so never out of range once
    /// the engine has checked the array's length against the graph).
    fn index(&mut self, ix: &syn::ExprIndex) -> Lowered {
        let field = match &*ix.expr {
            Expr::Field(f) if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self")) => f,
            _ => {
                return self.fail(
                    at(&ix),
                    "only per-vertex data can be indexed in kernel code, as `self.x[v.id]` (a `VertexData` \
                     field of the program, by the id of a `Vertex`)",
                )
            }
        };
        let syn::Member::Named(name) = &field.member else {
            return self.fail(at(&field), "tuple fields are not allowed in kernel code");
        };
        let name = name.to_string();
        if !self.is_vertex_id(&ix.index) {
            return self.fail(
                at(&ix.index),
                format!(
                    "per-vertex data is indexed by the id of a `Vertex` (`self.{name}[v.id]`), which is always \
                     in range; any other index could fall outside the array"
                ),
            );
        }
        let (s, index, _) = self.expr(&ix.index);
        let Some((base, ty)) = self.self_field(field, &name, true) else {
            return self.fail(
                at(&ix),
                format!("`self.{name}` is a scalar elsewhere in this program; only per-vertex data can be indexed"),
            );
        };
        let index = Box::new(index.unwrap_or(CExpr::Raw("0".into())));
        (s, Some(CExpr::Index { base: Box::new(base), index }), ty)
    }

    /// Whether `e` is `v.id` for a local `v` of type `Vertex`.
    fn is_vertex_id(&mut self, e: &Expr) -> bool {
        let Expr::Field(f) = e else { return false };
        let (syn::Member::Named(member), Expr::Path(p)) = (&f.member, &*f.base) else { return false };
        let local = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()));
        member == "id" && local.is_some_and(|l| self.cx.types.get(l.ty) == Some(Ty::Vertex))
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Lowered {
        let arith = |op: &BinOp| -> Option<(Arith, bool)> {
            Some(match op {
                BinOp::Add(_) => (Arith::Add, false),
                BinOp::Sub(_) => (Arith::Sub, false),
                BinOp::Mul(_) => (Arith::Mul, false),
                BinOp::Div(_) => (Arith::Div, false),
                BinOp::Rem(_) => (Arith::Rem, false),
                BinOp::BitAnd(_) => (Arith::And, false),
                BinOp::BitOr(_) => (Arith::Or, false),
                BinOp::BitXor(_) => (Arith::Xor, false),
                BinOp::Shl(_) => (Arith::Shl, false),
                BinOp::Shr(_) => (Arith::Shr, false),
                BinOp::AddAssign(_) => (Arith::Add, true),
                BinOp::SubAssign(_) => (Arith::Sub, true),
                BinOp::MulAssign(_) => (Arith::Mul, true),
                BinOp::DivAssign(_) => (Arith::Div, true),
                BinOp::RemAssign(_) => (Arith::Rem, true),
                BinOp::BitAndAssign(_) => (Arith::And, true),
                BinOp::BitOrAssign(_) => (Arith::Or, true),
                BinOp::BitXorAssign(_) => (Arith::Xor, true),
                BinOp::ShlAssign(_) => (Arith::Shl, true),
                BinOp::ShrAssign(_) => (Arith::Shr, true),
                _ => return None,
            })
        };
        if let Some((op, true)) = arith(&b.op) {
            return self.assign(&b.left, Some(op), &b.right, at(&b));
        }
        if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) {
            return self.logic(b);
        }
        let (mut s, va, ta) = self.expr(&b.left);
        let (sb, vb, tb) = self.expr(&b.right);
        let (a, bb) = (Box::new(va.unwrap_or(CExpr::Raw("0".into()))), Box::new(vb.unwrap_or(CExpr::Raw("0".into()))));
        if !sb.is_empty() {
            // Keep Rust's left-to-right order: the left operand is settled before the right one's statements.
            let t = self.temp("l");
            s.push(CStmt::Decl { name: t.clone(), ty: ta, init: Some(*a) });
            s.extend(sb);
            return self.finish_binary(b, s, Box::new(CExpr::Raw(t)), bb, ta, tb, &arith);
        }
        self.finish_binary(b, s, a, bb, ta, tb, &arith)
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_binary(
        &mut self,
        b: &syn::ExprBinary,
        s: Vec<CStmt>,
        a: Box<CExpr>,
        bb: Box<CExpr>,
        ta: TyVar,
        tb: TyVar,
        arith: &dyn Fn(&BinOp) -> Option<(Arith, bool)>,
    ) -> Lowered {
        let span = at(&b);
        if let Some((op, _)) = arith(&b.op) {
            if !matches!(op, Arith::Shl | Arith::Shr) {
                self.unify(ta, tb, span);
            }
            return (s, Some(CExpr::Arith { op, a, b: bb, ty: ta }), ta);
        }
        let op = match b.op {
            BinOp::Eq(_) => "==",
            BinOp::Ne(_) => "!=",
            BinOp::Lt(_) => "<",
            BinOp::Le(_) => "<=",
            BinOp::Gt(_) => ">",
            BinOp::Ge(_) => ">=",
            _ => return self.fail(span, "this operator is not allowed in kernel code"),
        };
        self.unify(ta, tb, span);
        let t = self.cx.types.known(Ty::Bool);
        (s, Some(CExpr::Infix { op, a, b: bb }), t)
    }

    /// `a && b`, `a || b`: short-circuit, so the right side's statements run only when needed.
    fn logic(&mut self, b: &syn::ExprBinary) -> Lowered {
        let and = matches!(b.op, BinOp::And(_));
        let (mut s, va, ta) = self.expr(&b.left);
        let (sb, vb, tb) = self.expr(&b.right);
        self.require(ta, Ty::Bool, at(&b.left));
        self.require(tb, Ty::Bool, at(&b.right));
        let t = self.cx.types.known(Ty::Bool);
        let (a, bv) = (va.unwrap_or(CExpr::Raw("false".into())), vb.unwrap_or(CExpr::Raw("false".into())));
        if sb.is_empty() {
            let op = if and { "&&" } else { "||" };
            return (s, Some(CExpr::Infix { op, a: Box::new(a), b: Box::new(bv) }), t);
        }
        let tmp = self.temp("b");
        s.push(CStmt::Decl { name: tmp.clone(), ty: t, init: Some(a) });
        let mut then = sb;
        then.push(CStmt::Assign { place: tmp.clone(), value: bv });
        let c = if and { CExpr::Raw(tmp.clone()) } else { CExpr::Raw(format!("!{tmp}")) };
        s.push(CStmt::If { c, then, otherwise: Vec::new() });
        (s, Some(CExpr::Raw(tmp)), t)
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Lowered {
        match u.op {
            UnOp::Neg(_) => {
                if let Expr::Lit(l) = &*u.expr {
                    return self.literal(&l.lit, true);
                }
                let (s, v, t) = self.expr(&u.expr);
                (s, Some(CExpr::Neg { a: Box::new(v.unwrap_or(CExpr::Raw("0".into()))), ty: t }), t)
            }
            UnOp::Not(_) => {
                let (s, v, t) = self.expr(&u.expr);
                (s, Some(CExpr::Not { a: Box::new(v.unwrap_or(CExpr::Raw("0".into()))), ty: t }), t)
            }
            UnOp::Deref(_) => {
                self.fail(at(&u), "references are not allowed in kernel code; pass values (every kernel type is Copy)")
            }
            _ => self.fail(at(&u), "this operator is not allowed in kernel code"),
        }
    }

    fn assign(&mut self, left: &Expr, op: Option<Arith>, right: &Expr, span: At) -> Lowered {
        let unit = self.cx.types.known(Ty::Unit);
        let local = match left {
            Expr::Path(p) if p.path.get_ident().is_some() => {
                self.lookup(&p.path.get_ident().expect("an ident").to_string())
            }
            _ => None,
        };
        let Some(local) = local else {
            self.cx.error(at(&left), "only local variables (`let mut x`) can be assigned in kernel code");
            return (Vec::new(), None, unit);
        };
        if !local.mutable {
            self.cx.error(at(&left), "this variable is not `mut`; kernel code assigns only `let mut` variables");
        }
        let (mut s, v, t) = self.expr(right);
        let v = v.unwrap_or(CExpr::Raw("0".into()));
        let value = match op {
            None => {
                self.unify(local.ty, t, span);
                v
            }
            Some(op) => {
                if !matches!(op, Arith::Shl | Arith::Shr) {
                    self.unify(local.ty, t, span);
                }
                CExpr::Arith { op, a: Box::new(CExpr::Raw(local.c_name.clone())), b: Box::new(v), ty: local.ty }
            }
        };
        s.push(CStmt::Assign { place: local.c_name, value });
        (s, None, unit)
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Lowered {
        let (mut s, c, ct) = self.expr(&i.cond);
        self.require(ct, Ty::Bool, at(&i.cond));
        let c = c.unwrap_or(CExpr::Raw("false".into()));
        let (s1, v1, t1) = self.block(&i.then_branch);
        let Some((_, else_expr)) = &i.else_branch else {
            s.push(CStmt::If { c, then: s1, otherwise: Vec::new() });
            let unit = self.cx.types.known(Ty::Unit);
            return (s, None, unit);
        };
        let (s2, v2, t2) = self.expr(else_expr);
        self.unify(t1, t2, at(&i));
        let t = if self.cx.types.get(t1) == Some(Ty::Never) { t2 } else { t1 };
        if only_lines(&s1) && only_lines(&s2) {
            if let (Some(a), Some(b)) = (&v1, &v2) {
                let e = CExpr::Ternary { c: Box::new(c), a: Box::new(a.clone()), b: Box::new(b.clone()) };
                return (s, Some(e), t);
            }
        }
        if v1.is_none() && v2.is_none() {
            s.push(CStmt::If { c, then: s1, otherwise: s2 });
            return (s, None, t);
        }
        let tmp = self.temp("if");
        s.push(CStmt::Decl { name: tmp.clone(), ty: t, init: None });
        let branch = |mut b: Vec<CStmt>, v: Option<CExpr>| {
            if let Some(v) = v {
                b.push(CStmt::Assign { place: tmp.clone(), value: v });
            }
            b
        };
        s.push(CStmt::If { c, then: branch(s1, v1), otherwise: branch(s2, v2) });
        (s, Some(CExpr::Raw(tmp)), t)
    }

    fn match_expr(&mut self, m: &syn::ExprMatch) -> Lowered {
        let (mut s, v, st) = self.expr(&m.expr);
        let scrutinee = self.temp("m");
        s.push(CStmt::Decl { name: scrutinee.clone(), ty: st, init: v });
        let result = self.cx.types.fresh();
        let tmp = self.temp("match");
        let mut arms: Vec<(Option<CExpr>, Vec<CStmt>)> = Vec::new();
        let mut has_value = false;
        for arm in &m.arms {
            self.scopes.push(Vec::new());
            let mut cond = self.pattern(&arm.pat, &scrutinee, st);
            if let Some((_, guard)) = &arm.guard {
                let (gs, gv, gt) = self.expr(guard);
                self.require(gt, Ty::Bool, at(&guard));
                if !gs.is_empty() {
                    self.cx.error(at(&guard), "a match guard in kernel code must be a simple condition");
                }
                let g = gv.unwrap_or(CExpr::Raw("false".into()));
                cond = Some(match cond {
                    Some(c) => CExpr::Infix { op: "&&", a: Box::new(c), b: Box::new(g) },
                    None => g,
                });
            }
            let (mut body, bv, bt) = self.expr(&arm.body);
            self.unify(result, bt, at(&arm.body));
            if let Some(bv) = bv {
                has_value = true;
                body.push(CStmt::Assign { place: tmp.clone(), value: bv });
            }
            self.scopes.pop();
            arms.push((cond, body));
        }
        // Rust checked exhaustiveness: the last arm without a guard needs no test.
        if let (Some(last), Some(arm)) = (arms.last_mut(), m.arms.last()) {
            if arm.guard.is_none() {
                last.0 = None;
            }
        }
        let mut chain: Vec<CStmt> = Vec::new();
        for (cond, body) in arms.into_iter().rev() {
            chain = match cond {
                None => body,
                Some(c) => vec![CStmt::If { c, then: body, otherwise: chain }],
            };
        }
        if has_value {
            s.push(CStmt::Decl { name: tmp.clone(), ty: result, init: None });
        }
        s.push(CStmt::Block(chain));
        (s, has_value.then_some(CExpr::Raw(tmp)), result)
    }

    /// The condition under which `pat` matches the scrutinee named `scrutinee` (`None`: always).
    fn pattern(&mut self, pat: &Pat, scrutinee: &str, st: TyVar) -> Option<CExpr> {
        let subject = || Box::new(CExpr::Raw(scrutinee.to_string()));
        match pat {
            Pat::Wild(_) => None,
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .push((p.ident.to_string(), Local { c_name: scrutinee.to_string(), ty: st, mutable: false }));
                None
            }
            Pat::Lit(l) => {
                let v = self.pattern_value(&Expr::Lit(l.clone()), st);
                Some(CExpr::Infix { op: "==", a: subject(), b: Box::new(v) })
            }
            Pat::Range(r) => {
                let lo = r.start.as_ref().map(|e| self.pattern_value(e, st));
                let hi = r.end.as_ref().map(|e| self.pattern_value(e, st));
                let hi_op = if matches!(r.limits, RangeLimits::Closed(_)) { "<=" } else { "<" };
                let parts: Vec<CExpr> = [
                    lo.map(|lo| CExpr::Infix { op: ">=", a: subject(), b: Box::new(lo) }),
                    hi.map(|hi| CExpr::Infix { op: hi_op, a: subject(), b: Box::new(hi) }),
                ]
                .into_iter()
                .flatten()
                .collect();
                parts.into_iter().reduce(|a, b| CExpr::Infix { op: "&&", a: Box::new(a), b: Box::new(b) })
            }
            Pat::Or(o) => {
                let mut out: Option<CExpr> = None;
                for case in &o.cases {
                    let c = self.pattern(case, scrutinee, st)?;
                    out = Some(match out {
                        Some(prev) => CExpr::Infix { op: "||", a: Box::new(prev), b: Box::new(c) },
                        None => c,
                    });
                }
                out
            }
            Pat::Paren(p) => self.pattern(&p.pat, scrutinee, st),
            other => {
                self.cx.error(at(&other), "kernel code matches integers and bools only: literals, ranges, `|` and `_`");
                None
            }
        }
    }

    fn pattern_value(&mut self, e: &Expr, st: TyVar) -> CExpr {
        let (_, v, t) = self.expr(e);
        let float_literal = matches!(e, Expr::Lit(l) if matches!(l.lit, Lit::Float(_)))
            || matches!(e, Expr::Unary(u) if matches!(&*u.expr, Expr::Lit(l) if matches!(l.lit, Lit::Float(_))));
        self.unify(st, t, at(&e));
        if float_literal || self.cx.types.get(t).is_some_and(Ty::is_float) {
            self.cx.error(at(&e), "match on floats is not allowed in kernel code; use if/else");
        }
        v.unwrap_or(CExpr::Raw("0".into()))
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Lowered {
        let name = m.method.to_string();
        if name == "unwrap" || name == "expect" {
            return self.fail(at(&m.method), format!("`{name}` is not allowed in kernel code: there is no Option or Result on the device, and a kernel cannot panic"));
        }
        if m.turbofish.is_some() {
            return self.fail(at(&m), "generic arguments on methods are not allowed in kernel code");
        }
        let mut args: Vec<&Expr> = vec![&m.receiver];
        args.extend(m.args.iter());
        self.scalar_method(&name, &args, at(&m.method), None)
    }

    fn scalar_method(&mut self, name: &str, args: &[&Expr], span: At, receiver_ty: Option<Ty>) -> Lowered {
        let Some(sig) = ir::method(name) else {
            return self.fail(
                span,
                format!("`{name}` is not supported in kernel code; the scalar methods are: {}", ir::METHODS),
            );
        };
        if args.len() != sig.arity + 1 {
            return self
                .fail(span, format!("`{name}` takes {} argument{}", sig.arity, if sig.arity == 1 { "" } else { "s" }));
        }
        let mut s = Vec::new();
        let mut values = Vec::new();
        let mut receiver = None;
        for a in args {
            let (xs, xv, xt) = self.expr(a);
            if !xs.is_empty() && !s.is_empty() {
                self.cx.error(
                    at(&a),
                    "method arguments in kernel code must be simple expressions; bind them with `let` first",
                );
            }
            s.extend(xs);
            match receiver {
                None => receiver = Some(xt),
                Some(r) => self.unify(r, xt, at(&a)),
            }
            values.push(xv.unwrap_or(CExpr::Raw("0".into())));
        }
        let recv = receiver.expect("a receiver");
        if let Some(t) = receiver_ty {
            self.require(recv, t, span);
        }
        let result = match sig.result {
            Some(t) => self.cx.types.known(t),
            None => recv,
        };
        (s, Some(CExpr::Method { name: name.to_string(), args: values, ty: recv, span }), result)
    }

    fn call(&mut self, c: &syn::ExprCall) -> Lowered {
        if let Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let args: Vec<&Expr> = c.args.iter().collect();
            // `f32::max(a, b)`, `u32::min(a, b)`: a scalar method called by its path.
            if segs.len() == 2 && Ty::scalar(&segs[0]).is_some() && ir::method(&segs[1]).is_some() {
                return self.scalar_method(&segs[1], &args, at(&c), Ty::scalar(&segs[0]));
            }
            // `std::cmp::min(a, b)`.
            let is_cmp = segs.len() >= 2 && segs[segs.len() - 2] == "cmp";
            if is_cmp && matches!(segs.last().map(String::as_str), Some("min" | "max")) {
                return self.scalar_method(segs.last().expect("a name"), &args, at(&c), None);
            }
            // `Vec::new`, `String::from`: associated functions of types are not kernel helpers.
            let of_a_type = segs.len() >= 2 && segs[segs.len() - 2].starts_with(char::is_uppercase);
            if of_a_type {
                let name = segs.join("::");
                return self.fail(
                    at(&c),
                    format!(
                        "calls to functions outside the kernel (`{name}`) are not allowed in kernel code; only scalar \
                         methods such as `a.min(b)` and `#[kernel_fn]` helper functions are"
                    ),
                );
            }
            return self.helper_call(c, p, &args);
        }
        self.fail(at(&c), "kernel code calls only scalar methods and `#[kernel_fn]` helper functions, by name")
    }

    /// A call of a `#[kernel_fn]` helper: its C name is a placeholder until the program's code is put
    /// together, and its types are those of the calls (the generated Rust checks them against the
    /// helper's signature).
    fn helper_call(&mut self, c: &syn::ExprCall, p: &syn::ExprPath, args: &[&Expr]) -> Lowered {
        let name = p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
        if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_empty()) {
            return self.fail(at(&c), format!("`{name}` must be called by a plain path in kernel code"));
        }
        if self.cx.helper.as_deref() == Some(name.as_str()) {
            return self.fail(at(&c), format!("`{name}` calls itself: kernel helper functions cannot recurse"));
        }
        let lowered: Vec<Lowered> = args.iter().map(|a| self.expr(a)).collect();
        // Keep Rust's left-to-right order: where an argument needs statements, each argument is
        // settled in a temporary right after its own.
        let settle = lowered.iter().any(|(xs, _, _)| !only_lines(xs));
        let mut s = Vec::new();
        let mut values = Vec::new();
        let mut types = Vec::new();
        for (xs, xv, xt) in lowered {
            s.extend(xs);
            let value = xv.unwrap_or(CExpr::Raw("0".into()));
            if settle {
                let t = self.temp("arg");
                s.push(CStmt::Decl { name: t.clone(), ty: xt, init: Some(value) });
                values.push(CExpr::Raw(t));
            } else {
                values.push(value);
            }
            types.push(xt);
        }
        let count = self.cx.helpers.len();
        let span = at(&c).0;
        let helper = self.cx.helpers.entry(name.clone()).or_insert_with(|| HelperCall {
            path: p.path.clone(),
            placeholder: format!("@SIMDX_FN_{count}@"),
            params: Vec::new(),
            result: usize::MAX,
            span,
        });
        let known = (helper.params.clone(), helper.result, helper.placeholder.clone());
        let (params, result, placeholder) = if known.1 == usize::MAX {
            let result = self.cx.types.outside(at(&c), format!("`{name}(..)`"));
            let h = self.cx.helpers.get_mut(&name).expect("just added");
            h.params = types.clone();
            h.result = result;
            (types.clone(), result, known.2)
        } else {
            known
        };
        if params.len() != types.len() {
            return self
                .fail(at(&c), format!("`{name}` is called with {} and with {} arguments", params.len(), types.len()));
        }
        for (p, t) in params.iter().zip(&types) {
            self.unify(*p, *t, at(&c));
        }
        (s, Some(CExpr::Call { name: placeholder, args: values }), result)
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Lowered {
        let unit = self.cx.types.known(Ty::Unit);
        if f.label.is_some() {
            return self.fail(at(&f), "labelled loops are not allowed in kernel code");
        }
        let Expr::Range(r) = &*f.expr else {
            return self.fail(at(&f.expr), "kernel code loops only over a bounded range: `for i in a..b`");
        };
        let (Some(lo), Some(hi)) = (&r.start, &r.end) else {
            return self.fail(at(&r), "a `for` loop in kernel code needs both bounds: `for i in a..b`");
        };
        let (mut s, lv, lt) = self.expr(lo);
        let (hs, hv, ht) = self.expr(hi);
        s.extend(hs);
        self.unify(lt, ht, at(&r));
        let Pat::Ident(p) = &*f.pat else {
            return self.fail(at(&f.pat), "the loop variable must be a plain name");
        };
        self.scopes.push(Vec::new());
        let var = self.bind(&p.ident.to_string(), lt, false);
        let end = self.temp("end");
        let (body, _, _) = self.block(&f.body);
        self.scopes.pop();
        s.push(CStmt::For {
            var,
            ty: lt,
            lo: lv.unwrap_or(CExpr::Raw("0".into())),
            hi: hv.unwrap_or(CExpr::Raw("0".into())),
            inclusive: matches!(r.limits, RangeLimits::Closed(_)),
            end,
            body,
        });
        (s, None, unit)
    }
}
