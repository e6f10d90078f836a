//! simdx-macros: `#[graph_kernel]`, which turns a program's Active / Compute / Combine functions into
//! both CPU code (the functions, unchanged) and CUDA C device code (a `DeviceProgram` impl);
//! `#[search_kernel]`, the same for a search program's `discovered` (a `DeviceSearchProgram` impl); and
//! `#[kernel_fn]` for helper functions that kernel code calls.
//!
//! The macro goes on an `impl Program for T` block. It accepts a subset of Rust — scalars
//! (`u32 i32 u64 i64 f32 f64 bool`), the `Vertex` and `Edge` views, arithmetic, comparisons, `let`,
//! `if`/`else`, `match` on integers, bounded `for` loops, scalar methods (`min`, `max`, `sqrt`, ...),
//! fields of `self` and constants — and reports everything else at its span. The original impl is
//! always emitted, so the CPU path and rust-analyzer keep working while errors are shown.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

mod code;
mod commutative;
mod helper;
mod ir;
mod lit;
mod lower;
mod params;
mod program;
mod search;
mod span;
mod ty;

/// Makes an `impl Program for T` block run on every simdx backend: the functions stay as they are for
/// the CPU, and their CUDA C translation is emitted as `impl DeviceProgram for T`. An impl that leaves
/// out `type Message` gets `type Message = <its Value>;` (messages are values unless it says otherwise);
/// and the engine's performance hints follow from the code where it shows them (a constant the impl
/// declares itself always wins): `SOURCE_IGNORES_SENT` when `source_value` ignores its `sent`
/// argument (none written, or `sent` never read), `USES_GLOBAL` when `apply` reads the sum that
/// `global` defines, `SILENT = Some(0)` when a 0 message provably adds nothing, and
/// `IDENTITY_KEEPS_VALUE` when `apply` reduces to `old` for a 0 update and a 0 sum.
///
/// ```ignore
/// #[graph_kernel]
/// impl Program for Bfs {
///     type Value = u32;
///     // ...
///     fn compute(&self, e: Edge<u32, ()>) -> u32 { e.src + 1 }
/// }
/// ```
#[proc_macro_attribute]
pub fn graph_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let original = TokenStream2::from(item.clone());
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new(
            TokenStream2::from(attr).into_iter().next().map_or_else(proc_macro2::Span::call_site, |t| t.span()),
            "#[graph_kernel] takes no arguments",
        ));
    }
    let mut original = original;
    let generated = match syn::parse::<syn::ItemImpl>(item) {
        Ok(imp) => {
            // Per-vertex arrays are listed only for a program whose kernel code is sound.
            let (generated, arrays) = match program::expand(&imp, &facade_path()) {
                Ok(expanded) => expanded,
                Err(mut e) => {
                    errors.append(&mut e);
                    (TokenStream2::new(), Vec::new())
                }
            };
            let (with_defaults, hints) = program::with_defaults(&imp, &facade_path(), &arrays);
            if let Some(with_defaults) = with_defaults {
                original = quote!(#with_defaults);
            }
            quote!(#hints #generated)
        }
        Err(_) => {
            errors.push(syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[graph_kernel] goes on an `impl Program for YourProgram { ... }` block",
            ));
            TokenStream2::new()
        }
    };
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote!(#original #generated #(#errors)*).into()
}

/// Makes an `impl SearchProgram for T` block run on every backend of the many-source traversal:
/// `discovered` stays as it is for the CPU, and its CUDA C translation is emitted as
/// `impl DeviceSearchProgram for T`; the per-vertex arrays it reads are listed in `vertex_arrays`.
/// `discovered` follows the rules of `#[graph_kernel]` code; `max_level` is plain Rust.
///
/// ```ignore
/// #[search_kernel]
/// impl SearchProgram for Harmonic {
///     type Acc = f64;
///     const OP: CombineOp = CombineOp::Sum;
///     const IDENTITY: f64 = 0.0;
///     fn discovered(&self, _v: Vertex, level: u32) -> f64 {
///         if level == 0 { 0.0 } else { 1.0 / level as f64 }
///     }
/// }
/// ```
#[proc_macro_attribute]
pub fn search_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new(
            TokenStream2::from(attr).into_iter().next().map_or_else(proc_macro2::Span::call_site, |t| t.span()),
            "#[search_kernel] takes no arguments",
        ));
    }
    let mut original = TokenStream2::from(item.clone());
    let generated = match syn::parse::<syn::ItemImpl>(item) {
        Ok(imp) => {
            let krate = facade_path();
            let (generated, arrays) = search::expand(&imp, &krate).unwrap_or_else(|mut e| {
                errors.append(&mut e);
                (TokenStream2::new(), Vec::new())
            });
            let with_defaults = search::with_defaults(&imp, &krate, &arrays);
            original = quote!(#with_defaults);
            generated
        }
        Err(_) => {
            errors.push(syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[search_kernel] goes on an `impl SearchProgram for YourProgram { ... }` block",
            ));
            TokenStream2::new()
        }
    };
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote!(#original #generated #(#errors)*).into()
}

/// Makes a free function callable from kernel code (`#[graph_kernel]` programs and other helpers):
/// the function stays as it is for the CPU, and its CUDA C translation is added to the device code of
/// every program that calls it. Parameters and result are scalars (`u32 i32 u64 i64 f32 f64 bool`);
/// the body follows the same rules as kernel code, without `self`, and may call other helpers.
///
/// ```ignore
/// #[kernel_fn]
/// fn sigmoid(x: f32) -> f32 {
///     1.0 / (1.0 + (-x).exp())
/// }
/// ```
#[proc_macro_attribute]
pub fn kernel_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    let original = TokenStream2::from(item.clone());
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new(
            TokenStream2::from(attr).into_iter().next().map_or_else(proc_macro2::Span::call_site, |t| t.span()),
            "#[kernel_fn] takes no arguments",
        ));
    }
    let expanded = match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => match helper::expand(&f, &facade_path()) {
            Ok(tokens) => tokens,
            Err(mut e) => {
                errors.append(&mut e);
                original
            }
        },
        Err(_) => {
            errors.push(helper::not_a_function(&original));
            original
        }
    };
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote!(#expanded #(#errors)*).into()
}

/// The path to simdx's core items as the calling crate names them: `::simdx` for a user of the facade
/// (or the facade itself), `::simdx_core` inside the workspace's own crates.
fn facade_path() -> TokenStream2 {
    use proc_macro_crate::{crate_name, FoundCrate};
    let ident = |name: &str| syn::Ident::new(&name.replace('-', "_"), proc_macro2::Span::call_site());
    match crate_name("simdx") {
        Ok(FoundCrate::Itself) => quote!(::simdx),
        Ok(FoundCrate::Name(n)) => {
            let id = ident(&n);
            quote!(::#id)
        }
        Err(_) => match crate_name("simdx-core") {
            Ok(FoundCrate::Itself) => quote!(crate),
            Ok(FoundCrate::Name(n)) => {
                let id = ident(&n);
                quote!(::#id)
            }
            Err(_) => quote!(::simdx),
        },
    }
}
