//! A syntactic commutativity test for a custom combine: `combine(a, b)` and `combine(b, a)` must read
//! the same once the operands of commutative operators (`+ * & | ^ == !=`, `min`, `max`) are put in a
//! fixed order. It proves `a.min(b)` and `a + b` commutative and finds `a - b` not; a combine it cannot
//! prove is reported only where commutativity is required (voting).

use quote::ToTokens;
use syn::{BinOp, Expr, FnArg, ImplItemFn, Pat, Stmt};

/// Whether `f` (a `combine(&self, a, b)`) is commutative as far as its syntax shows.
pub fn is_commutative(f: &ImplItemFn) -> bool {
    let names: Vec<String> = f
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) => Some(p.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    let [a, b] = names.as_slice() else { return false };
    let body = match f.block.stmts.as_slice() {
        [Stmt::Expr(e, None)] => e,
        _ => return canon_tokens(&f.block, a, b, false) == canon_tokens(&f.block, a, b, true),
    };
    canon(body, a, b, false) == canon(body, a, b, true)
}

fn swap_name(name: &str, a: &str, b: &str, swap: bool) -> String {
    match (swap, name) {
        (true, n) if n == a => b.to_string(),
        (true, n) if n == b => a.to_string(),
        (_, n) => n.to_string(),
    }
}

fn canon_tokens(t: &impl ToTokens, a: &str, b: &str, swap: bool) -> String {
    t.to_token_stream().to_string().split(' ').map(|tok| swap_name(tok, a, b, swap)).collect::<Vec<_>>().join(" ")
}

fn canon(e: &Expr, a: &str, b: &str, swap: bool) -> String {
    let sorted = |x: String, y: String, op: &str| {
        let (x, y) = if x <= y { (x, y) } else { (y, x) };
        format!("({x} {op} {y})")
    };
    match e {
        Expr::Paren(p) => canon(&p.expr, a, b, swap),
        Expr::Path(p) => match p.path.get_ident() {
            Some(id) => swap_name(&id.to_string(), a, b, swap),
            None => canon_tokens(p, a, b, swap),
        },
        Expr::Binary(x) => {
            let (l, r) = (canon(&x.left, a, b, swap), canon(&x.right, a, b, swap));
            let op = x.op.to_token_stream().to_string();
            let commutative = matches!(
                x.op,
                BinOp::Add(_)
                    | BinOp::Mul(_)
                    | BinOp::BitAnd(_)
                    | BinOp::BitOr(_)
                    | BinOp::BitXor(_)
                    | BinOp::Eq(_)
                    | BinOp::Ne(_)
            );
            if commutative {
                sorted(l, r, &op)
            } else {
                format!("({l} {op} {r})")
            }
        }
        Expr::MethodCall(m) if m.args.len() == 1 && (m.method == "min" || m.method == "max") => {
            let (l, r) = (canon(&m.receiver, a, b, swap), canon(&m.args[0], a, b, swap));
            sorted(l, r, &m.method.to_string())
        }
        other => canon_tokens(other, a, b, swap),
    }
}
