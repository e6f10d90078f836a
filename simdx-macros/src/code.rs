//! The generated `fn device_code`: a program's CUDA C, assembled once at run time from the text the
//! macro wrote (head and tail), the constants' Rust values and the helpers' code. Shared by
//! `#[graph_kernel]` and `#[search_kernel]`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::lower::Lowering;

/// `fn device_code() -> &'static str`, built once: `head`, what `defines` pushes onto `code` (Rust
/// statements), the `#define`s of the constants the code reads, then `tail` with the helper calls
/// linked and `@SIMDX_FILE@` naming the caller's file.
pub fn device_code_fn(
    cx: &mut Lowering,
    krate: &TokenStream,
    head: &str,
    defines: TokenStream,
    tail: &str,
) -> TokenStream {
    let helpers = crate::helper::link_calls(cx);
    let consts = cx.const_defines(krate);
    quote! {
        fn device_code() -> &'static str {
            static CODE: ::std::sync::OnceLock<::std::string::String> = ::std::sync::OnceLock::new();
            CODE.get_or_init(|| {
                let mut code = ::std::string::String::from(#head);
                #defines
                #consts
                let mut tail = ::std::string::String::from(#tail);
                {
                    let code: &mut ::std::string::String = &mut code;
                    #helpers
                }
                code.push_str(&tail.replace("@SIMDX_FILE@", ::core::file!()));
                code
            })
        }
    }
}
