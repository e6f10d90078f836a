//! [`Uniform`]: whether the values of a set are all one value. A frontier whose vertices all send the
//! same message (BFS: its level) lets a pull skip reading the source it finds; a push step whose plain
//! stores all carried one value needs no repair (see `push.rs`). Built by merging, in any order and in
//! parallel.

/// Whether the values of a set are all the same, and which.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Uniform<M> {
    /// No value.
    Empty,
    /// Every value is this.
    One(M),
    /// Not all the same.
    Mixed,
}

impl<M: PartialEq> Uniform<M> {
    /// The set of both.
    pub(crate) fn merge(self, other: Self) -> Self {
        match (self, other) {
            (Uniform::Empty, x) | (x, Uniform::Empty) => x,
            (Uniform::One(a), Uniform::One(b)) if a == b => Uniform::One(a),
            _ => Uniform::Mixed,
        }
    }

    /// The value every member has, if there is one.
    pub(crate) fn message(self) -> Option<M> {
        match self {
            Uniform::One(m) => Some(m),
            Uniform::Empty | Uniform::Mixed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_until_another_differs() {
        let none = Uniform::<u32>::Empty;
        assert_eq!(none.merge(Uniform::One(3)).merge(Uniform::One(3)), Uniform::One(3));
        assert_eq!(none.merge(Uniform::One(3)).merge(Uniform::One(4)).merge(Uniform::One(3)), Uniform::Mixed);
        assert_eq!(none.merge(Uniform::One(3)).merge(none), Uniform::One(3));
        assert_eq!(Uniform::One(3).merge(Uniform::One(4)), Uniform::Mixed);
        assert_eq!(Uniform::Mixed.merge(none), Uniform::Mixed);
        assert_eq!(Uniform::One(3).message(), Some(3));
        assert_eq!(Uniform::<u32>::Mixed.message(), None);
    }
}
