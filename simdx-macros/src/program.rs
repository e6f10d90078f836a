//! `#[graph_kernel]` on an `impl Program for T` block: checks the program's shape (value and weight
//! types, combine declarations, function signatures), lowers each function to CUDA C, fills in the
//! trait's defaults, and emits the `DeviceProgram` impl that carries the code and the parameters.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, Pat};

use crate::commutative;
use crate::ir::{CStmt, Render};
use crate::lower::{FnLowering, Lowering};
use crate::span::{at, error_at};
use crate::ty::Ty;

/// A parameter or result type of a trait function.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    Value,
    Message,
    Weightless(Ty),
}

/// The trait functions that become device code: name, parameters, result.
const FUNCTIONS: &[(&str, &[Slot], Slot)] = &[
    ("init", &[Slot::Weightless(Ty::Vertex)], Slot::Value),
    ("active", &[Slot::Value, Slot::Value], Slot::Weightless(Ty::Bool)),
    ("source_value", &[Slot::Weightless(Ty::Vertex), Slot::Value, Slot::Value], Slot::Message),
    ("compute", &[Slot::Weightless(Ty::Edge)], Slot::Value),
    ("combine", &[Slot::Value, Slot::Value], Slot::Value),
    ("apply", &[Slot::Weightless(Ty::Vertex), Slot::Value, Slot::Value, Slot::Weightless(Ty::F64)], Slot::Value),
    ("global", &[Slot::Weightless(Ty::Vertex), Slot::Value, Slot::Value], Slot::Weightless(Ty::F64)),
    ("can_update", &[Slot::Value], Slot::Weightless(Ty::Bool)),
    ("bucket", &[Slot::Value], Slot::Weightless(Ty::U32)),
    ("done", &[Slot::Weightless(Ty::U32), Slot::Weightless(Ty::F64)], Slot::Weightless(Ty::Bool)),
];

/// A lowered function: the line it starts on, its parameters' C names, its statements.
pub(crate) type LoweredFn = (usize, Vec<String>, Vec<CStmt>);

/// Functions the program must define itself.
const REQUIRED: &[&str] = &["init", "active", "compute"];

