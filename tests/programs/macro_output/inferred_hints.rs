//! `#[graph_kernel]` sets `ProgramHints::USES_GLOBAL` when the impl defines `global` and its `apply` reads
//! the sum, and `ProgramHints::SILENT = Some(0)` when the combine is `Sum` with identity 0 and `compute`
//! returns the message itself (so a 0 message adds nothing), and `ProgramHints::IDENTITY_KEEPS_VALUE` when
//! `apply` reduces to `old` for a 0 update and a 0 sum (or is the default); none of them when the code
//! does not show it, and never over a value the impl declares itself.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, ProgramHints, Vertex};
use simdx::graph_kernel;

/// A sum program with `$consts`, `$compute`, `$global_and_apply` spliced in.
macro_rules! summing {
    ($name:ident, { $($consts:tt)* }, { $($compute:tt)* }, { $($global_and_apply:tt)* }) => {
        struct $name;

        #[graph_kernel]
        impl Program for $name {
            type Value = f64;
            type Message = f32;
            type Weight = ();
            const OP: CombineOp = CombineOp::Sum;
            const KIND: CombineKind = CombineKind::Aggregate;
            const APPLY: Apply = Apply::Every;
            const IDENTITY: f64 = 0.0;
            const UNSEEN: f64 = 0.0;
            $($consts)*

            fn init(&self, v: Vertex) -> f64 {
                v.id as f64
            }

            fn active(&self, now: f64, seen: f64) -> bool {
                now != seen
            }

            $($compute)*
            $($global_and_apply)*
        }
    };
}

summing!(
    Pagerankish,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64
        }
    },
    {
        fn global(&self, v: Vertex, value: f64, _sent: f64) -> f64 {
            if v.out_degree == 0 {
                value
            } else {
                0.0
            }
        }
        fn apply(&self, _v: Vertex, old: f64, incoming: f64, pool: f64) -> f64 {
            old + incoming + pool
        }
    }
);
summing!(
    Scaled,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64 * 2.0
        }
    },
    {
        fn apply(&self, _v: Vertex, old: f64, incoming: f64, _pool: f64) -> f64 {
            old + incoming
        }
    }
);
summing!(
    GlobalUnread,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.dst + e.src as f64
        }
    },
    {
        fn global(&self, _v: Vertex, value: f64, _sent: f64) -> f64 {
            value
        }
        fn apply(&self, _v: Vertex, old: f64, incoming: f64, _pool: f64) -> f64 {
            old + incoming
        }
    }
);
summing!(
    Declared,
    {
        const USES_GLOBAL: bool = false;
        const SILENT: Option<f32> = None;
        const IDENTITY_KEEPS_VALUE: bool = false;
    },
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64
        }
    },
    {
        fn global(&self, _v: Vertex, value: f64, _sent: f64) -> f64 {
            value
        }
        fn apply(&self, _v: Vertex, old: f64, incoming: f64, pool: f64) -> f64 {
            old + incoming + pool
        }
    }
);

summing!(
    Damped,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64
        }
    },
    {
        fn global(&self, v: Vertex, value: f64, _sent: f64) -> f64 {
            if v.out_degree == 0 {
                value
            } else {
                0.0
            }
        }
        fn apply(&self, v: Vertex, old: f64, incoming: f64, dangling: f64) -> f64 {
            old + 0.85 * (incoming + dangling / v.num_vertices as f64)
        }
    }
);
summing!(
    Replacing,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64
        }
    },
    {
        fn apply(&self, _v: Vertex, _old: f64, incoming: f64, _pool: f64) -> f64 {
            incoming
        }
    }
);
summing!(
    Decaying,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64
        }
    },
    {
        fn apply(&self, _v: Vertex, old: f64, incoming: f64, _pool: f64) -> f64 {
            old * 0.5 + incoming
        }
    }
);
summing!(
    Offset,
    {},
    {
        fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
            e.src as f64
        }
    },
    {
        fn apply(&self, _v: Vertex, old: f64, incoming: f64, _pool: f64) -> f64 {
            old + incoming + 1.0
        }
    }
);

/// A `Min` program whose compute returns the message: 0 is not silent there.
struct MinOfSources;

#[graph_kernel]
impl Program for MinOfSources {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;
    fn init(&self, v: Vertex) -> u32 {
        v.id
    }
    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }
    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src
    }
}

#[test]
fn inferred_hints() {
    assert!(<Pagerankish as ProgramHints>::USES_GLOBAL);
    assert_eq!(<Pagerankish as ProgramHints>::SILENT, Some(0.0));
    assert!(!<Scaled as ProgramHints>::USES_GLOBAL, "no global defined");
    assert_eq!(<Scaled as ProgramHints>::SILENT, None, "compute is not the message itself");
    assert!(!<GlobalUnread as ProgramHints>::USES_GLOBAL, "apply never reads the sum");
    assert_eq!(<GlobalUnread as ProgramHints>::SILENT, None, "compute reads the destination");
    assert!(!<Declared as ProgramHints>::USES_GLOBAL);
    assert_eq!(<Declared as ProgramHints>::SILENT, None);
    assert_eq!(<MinOfSources as ProgramHints>::SILENT, None);
    assert!(<Pagerankish as ProgramHints>::IDENTITY_KEEPS_VALUE);
    assert!(<Scaled as ProgramHints>::IDENTITY_KEEPS_VALUE);
    assert!(<Damped as ProgramHints>::IDENTITY_KEEPS_VALUE, "PageRank's apply");
    assert!(!<Declared as ProgramHints>::IDENTITY_KEEPS_VALUE, "declared");
    assert!(!<Replacing as ProgramHints>::IDENTITY_KEEPS_VALUE, "apply drops old");
    assert!(!<Decaying as ProgramHints>::IDENTITY_KEEPS_VALUE, "apply scales old");
    assert!(!<Offset as ProgramHints>::IDENTITY_KEEPS_VALUE, "apply adds a constant");
    assert!(<MinOfSources as ProgramHints>::IDENTITY_KEEPS_VALUE, "the default apply combines with the identity");
    // The library's PageRank declares no hint and gets the ones its speed depends on.
    assert!(<simdx::algos::PageRank as ProgramHints>::IDENTITY_KEEPS_VALUE);
    assert!(<simdx::algos::PageRank as ProgramHints>::USES_GLOBAL);
    assert_eq!(<simdx::algos::PageRank as ProgramHints>::SILENT, Some(0.0));
    // BP likewise gets the one it used to declare.
    assert!(<simdx::algos::Bp as ProgramHints>::USES_GLOBAL);
}
