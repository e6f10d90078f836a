//! The parameters of generated device code: the fields of `self` that kernel functions read, laid out
//! as the C struct `simdx_params`, and the Rust that writes a value's fields as that struct's bytes.
//! Shared by `#[graph_kernel]` programs and `#[search_kernel]` search programs, with the generated
//! `fn vertex_arrays` that lists the per-vertex arrays among them.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::lower::Lowering;
use crate::ty::Ty;

/// A field of `simdx_params`.
struct Field {
    ty: Ty,
    /// How Rust reads it (`self.delta`).
    rust: syn::Expr,
    /// Its C name.
    c: String,
    /// For a per-vertex array, its index among the arrays (its device address comes from there).
    array: Option<usize>,
}

impl Field {
    fn size(&self) -> usize {
        if self.array.is_some() {
            8
        } else {
            self.ty.size()
        }
    }
}

/// The fields kernel code reads, widest first so that C adds no padding between them; a per-vertex
/// array is a pointer to its values, the `k`-th array (by name) at address `k`.
pub struct Params {
    fields: Vec<Field>,
    /// The per-vertex arrays (fields the code indexes), by name: the order of their addresses.
    pub arrays: Vec<String>,
    /// `typedef struct { ... } simdx_params;`
    pub c: String,
}

impl Params {
    /// The parameters of the functions lowered in `cx`.
    pub fn of(cx: &mut Lowering) -> Params {
        let arrays: Vec<String> = cx.fields.iter().filter(|(_, o)| o.array).map(|(n, _)| n.clone()).collect();
        let outside: Vec<_> =
            cx.fields.iter().map(|(n, o)| (n.clone(), o.ty, o.rust.clone(), o.c_name.clone(), o.array)).collect();
        let mut fields: Vec<Field> = outside
            .into_iter()
            .map(|(n, ty, rust, c, array)| Field {
                ty: cx.types.get(ty).unwrap_or(Ty::U32),
                rust,
                c,
                array: array.then(|| arrays.iter().position(|a| *a == n).expect("an array field")),
            })
            .collect();
        fields.sort_by_key(|f| std::cmp::Reverse(f.size()));
        let mut c = String::from("typedef struct {\n");
        for f in &fields {
            match f.array {
                Some(_) => c.push_str(&format!("    const {} * {};\n", f.ty.c(), f.c)),
                None => c.push_str(&format!("    {} {};\n", f.ty.c(), f.c)),
            }
        }
        if fields.is_empty() {
            c.push_str("    simdx_u32 sx_unused;\n");
        }
        c.push_str("} simdx_params;\n");
        Params { fields, arrays, c }
    }

    /// `fn device_params(&self, array_addresses: &[u64]) -> Vec<u8>`: the struct's bytes,
    /// little-endian, padded to its alignment.
    pub fn writer(&self, krate: &TokenStream) -> TokenStream {
        let writes = self.fields.iter().map(|f| {
            let t = syn::Ident::new(f.ty.rust(), proc_macro2::Span::call_site());
            let rust = &f.rust;
            match f.array {
                Some(k) => quote_spanned! {rust.span()=>
                    let _: &#krate::acc::VertexData<#t> = &#rust;
                    <u64 as #krate::acc::DeviceScalar>::write_le(array_addresses.get(#k).copied().unwrap_or(0), &mut out);
                },
                None => quote_spanned! {rust.span()=> <#t as #krate::acc::DeviceScalar>::write_le(#rust, &mut out); },
            }
        });
        let empty = self.fields.is_empty();
        let align = self.fields.iter().map(Field::size).max().unwrap_or(4);
        quote! {
            fn device_params(&self, array_addresses: &[u64]) -> ::std::vec::Vec<u8> {
                let _ = array_addresses;
                let mut out = ::std::vec::Vec::new();
                #(#writes)*
                if #empty {
                    out.extend_from_slice(&[0u8; 4]);
                }
                #krate::acc::device::pad_to(&mut out, #align);
                out
            }
        }
    }
}

/// Adds `fn vertex_arrays` listing `arrays` (the fields kernel code indexes, by name) to `out`, the
/// expansion of `item`, when there are arrays and `item` does not define that function itself.
pub fn add_vertex_arrays(item: &syn::ItemImpl, out: &mut syn::ItemImpl, krate: &TokenStream, arrays: &[String]) {
    let defines = item.items.iter().any(|i| matches!(i, syn::ImplItem::Fn(f) if f.sig.ident == "vertex_arrays"));
    if arrays.is_empty() || defines {
        return;
    }
    let views = arrays.iter().map(|name| {
        let field = syn::Ident::new(name, proc_macro2::Span::call_site());
        quote!(self.#field.as_vertex_array(#name))
    });
    out.items.push(syn::parse_quote!(
        fn vertex_arrays(&self) -> ::std::vec::Vec<#krate::acc::VertexArray<'_>> {
            ::std::vec![#(#views),*]
        }
    ));
}