/// The expansion: the `DeviceProgram` impl and the per-vertex arrays (the fields the kernel code
/// indexes, by name: the order of their addresses in `device_params`), or the errors that stop it.
pub fn expand(item: &ItemImpl, krate: &TokenStream) -> Result<(TokenStream, Vec<String>), Vec<syn::Error>> {
    let mut errors = Vec::new();
    check_impl_shape(item, &mut errors);
    if !errors.is_empty() {
        // Not a program impl: nothing else about it is worth reporting.
        return Err(errors);
    }
    let value = assoc_type(item, "Value", &mut errors).unwrap_or(Ty::U32);
    let message = assoc_type(item, "Message", &mut errors).unwrap_or(value);
    let weight = assoc_type(item, "Weight", &mut errors).unwrap_or(Ty::Unit);
    for (name, ty) in [("Value", value), ("Message", message)] {
        if !(ty.is_int() || ty.is_float()) {
            errors.push(err(item, &format!("the program's `{name}` must be one of u32 i32 u64 i64 f32 f64")));
        }
    }
    if !matches!(weight, Ty::Unit | Ty::U32 | Ty::F32) {
        errors.push(err(item, "the program's `Weight` must be `()`, `u32` or `f32`"));
    }
    let op = assoc_const(item, "OP", &mut errors);
    let kind = assoc_const(item, "KIND", &mut errors);
    let fns: Vec<&ImplItemFn> =
        item.items.iter().filter_map(|i| if let ImplItem::Fn(f) = i { Some(f) } else { None }).collect();
    let find = |name: &str| fns.iter().copied().find(|f| f.sig.ident == name);
    for name in REQUIRED {
        if find(name).is_none() {
            errors.push(err(item, &format!("a program needs `fn {name}`; #[graph_kernel] found none in this impl")));
        }
    }
    check_combine(item, op.as_ref(), kind.as_ref(), find("combine"), &mut errors);

    let mut cx = Lowering::new(value, message, weight);
    let mut bodies: Vec<(&str, Option<LoweredFn>)> = Vec::new();
    for (name, params, ret) in FUNCTIONS {
        let lowered = find(name).map(|f| lower_fn(&mut cx, f, params, *ret, "a #[graph_kernel] program"));
        bodies.push((name, lowered.flatten()));
    }
    cx.finish_types();
    errors.append(&mut cx.errors);
    if !errors.is_empty() {
        return Err(errors);
    }

    let mut functions = String::new();
    let mut render = Render { types: &mut cx.types, errors: &mut errors, file: "@SIMDX_FILE@" };
    for (name, lowered) in &bodies {
        let (_, params, ret) = FUNCTIONS.iter().find(|f| f.0 == *name).expect("a known function");
        let ret_c = c_type(*ret);
        match lowered {
            Some((line, names, stmts)) => {
                let mut sig = vec!["const simdx_params* sx_self".to_string()];
                for (slot, n) in params.iter().zip(names) {
                    sig.push(format!("{} {n}", c_type(*slot)));
                }
                functions.push_str(&format!("#line {line} \"@SIMDX_FILE@\"\n"));
                functions
                    .push_str(&format!("__device__ __forceinline__ {ret_c} simdx_{name}({}) {{\n", sig.join(", ")));
                for n in std::iter::once("sx_self".to_string()).chain(names.iter().cloned()) {
                    functions.push_str(&format!("    (void){n};\n"));
                }
                render.stmts(stmts, 1, &mut functions);
                functions.push_str("}\n");
            }
            None => functions.push_str(&default_fn(name, value)),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let features = features(krate, &bodies, compute_reads_dst(item));

    let params = crate::params::Params::of(&mut cx);
    let arrays = params.arrays.clone();
    let params_c = &params.c;
    let self_ty = &item.self_ty;
    let type_name = quote!(#self_ty).to_string().replace(' ', "");
    let head = format!(
        "/* Device code of the simdx program `{type_name}`, generated by #[graph_kernel]. */\n\
         typedef {} simdx_value;\ntypedef {} simdx_msg;\ntypedef {} simdx_weight;\n#define SIMDX_WEIGHTED {}\n",
        value.c(),
        message.c(),
        weight.c(),
        (weight != Ty::Unit) as u32
    );
    let tail = format!(
        "{params_c}typedef struct {{\n    simdx_msg src;\n    simdx_value dst;\n    simdx_weight weight;\n    \
         simdx_u32 src_out_degree;\n}} simdx_edge;\n{functions}"
    );
    let defines = quote! {
        code.push_str(&<Self as #krate::acc::DeviceProgram>::FEATURES.defines());
        code.push_str(&#krate::acc::device::program_defines::<Self>());
    };
    let device_code = crate::code::device_code_fn(&mut cx, krate, &head, defines, &tail);
    let device_params = params.writer(krate);
    let tokens = quote! {
        impl #krate::acc::DeviceProgram for #self_ty {
            #features
            #device_code
            #device_params
        }
    };
    Ok((tokens, arrays))
}

/// `const FEATURES`: which optional functions the program defines (`bodies`: each function and its
/// lowering, `None` where the default is taken) and whether its `compute` reads the destination
/// (`reads_dst`: whether the engines may compute an arc's update before loading its destination, as
/// the CUDA engine's delta-stepping pushes do, kernels/state.cu, SX_DEFERS).
fn features(krate: &TokenStream, bodies: &[(&str, Option<LoweredFn>)], reads_dst: bool) -> TokenStream {
    let has = |name: &str| bodies.iter().any(|(n, lowered)| *n == name && lowered.is_some());
    let [source_value, combine, apply, global, can_update, bucket, done] =
        ["source_value", "combine", "apply", "global", "can_update", "bucket", "done"].map(has);
    quote! {
        const FEATURES: #krate::acc::device::DeviceFeatures = #krate::acc::device::DeviceFeatures {
            source_value: #source_value,
            combine: #combine,
            apply: #apply,
            global: #global,
            can_update: #can_update,
            bucket: #bucket,
            done: #done,
            compute_reads_dst: #reads_dst,
        };
    }
}

/// The constants of `ProgramHints` (with `fn vertex_arrays`, its items), which an impl of `Program`
/// under the macro may declare: they are moved into the hints' impl.
const HINTS: [&str; 4] = ["SILENT", "IDENTITY_KEEPS_VALUE", "SOURCE_IGNORES_SENT", "USES_GLOBAL"];

/// The impl with what the macro fills in added, or `None` when nothing is to add, and the impl of
/// `ProgramHints` for the same type (made for every trait impl; an inherent impl, an error the macro
/// reports, gets none). The impl gets:
/// * `type Message = <its Value>;` after `type Value`, when it declares a `Value` but no `Message`
///   (Rust has no defaults for associated types);
/// * `#[inline]` on every method without an inline attribute: the engine calls them once per edge
///   or vertex from another crate, where a method not so marked is a call (SSSP's `bucket`, a
///   division, cost a grid run noticeably as a call; measurements: `docs/experiments/cpu-sssp.md`).
///
/// The hints hold the [`HINTS`] the impl declares itself (moved out of it), and otherwise:
/// * `fn vertex_arrays` listing `arrays`, the fields that kernel code indexes (`self.x[v.id]`, from
///   [`expand`]);
/// * `const SOURCE_IGNORES_SENT: bool = true;` when its `source_value` ignores `sent`
///   ([`source_ignores_sent`]);
/// * `const USES_GLOBAL: bool = true;` when it defines `global` and its `apply` reads the sum
///   ([`uses_global`]);
/// * `const SILENT = Some(0)` when a 0 message provably adds nothing ([`zero_is_silent`]);
/// * `const IDENTITY_KEEPS_VALUE: bool = true;` when its `apply` returns `old` when handed the
///   identity and a 0 sum ([`identity_keeps_value`]).
pub fn with_defaults(item: &ItemImpl, krate: &TokenStream, arrays: &[String]) -> (Option<ItemImpl>, Option<ItemImpl>) {
    let mut out = item.clone();
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let mut hints: ItemImpl =
        syn::parse_quote!(impl #impl_generics #krate::acc::ProgramHints for #self_ty #where_clause {});
    let is_hint = |i: &ImplItem| match i {
        ImplItem::Const(c) => HINTS.iter().any(|h| c.ident == h),
        ImplItem::Fn(f) => f.sig.ident == "vertex_arrays",
        _ => false,
    };
    hints.items.extend(item.items.iter().filter(|i| is_hint(i)).cloned());
    let moved = item.items.iter().any(is_hint);
    out.items.retain(|i| !is_hint(i));
    crate::params::add_vertex_arrays(item, &mut hints, krate, arrays);
    let declares = |name: &str| item.items.iter().position(|i| matches!(i, ImplItem::Type(t) if t.ident == name));
    if let (None, Some(at)) = (declares("Message"), declares("Value")) {
        if let ImplItem::Type(value) = &item.items[at] {
            let mut message = value.clone();
            message.ident = syn::Ident::new("Message", value.ident.span());
            message.attrs.clear();
            out.items.insert(at + 1, ImplItem::Type(message));
        }
    }
    let declares_const = |name: &str| item.items.iter().any(|i| matches!(i, ImplItem::Const(c) if c.ident == name));
    if !declares_const("SOURCE_IGNORES_SENT") && source_ignores_sent(item) {
        hints.items.push(syn::parse_quote!(
            const SOURCE_IGNORES_SENT: bool = true;
        ));
    }
    if !declares_const("USES_GLOBAL") && uses_global(item) {
        hints.items.push(syn::parse_quote!(
            const USES_GLOBAL: bool = true;
        ));
    }
    if !declares_const("SILENT") && zero_is_silent(item) {
        hints.items.push(syn::parse_quote!(
            const SILENT: ::core::option::Option<<Self as #krate::acc::Program>::Message> =
                ::core::option::Option::Some(0 as <Self as #krate::acc::Program>::Message);
        ));
    }
    if !declares_const("IDENTITY_KEEPS_VALUE") && identity_keeps_value(item) {
        hints.items.push(syn::parse_quote!(
            const IDENTITY_KEEPS_VALUE: bool = true;
        ));
    }
    let mut marked = false;
    for f in out.items.iter_mut().filter_map(|i| match i {
        ImplItem::Fn(f) => Some(f),
        _ => None,
    }) {
        if !f.attrs.iter().any(|a| a.path().is_ident("inline")) {
            f.attrs.push(syn::parse_quote!(#[inline]));
            marked = true;
        }
    }
    ((marked || moved || out.items.len() != item.items.len()).then_some(out), item.trait_.is_some().then_some(hints))
}

/// Whether the impl's `source_value` ignores its `sent` parameter (the third): it has none (the
/// default ignores it), or the parameter is `_`, or its name appears nowhere in the body (a
/// conservative test: a shadowing binding of the same name counts as a use).
fn source_ignores_sent(item: &ItemImpl) -> bool {
    let source_value = item.items.iter().find_map(|i| match i {
        ImplItem::Fn(f) if f.sig.ident == "source_value" => Some(f),
        _ => None,
    });
    let Some(f) = source_value else { return true };
    match f.sig.inputs.iter().nth(3) {
        Some(FnArg::Typed(arg)) => match &*arg.pat {
            Pat::Wild(_) => true,
            Pat::Ident(id) => !mentions(quote::ToTokens::to_token_stream(&f.block), &id.ident),
            _ => false,
        },
        _ => false,
    }
}

/// The impl's method `name`, if it has one.
fn method<'a>(item: &'a ItemImpl, name: &str) -> Option<&'a ImplItemFn> {
    item.items.iter().find_map(|i| match i {
        ImplItem::Fn(f) if f.sig.ident == name => Some(f),
        _ => None,
    })
}

/// Whether the `index`-th parameter of `f` (0 is `&self`) is named and its name appears in the body.
fn reads_param(f: &ImplItemFn, index: usize) -> bool {
    match f.sig.inputs.iter().nth(index) {
        Some(FnArg::Typed(arg)) => match &*arg.pat {
            Pat::Ident(id) => mentions(quote::ToTokens::to_token_stream(&f.block), &id.ident),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `compute` may read its edge's `dst` (the destination's value): the identifier `dst`
/// appears anywhere in it (`e.dst`, or a pattern naming the field). A `compute` that never names it
/// gives the same update whatever the destination holds.
fn compute_reads_dst(item: &ItemImpl) -> bool {
    let dst = syn::Ident::new("dst", proc_macro2::Span::call_site());
    method(item, "compute").map_or(true, |f| mentions(quote::ToTokens::to_token_stream(f), &dst))
}

/// Whether the sum of `global` matters: the impl defines `global` (the default is 0 everywhere) and
/// its `apply` reads the `global` parameter (the fourth).
fn uses_global(item: &ItemImpl) -> bool {
    method(item, "global").is_some() && method(item, "apply").is_some_and(|apply| reads_param(apply, 4))
}

/// Whether the message 0 provably contributes nothing: the combine is `Sum` with identity 0, and
/// `compute` returns the message itself (`e.src`, or `e.src as T`), so a 0 message yields 0 on every
/// edge whatever its weight and destination.
fn zero_is_silent(item: &ItemImpl) -> bool {
    let const_expr = |name: &str| {
        item.items.iter().find_map(|i| match i {
            ImplItem::Const(c) if c.ident == name => Some(&c.expr),
            _ => None,
        })
    };
    let is_sum = matches!(const_expr("OP"), Some(syn::Expr::Path(p)) if p.path.segments.last().is_some_and(|s| s.ident == "Sum"));
    let zero_identity = matches!(const_expr("IDENTITY"), Some(syn::Expr::Lit(l)) if match &l.lit {
        syn::Lit::Int(i) => i.base10_digits() == "0",
        syn::Lit::Float(f) => f.base10_parse::<f64>().is_ok_and(|x| x == 0.0),
        _ => false,
    });
    let Some(compute) = method(item, "compute") else { return false };
    let Some(FnArg::Typed(arg)) = compute.sig.inputs.iter().nth(1) else { return false };
    let Pat::Ident(edge) = &*arg.pat else { return false };
    let [syn::Stmt::Expr(body, None)] = compute.block.stmts.as_slice() else { return false };
    let mut body = body;
    while let syn::Expr::Cast(c) = body {
        body = &c.expr;
    }
    while let syn::Expr::Paren(p) = body {
        body = &p.expr;
    }
    let returns_src = matches!(body, syn::Expr::Field(f)
        if matches!(&f.member, syn::Member::Named(m) if m == "src")
            && matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(&edge.ident)));
    is_sum && zero_identity && returns_src
}

/// What an expression of `apply` is worth when its combined update is the identity and its sum 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Worth {
    /// Zero (for finite operands: `x * 0` and `0 / x` count as 0).
    Zero,
    /// The `old` parameter itself.
    Old,
    /// Anything else.
    Unknown,
}

/// Whether `apply(v, old, IDENTITY, 0.0) == old` follows from the code: the impl has no `apply` (the
/// default combines `old` with the identity), or its `apply` is one expression that reduces to `old`
/// when its combined update (third parameter) is the identity, written as a literal 0, and its sum
/// (fourth) is 0, by the rules `old + 0`, `0 + old`, `old - 0`, `0 + 0`, `0 * x`, `x * 0`, `0 / x`,
/// parentheses, blocks of one expression and casts of 0. PageRank's `old + d * (incoming + dangling /
/// n)` qualifies. Debug builds of the CPU engine still check the promise where they rely on it.
fn identity_keeps_value(item: &ItemImpl) -> bool {
    let Some(apply) = method(item, "apply") else { return true };
    let zero_identity =
        item.items.iter().any(|i| matches!(i, ImplItem::Const(c) if c.ident == "IDENTITY" && is_zero(&c.expr)));
    let name = |index: usize| match apply.sig.inputs.iter().nth(index) {
        Some(FnArg::Typed(arg)) => match &*arg.pat {
            Pat::Ident(id) => Some(id.ident.clone()),
            _ => None,
        },
        _ => None,
    };
    let (Some(old), combined, global) = (name(2), name(3), name(4)) else { return false };
    let zeros: Vec<syn::Ident> = [zero_identity.then_some(combined).flatten(), global].into_iter().flatten().collect();
    let [syn::Stmt::Expr(body, None)] = apply.block.stmts.as_slice() else { return false };
    worth(body, &old, &zeros) == Worth::Old
}

/// Whether `e` is the literal 0 (integer or float).
fn is_zero(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Lit(l) if match &l.lit {
        syn::Lit::Int(i) => i.base10_digits() == "0",
        syn::Lit::Float(f) => f.base10_parse::<f64>().is_ok_and(|x| x == 0.0),
        _ => false,
    })
}

/// What `e` is worth when `old` is the old value and every name in `zeros` is 0 (see [`Worth`]).
fn worth(e: &syn::Expr, old: &syn::Ident, zeros: &[syn::Ident]) -> Worth {
    use syn::{BinOp, Expr};
    match e {
        _ if is_zero(e) => Worth::Zero,
        Expr::Path(p) if p.path.is_ident(old) => Worth::Old,
        Expr::Path(p) if zeros.iter().any(|z| p.path.is_ident(z)) => Worth::Zero,
        Expr::Paren(p) => worth(&p.expr, old, zeros),
        Expr::Group(g) => worth(&g.expr, old, zeros),
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => worth(inner, old, zeros),
            _ => Worth::Unknown,
        },
        Expr::Cast(c) if worth(&c.expr, old, zeros) == Worth::Zero => Worth::Zero,
        Expr::Binary(b) => {
            let (l, r) = (worth(&b.left, old, zeros), worth(&b.right, old, zeros));
            match (&b.op, l, r) {
                (BinOp::Add(_), Worth::Zero, x) | (BinOp::Add(_), x, Worth::Zero) => x,
                (BinOp::Sub(_), x, Worth::Zero) => x,
                (BinOp::Mul(_), Worth::Zero, _) | (BinOp::Mul(_), _, Worth::Zero) => Worth::Zero,
                (BinOp::Div(_), Worth::Zero, _) => Worth::Zero,
                _ => Worth::Unknown,
            }
        }
        _ => Worth::Unknown,
    }
}

/// Whether `tokens` contain the identifier `name`, at any depth.
fn mentions(tokens: TokenStream, name: &syn::Ident) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == *name,
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), name),
        _ => false,
    })
}

