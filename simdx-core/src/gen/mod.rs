//! Graph generators, deterministic for a given seed whatever the number of threads: Graph500
//! Kronecker, R-MAT, uniform random and a weighted 2-D grid. [`GeneratorSpec`] parses the short specs
//! the CLI accepts wherever a graph file is expected (`kron:20`, `urand:20`, `grid:1024x1024`, ...).
