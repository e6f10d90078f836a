//! `#[kernel_fn]`: a free function that kernel code may call. The function stays as it is for the CPU;
//! beside it the macro emits a hidden function `__kernel_fn_<name>` that appends the helper's CUDA C
//! (and that of the helpers it calls, each once) to a program's device code and returns the helper's
//! C name. A program's code refers to a helper through a placeholder, replaced at run time by that
//! name, and the generated Rust checks each call's types against the helper's signature.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{FnArg, ItemFn, Pat, ReturnType};

use crate::ir::Render;
use crate::lower::{FnLowering, Lowering};
use crate::span::{at, error_at};
use crate::ty::Ty;

/// The Rust that links a program's (or a helper's) helper calls: for each, a check of the call's types
/// against the helper's signature, then the helper's code appended to `code` and its placeholder in
/// `tail` replaced by its C name. Expects `code: &mut String` and `tail: String` in scope.
pub fn link_calls(cx: &mut Lowering) -> TokenStream {
    let mut out = TokenStream::new();
    let names: Vec<String> = cx.helpers.keys().cloned().collect();
    for name in names {
        let h = &cx.helpers[&name];
        let (path, placeholder, span) = (h.path.clone(), h.placeholder.clone(), h.span);
        let (params, result) = (h.params.clone(), h.result);
        let params: Vec<TokenStream> = params.iter().map(|t| rust_ty(cx.types.get(*t).unwrap_or(Ty::Unit))).collect();
        let result = rust_ty(cx.types.get(result).unwrap_or(Ty::Unit));
        let mut hidden = path.clone();
        if let Some(last) = hidden.segments.last_mut() {
            last.ident = format_ident!("__kernel_fn_{}", last.ident, span = span);
        }
        out.extend(quote_spanned! {span=>
            let _: fn(#(#params),*) -> #result = #path;
            let c_name: &'static str = #hidden(code);
            tail = tail.replace(#placeholder, c_name);
        });
    }
    out
}

fn rust_ty(t: Ty) -> TokenStream {
    let id = syn::Ident::new(t.rust(), proc_macro2::Span::call_site());
    quote!(#id)
}

/// The expansion of `#[kernel_fn]` on `f`: the function (marked `#[inline]`) and its hidden code
/// function, or the errors.
pub fn expand(f: &ItemFn, krate: &TokenStream) -> Result<TokenStream, Vec<syn::Error>> {
    let sig = &f.sig;
    let name = sig.ident.to_string();
    let mut cx = Lowering::new(Ty::U32, Ty::U32, Ty::Unit);
    cx.helper = Some(name.clone());
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.unsafety.is_some() || sig.variadic.is_some() {
        cx.error(
            at(&sig),
            format!(
                "`fn {name}` must be a plain function to run in kernel code: no generics, async, unsafe or variadics"
            ),
        );
    }
    let ret = match &sig.output {
        ReturnType::Type(_, t) => cx.ty_of(t),
        ReturnType::Default => {
            cx.error(
                at(&sig),
                format!("a kernel helper returns a scalar: give `fn {name}` a result type such as `-> f32`"),
            );
            None
        }
    };
    let scalar = |t: Option<Ty>| t.filter(|t| t.is_int() || t.is_float() || *t == Ty::Bool);
    if ret.is_some() && scalar(ret).is_none() {
        cx.error(at(&sig.output), "a kernel helper returns one of the scalars u32 i32 u64 i64 f32 f64 bool");
    }
    let mut params = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => cx.error(at(&r), "a kernel helper is a free function, without `self`"),
            FnArg::Typed(pt) => {
                let ty = cx.ty_of(&pt.ty);
                if ty.is_some() && scalar(ty).is_none() {
                    cx.error(at(&pt.ty), "a kernel helper's parameters are scalars: u32 i32 u64 i64 f32 f64 bool");
                }
                params.push((pt, scalar(ty).unwrap_or(Ty::U32)));
            }
        }
    }
    if !cx.errors.is_empty() {
        return Err(cx.errors);
    }
    let ret = scalar(ret).unwrap_or(Ty::U32);
    let mut lowering = FnLowering::new(&mut cx, ret);
    let mut c_params = Vec::new();
    for (i, (pt, ty)) in params.iter().enumerate() {
        match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                c_params.push((ty.c(), lowering.param(&p.ident.to_string(), *ty)));
            }
            Pat::Wild(_) => c_params.push((ty.c(), format!("sx_unused{i}"))),
            other => {
                lowering.cx.error(at(&other), "parameters of kernel functions must be plain names (no destructuring)");
            }
        }
    }
    let stmts = lowering.body(&f.block);
    cx.finish_types();
    if !cx.errors.is_empty() {
        return Err(cx.errors);
    }

    // A C name unique to this helper's source, so that helpers of one name in two modules never meet.
    let tokens = quote!(#f).to_string();
    let hash = tokens.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let c_name = format!("sx_fn_{name}_{hash:016x}");
    let mut errors = Vec::new();
    let mut body = String::new();
    let mut render = Render { types: &mut cx.types, errors: &mut errors, file: "@SIMDX_FILE@" };
    let line = sig.ident.span().start().line;
    let list: Vec<String> = c_params.iter().map(|(t, n)| format!("{t} {n}")).collect();
    body.push_str(&format!("#line {line} \"@SIMDX_FILE@\"\n"));
    body.push_str(&format!("__device__ __forceinline__ {} {c_name}({}) {{\n", ret.c(), list.join(", ")));
    for (_, n) in &c_params {
        body.push_str(&format!("    (void){n};\n"));
    }
    render.stmts(&stmts, 1, &mut body);
    body.push_str("}\n");
    if !errors.is_empty() {
        return Err(errors);
    }
    let consts = cx.const_defines(krate);
    let calls = link_calls(&mut cx);
    let hidden = format_ident!("__kernel_fn_{}", sig.ident);
    let vis = &f.vis;
    let marker = format!("/* kernel_fn {c_name} */\n");
    let mut item = f.clone();
    if !item.attrs.iter().any(|a| a.path().is_ident("inline")) {
        item.attrs.push(syn::parse_quote!(#[inline]));
    }
    Ok(quote! {
        #item

        /// The CUDA C of a `#[kernel_fn]` (generated): appends it to `code` once, after the helpers
        /// it calls, and returns its C name.
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code)]
        #vis fn #hidden(code: &mut ::std::string::String) -> &'static str {
            if !code.contains(#marker) {
                code.push_str(#marker);
                let mut tail = ::std::string::String::from(#body);
                #calls
                #consts
                code.push_str(&tail.replace("@SIMDX_FILE@", ::core::file!()));
            }
            #c_name
        }
    })
}

/// The error for `#[kernel_fn]` on something that is not a free function.
pub fn not_a_function(tokens: &TokenStream) -> syn::Error {
    error_at(at(tokens), "#[kernel_fn] goes on a free function, e.g. `#[kernel_fn] fn sigmoid(x: f32) -> f32 { .. }`")
}