pub(crate) fn err(item: &impl quote::ToTokens, message: &str) -> syn::Error {
    error_at(at(item), message)
}

fn check_impl_shape(item: &ItemImpl, errors: &mut Vec<syn::Error>) {
    let is_program = item.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).is_some_and(|s| s.ident == "Program");
    if !is_program {
        errors.push(err(&item.self_ty, "#[graph_kernel] goes on an `impl Program for YourProgram { ... }` block"));
    }
    if !item.generics.params.is_empty() {
        errors
            .push(err(&item.generics, "a #[graph_kernel] program cannot be generic; write one impl per concrete type"));
    }
    if let Some(u) = &item.unsafety {
        errors.push(err(u, "`unsafe impl` is not allowed for a #[graph_kernel] program"));
    }
}

/// `type Value = u32;` and the like.
pub(crate) fn assoc_type(item: &ItemImpl, name: &str, errors: &mut Vec<syn::Error>) -> Option<Ty> {
    let t = item.items.iter().find_map(|i| match i {
        ImplItem::Type(t) if t.ident == name => Some(t),
        _ => None,
    })?;
    let mut cx = Lowering::new(Ty::U32, Ty::U32, Ty::Unit);
    let ty = cx.ty_of(&t.ty);
    errors.append(&mut cx.errors);
    ty
}

