//! Where a compile error points ([`At`]: the first and last token of the offending construct) and how
//! it is made; shared by the lowering, the C IR and the type inference, so that none imports another
//! for it.

use proc_macro2::Span;

/// Where an error points: the first and last token of the offending construct, so that the compiler
/// underlines all of it.
#[derive(Debug, Clone, Copy)]
pub struct At(pub Span, pub Span);

impl From<Span> for At {
    fn from(span: Span) -> At {
        At(span, span)
    }
}

/// The extent of a syntax node.
pub fn at(node: &impl quote::ToTokens) -> At {
    let tokens = node.to_token_stream();
    let mut iter = tokens.into_iter();
    let first = iter.next().map_or_else(Span::call_site, |t| t.span());
    let last = iter.last().map_or(first, |t| t.span());
    At(first, last)
}

/// An error at `at` carrying `message`.
pub fn error_at(at: At, message: impl std::fmt::Display) -> syn::Error {
    let mut ends = proc_macro2::TokenStream::new();
    ends.extend([
        proc_macro2::TokenTree::Ident(proc_macro2::Ident::new("start", at.0)),
        proc_macro2::TokenTree::Ident(proc_macro2::Ident::new("end", at.1)),
    ]);
    syn::Error::new_spanned(ends, message)
}
