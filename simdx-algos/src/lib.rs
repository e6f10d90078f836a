//! simdx-algos: the algorithm library (BFS, SSSP, PageRank, k-core, WCC, BP, SpMV, MLP), one file per
//! algorithm, each written once for both backends. Algorithms arrive with the ACC model.