/// The variant named by `const OP: CombineOp = CombineOp::Min;` and the like.
pub(crate) fn assoc_const(item: &ItemImpl, name: &str, errors: &mut Vec<syn::Error>) -> Option<syn::Ident> {
    let c = item.items.iter().find_map(|i| match i {
        ImplItem::Const(c) if c.ident == name => Some(c),
        _ => None,
    })?;
    match &c.expr {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
        other => {
            errors.push(err(
                other,
                &format!("#[graph_kernel] needs `{name}` written as a variant, e.g. `CombineOp::Min`"),
            ));
            None
        }
    }
}

/// Voting needs a combine whose result does not depend on which update came first.
fn check_combine(
    item: &ItemImpl,
    op: Option<&syn::Ident>,
    kind: Option<&syn::Ident>,
    combine: Option<&ImplItemFn>,
    errors: &mut Vec<syn::Error>,
) {
    let voting = kind.is_some_and(|k| k == "Voting");
    match op.map(|o| o.to_string()).as_deref() {
        Some("Sum") if voting => errors.push(err(
            op.expect("an op"),
            "a voting program keeps any one update, but `CombineOp::Sum` needs every update; use \
             `CombineKind::Aggregate`, or a Min/Max/Or combine for voting",
        )),
        Some("Custom") if combine.is_none() => {
            errors.push(err(item, "`CombineOp::Custom` needs the program's own `fn combine(&self, a, b)`"))
        }
        _ => {}
    }
    if let (true, Some(f)) = (voting, combine) {
        if !commutative::is_commutative(f) {
            errors.push(err(
                &f.sig.ident,
                "a voting program's combine must be commutative (the same for `combine(a, b)` and \
                 `combine(b, a)`), and this one is not; use `CombineKind::Aggregate` or a symmetric combine \
                 such as `a.min(b)`",
            ));
        }
    }
}

