//! Types of the kernel subset and their inference: scalars, the `Vertex` and `Edge` views, and type
//! variables unified the way rustc types scalar code (both operands of `+`, `<`, `min` ... agree;
//! unsuffixed literals default to `i32` / `f64`).

use crate::span::At;

/// A type in kernel code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    Bool,
    /// `()`: the weight of an unweighted program.
    Unit,
    /// The type of `return`, `break`: unifies with anything.
    Never,
    /// `simdx::acc::Vertex`.
    Vertex,
    /// `simdx::acc::Edge<Value, Weight>`.
    Edge,
}

impl Ty {
    /// The scalar named `name` (`u32`, ..., `bool`; `VertexId` is `u32`).
    pub fn scalar(name: &str) -> Option<Ty> {
        Some(match name {
            "u32" | "VertexId" => Ty::U32,
            "i32" => Ty::I32,
            "u64" => Ty::U64,
            "i64" => Ty::I64,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "bool" => Ty::Bool,
            _ => return None,
        })
    }

    /// The Rust name.
    pub fn rust(self) -> &'static str {
        match self {
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::U64 => "u64",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
            Ty::Unit => "()",
            Ty::Never => "!",
            Ty::Vertex => "Vertex",
            Ty::Edge => "Edge",
        }
    }

    /// The C type (`simdx_u32`, ...).
    pub fn c(self) -> &'static str {
        match self {
            Ty::U32 => "simdx_u32",
            Ty::I32 => "simdx_i32",
            Ty::U64 => "simdx_u64",
            Ty::I64 => "simdx_i64",
            Ty::F32 => "simdx_f32",
            Ty::F64 => "simdx_f64",
            Ty::Bool => "bool",
            Ty::Unit => "unsigned char",
            Ty::Never => "void",
            Ty::Vertex => "simdx_vertex",
            Ty::Edge => "simdx_edge",
        }
    }

    /// The short tag of the prelude's helpers (`simdx_min_u32`).
    pub fn tag(self) -> &'static str {
        self.rust()
    }

    pub fn is_int(self) -> bool {
        matches!(self, Ty::U32 | Ty::I32 | Ty::U64 | Ty::I64)
    }

    pub fn is_signed_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    /// Size in bytes of a scalar on the device.
    pub fn size(self) -> usize {
        match self {
            Ty::U64 | Ty::I64 | Ty::F64 => 8,
            Ty::Bool => 1,
            _ => 4,
        }
    }
}

/// A type variable: an index into [`Types`].
pub type TyVar = usize;

/// What is known of a variable that is not yet a concrete type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Constraint {
    /// Nothing yet.
    Any,
    /// An integer literal: some integer type, `i32` if nothing says more.
    IntLiteral,
    /// A float literal: `f32` or `f64`, `f64` if nothing says more.
    FloatLiteral,
}

#[derive(Debug, Clone)]
struct Slot {
    parent: TyVar,
    ty: Option<Ty>,
    constraint: Constraint,
    /// Where the variable comes from, and what to call it in an error (`self.delta`).
    origin: Option<(At, String)>,
}

/// The type variables of one function, unified as the body is read.
#[derive(Debug, Default)]
pub struct Types {
    slots: Vec<Slot>,
}

impl Types {
    fn push(&mut self, ty: Option<Ty>, constraint: Constraint, origin: Option<(At, String)>) -> TyVar {
        let id = self.slots.len();
        self.slots.push(Slot { parent: id, ty, constraint, origin });
        id
    }

    /// A variable of a known type.
    pub fn known(&mut self, ty: Ty) -> TyVar {
        self.push(Some(ty), Constraint::Any, None)
    }

    /// A variable of unknown type.
    pub fn fresh(&mut self) -> TyVar {
        self.push(None, Constraint::Any, None)
    }

    /// The type of an unsuffixed integer literal.
    pub fn int_literal(&mut self) -> TyVar {
        self.push(None, Constraint::IntLiteral, None)
    }

    /// The type of an unsuffixed float literal.
    pub fn float_literal(&mut self) -> TyVar {
        self.push(None, Constraint::FloatLiteral, None)
    }

    /// The type of something whose type only its uses can tell (a field of `self`, an outside constant).
    pub fn outside(&mut self, span: At, what: String) -> TyVar {
        self.push(None, Constraint::Any, Some((span, what)))
    }

    fn root(&mut self, v: TyVar) -> TyVar {
        let parent = self.slots[v].parent;
        if parent == v {
            return v;
        }
        let root = self.root(parent);
        self.slots[v].parent = root;
        root
    }

    /// The concrete type of `v`, if known yet.
    pub fn get(&mut self, v: TyVar) -> Option<Ty> {
        let r = self.root(v);
        self.slots[r].ty
    }

    /// Makes `a` and `b` the same type; on a conflict returns the two types found.
    pub fn unify(&mut self, a: TyVar, b: TyVar) -> Result<(), (String, String)> {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra == rb {
            return Ok(());
        }
        let (sa, sb) = (self.slots[ra].clone(), self.slots[rb].clone());
        if sa.ty == Some(Ty::Never) {
            return Ok(());
        }
        if sb.ty == Some(Ty::Never) {
            return Ok(());
        }
        let ty = match (sa.ty, sb.ty) {
            (Some(x), Some(y)) if x != y => return Err((x.rust().into(), y.rust().into())),
            (x, y) => x.or(y),
        };
        let constraint = match (sa.constraint, sb.constraint) {
            (Constraint::Any, c) | (c, Constraint::Any) => c,
            (x, y) if x == y => x,
            _ => return Err(("an integer".into(), "a float".into())),
        };
        if let Some(t) = ty {
            let fits = match constraint {
                Constraint::Any => true,
                Constraint::IntLiteral => t.is_int(),
                Constraint::FloatLiteral => t.is_float(),
            };
            if !fits {
                let lit = if constraint == Constraint::IntLiteral { "an integer literal" } else { "a float literal" };
                return Err((t.rust().into(), lit.into()));
            }
        }
        self.slots[rb].parent = ra;
        self.slots[ra].ty = ty;
        self.slots[ra].constraint = constraint;
        self.slots[ra].origin = sa.origin.or(sb.origin);
        Ok(())
    }

    /// Makes `v` the concrete type `ty`.
    pub fn require(&mut self, v: TyVar, ty: Ty) -> Result<(), (String, String)> {
        let k = self.known(ty);
        self.unify(k, v)
    }

    /// Settles every variable: literals take their default type; a variable that nothing decided is
    /// reported with its origin.
    pub fn finish(&mut self) -> Vec<(At, String)> {
        let mut unknown = Vec::new();
        for v in 0..self.slots.len() {
            let r = self.root(v);
            if self.slots[r].ty.is_some() {
                continue;
            }
            if let Some(origin) = self.slots[r].origin.take() {
                // A field or outside constant has the type its definition gives, which a literal's
                // default would only guess.
                unknown.push(origin);
                self.slots[r].ty = Some(Ty::Unit);
                continue;
            }
            match self.slots[r].constraint {
                Constraint::IntLiteral => self.slots[r].ty = Some(Ty::I32),
                Constraint::FloatLiteral => self.slots[r].ty = Some(Ty::F64),
                Constraint::Any => self.slots[r].ty = Some(Ty::Unit),
            }
        }
        unknown
    }
}
