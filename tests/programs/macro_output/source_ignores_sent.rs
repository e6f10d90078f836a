//! `#[graph_kernel]` sets `ProgramHints::SOURCE_IGNORES_SENT` when `source_value` ignores `sent`: when it
//! is not written, or its `sent` parameter is `_` or never named in the body (`_sent` included); not
//! when the body reads it, whatever its name, and never over a value the impl declares itself.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, ProgramHints, Vertex};
use simdx::graph_kernel;

/// The shape every program below shares, with `$source_value` and `$consts` spliced in.
macro_rules! hops {
    ($name:ident, { $($consts:tt)* }, { $($source_value:tt)* }) => {
        struct $name;

        #[graph_kernel]
        impl Program for $name {
            type Value = u32;
            type Weight = ();
            const OP: CombineOp = CombineOp::Min;
            const KIND: CombineKind = CombineKind::Aggregate;
            const APPLY: Apply = Apply::InPlace;
            const IDENTITY: u32 = u32::MAX;
            const UNSEEN: u32 = u32::MAX;
            $($consts)*

            fn init(&self, v: Vertex) -> u32 {
                if v.id == 0 {
                    0
                } else {
                    u32::MAX
                }
            }

            fn active(&self, now: u32, seen: u32) -> bool {
                now < seen
            }

            $($source_value)*

            fn compute(&self, e: Edge<u32, ()>) -> u32 {
                e.src.saturating_add(1)
            }
        }
    };
}

hops!(Default, {}, {});
hops!(Underscore, {}, {
    fn source_value(&self, _v: Vertex, value: u32, _sent: u32) -> u32 {
        value
    }
});
hops!(Wildcard, {}, {
    fn source_value(&self, _v: Vertex, value: u32, _: u32) -> u32 {
        value
    }
});
hops!(ReadsSent, {}, {
    fn source_value(&self, _v: Vertex, value: u32, sent: u32) -> u32 {
        if sent == u32::MAX {
            value
        } else {
            value.min(sent)
        }
    }
});
hops!(ReadsUnderscored, {}, {
    fn source_value(&self, _v: Vertex, value: u32, _sent: u32) -> u32 {
        value.min(_sent)
    }
});
hops!(
    DeclaredFalse,
    {
        const SOURCE_IGNORES_SENT: bool = false;
    },
    {}
);

#[test]
fn source_ignores_sent() {
    assert!(<Default as ProgramHints>::SOURCE_IGNORES_SENT);
    assert!(<Underscore as ProgramHints>::SOURCE_IGNORES_SENT);
    assert!(<Wildcard as ProgramHints>::SOURCE_IGNORES_SENT);
    assert!(!<ReadsSent as ProgramHints>::SOURCE_IGNORES_SENT);
    assert!(!<ReadsUnderscored as ProgramHints>::SOURCE_IGNORES_SENT);
    assert!(!<DeclaredFalse as ProgramHints>::SOURCE_IGNORES_SENT);
}