/// Checks a function's signature against the trait's and lowers its body; returns the line it starts
/// on, its parameters' C names and its statements.
pub(crate) fn lower_fn(cx: &mut Lowering, f: &ImplItemFn, params: &[Slot], ret: Slot, what: &str) -> Option<LoweredFn> {
    let sig = &f.sig;
    let name = sig.ident.to_string();
    let expected = params.len() + 1;
    let count = match params.len() {
        1 => "one parameter".to_string(),
        k => format!("{k} parameters"),
    };
    let shape = format!("`fn {name}` takes `&self` and {count} in {what}");
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.unsafety.is_some() || sig.constness.is_some() {
        cx.error(at(&sig), format!("`fn {name}` must be a plain function: no generics, async, unsafe or const"));
        return None;
    }
    if sig.inputs.len() != expected {
        cx.error(at(&sig.inputs), shape);
        return None;
    }
    match sig.inputs.first() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        Some(other) => {
            cx.error(at(&other), format!("{shape}: the first must be `&self`"));
            return None;
        }
        None => return None,
    }
    let ret_ty = slot_ty(ret, cx);
    let mut lowering = FnLowering::new(cx, ret_ty);
    let mut names = Vec::new();
    for (i, (arg, slot)) in sig.inputs.iter().skip(1).zip(params).enumerate() {
        let FnArg::Typed(pt) = arg else { continue };
        let ty = slot_ty(*slot, lowering.cx);
        match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                names.push(lowering.param(&p.ident.to_string(), ty));
            }
            Pat::Wild(_) => names.push(format!("sx_unused{i}")),
            other => {
                lowering.cx.error(at(&other), "parameters of kernel functions must be plain names (no destructuring)");
                names.push(format!("sx_unused{i}"));
            }
        }
    }
    let stmts = lowering.body(&f.block);
    Some((sig.span().start().line, names, stmts))
}

