//! [`EdgeWeight`]: the edge weight type a program reads in Compute — `()` for none, `u32` or `f32` —
//! and how a graph's stored weights are presented as that type.

use std::borrow::Cow;

use crate::{Csr, Weights};

/// A weight type a program can ask for. An unweighted graph gives every edge weight [`EdgeWeight::ONE`].
pub trait EdgeWeight: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The weight of an edge in an unweighted graph.
    const ONE: Self;
    /// The graph's weights as this type, or why they cannot be.
    fn view(weights: Option<&Weights>) -> Result<WeightView<'_, Self>, String>;
}

/// A graph's edge weights as the program's weight type: borrowed when the types agree, converted
/// when a lossless conversion exists, or the constant [`EdgeWeight::ONE`] for unweighted graphs.
#[derive(Debug, Clone)]
pub enum WeightView<'a, W: Clone> {
    /// Every edge weighs the same.
    Uniform(W),
    /// One weight per arc.
    PerArc(Cow<'a, [W]>),
}

impl<W: EdgeWeight> WeightView<'_, W> {
    /// The weight of arc `i` ([`EdgeWeight::ONE`] for an index past the weights, which a graph's
    /// arcs never reach). It cannot panic, so a program that ignores weights pays nothing for them.
    #[inline]
    pub fn get(&self, i: usize) -> W {
        self.by_ref().get(i)
    }

    /// The weights as a value that is copied into a loop's locals: read there through the view, the
    /// enum's tag and the slice's address are loaded again after every atomic store.
    #[inline]
    pub(crate) fn by_ref(&self) -> WeightRef<'_, W> {
        match self {
            WeightView::Uniform(w) => WeightRef::Uniform(*w),
            WeightView::PerArc(w) => WeightRef::PerArc(w),
        }
    }
}

/// A [`WeightView`] borrowed, to copy.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WeightRef<'a, W> {
    /// Every edge weighs the same.
    Uniform(W),
    /// One weight per arc.
    PerArc(&'a [W]),
}

impl<W: EdgeWeight> WeightRef<'_, W> {
    /// As [`WeightView::get`].
    #[inline]
    pub(crate) fn get(self, i: usize) -> W {
        match self {
            WeightRef::Uniform(w) => w,
            WeightRef::PerArc(w) => w.get(i).copied().unwrap_or(W::ONE),
        }
    }
}

impl EdgeWeight for () {
    const ONE: Self = ();
    fn view(_: Option<&Weights>) -> Result<WeightView<'_, Self>, String> {
        Ok(WeightView::Uniform(()))
    }
}

impl EdgeWeight for u32 {
    const ONE: Self = 1;
    fn view(weights: Option<&Weights>) -> Result<WeightView<'_, Self>, String> {
        match weights {
            None => Ok(WeightView::Uniform(1)),
            Some(Weights::U32(w)) => Ok(WeightView::PerArc(Cow::Borrowed(&w[..]))),
            Some(Weights::F32(_)) => {
                Err("this algorithm needs integer edge weights, but the graph has real (f32) weights".into())
            }
        }
    }
}

impl EdgeWeight for f32 {
    const ONE: Self = 1.0;
    fn view(weights: Option<&Weights>) -> Result<WeightView<'_, Self>, String> {
        use rayon::prelude::*;
        match weights {
            None => Ok(WeightView::Uniform(1.0)),
            Some(Weights::F32(w)) => Ok(WeightView::PerArc(Cow::Borrowed(&w[..]))),
            Some(Weights::U32(w)) => Ok(WeightView::PerArc(Cow::Owned(w.par_iter().map(|&x| x as f32).collect()))),
        }
    }
}

/// The weights of `csr` as `W`.
pub fn weights_of<W: EdgeWeight>(csr: &Csr) -> Result<WeightView<'_, W>, String> {
    W::view(csr.weights())
}