fn slot_ty(slot: Slot, cx: &Lowering) -> Ty {
    match slot {
        Slot::Value => cx.value,
        Slot::Message => cx.message,
        Slot::Weightless(t) => t,
    }
}

pub(crate) fn c_type(slot: Slot) -> &'static str {
    match slot {
        Slot::Value => "simdx_value",
        Slot::Message => "simdx_msg",
        Slot::Weightless(t) => t.c(),
    }
}

/// The trait's default for a function the program does not define, as C.
pub(crate) fn default_fn(name: &str, value: Ty) -> String {
    let f = "__device__ __forceinline__";
    let tag = value.tag();
    match name {
        "combine" => {
            // Chosen by the preprocessor from `SIMDX_OP`, which carries the Rust value of `OP` (however
            // the program spells it).
            let fs = if value == Ty::F32 { "f" } else { "" };
            let (min, max, sum, or) = if value.is_float() {
                (format!("fmin{fs}(a, b)"), format!("fmax{fs}(a, b)"), "a + b".to_string(), "a".to_string())
            } else if value.is_signed_int() {
                (format!("simdx_min_{tag}(a, b)"), format!("simdx_max_{tag}(a, b)"), format!("simdx_add_{tag}(a, b)"), "a | b".into())
            } else {
                (format!("simdx_min_{tag}(a, b)"), format!("simdx_max_{tag}(a, b)"), "a + b".to_string(), "a | b".into())
            };
            // `CombineOp::Or` on floats panics on the CPU; the device keeps the first update.
            format!(
                "{f} simdx_value simdx_combine(const simdx_params* sx_self, simdx_value a, simdx_value b) {{\n    (void)sx_self;\n    (void)b;\n#if SIMDX_OP == SIMDX_OP_MIN\n    return {min};\n#elif SIMDX_OP == SIMDX_OP_MAX\n    return {max};\n#elif SIMDX_OP == SIMDX_OP_SUM\n    return {sum};\n#elif SIMDX_OP == SIMDX_OP_OR\n    return {or};\n#else\n    return a;\n#endif\n}}\n"
            )
        }
        "apply" => format!(
            "{f} simdx_value simdx_apply(const simdx_params* sx_self, simdx_vertex v, simdx_value old, simdx_value combined, simdx_f64 global) {{\n    (void)v;\n    (void)global;\n    return simdx_combine(sx_self, old, combined);\n}}\n"
        ),
        "global" => format!(
            "{f} simdx_f64 simdx_global(const simdx_params* sx_self, simdx_vertex v, simdx_value value, simdx_value sent) {{\n    (void)sx_self;\n    (void)v;\n    (void)value;\n    (void)sent;\n    return 0.0;\n}}\n"
        ),
        "source_value" => format!(
            "{f} simdx_msg simdx_source_value(const simdx_params* sx_self, simdx_vertex v, simdx_value value, simdx_value sent) {{\n    (void)sx_self;\n    (void)v;\n    (void)sent;\n    return (simdx_msg)value;\n}}\n"
        ),
        "can_update" => format!(
            "{f} bool simdx_can_update(const simdx_params* sx_self, simdx_value value) {{\n    (void)sx_self;\n    (void)value;\n    return true;\n}}\n"
        ),
        "bucket" => format!(
            "{f} simdx_u32 simdx_bucket(const simdx_params* sx_self, simdx_value value) {{\n    (void)sx_self;\n    (void)value;\n    return 0u;\n}}\n"
        ),
        "done" => format!(
            "{f} bool simdx_done(const simdx_params* sx_self, simdx_u32 iterations, simdx_f64 change) {{\n    (void)sx_self;\n    (void)iterations;\n    (void)change;\n    return false;\n}}\n"
        ),
        // init, active and compute are required; their absence was reported.
        _ => String::new(),
    }
}
