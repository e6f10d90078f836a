//! Independent oracles for the hostile suite: a graph as the suite knows it (arcs it wrote itself, or
//! a generator's output read arc by arc), textbook serial algorithms in `u64`/`f64`, and a reader of
//! the `<vertex> <value>` lines that `simdx run --output` writes. Nothing here uses simdx's engine,
//! readers or verifiers.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A graph as a list of arcs (an undirected edge is two arcs).
#[derive(Debug, Clone)]
pub struct Arcs {
    /// The number of vertices.
    pub n: usize,
    /// `(from, to, weight)`; weight 1 when the graph is unweighted.
    pub arcs: Vec<(u32, u32, u64)>,
}

impl Arcs {
    /// The arcs of `edges` (`(u, v, w)`), both ways when `undirected`.
    pub fn new(n: usize, edges: &[(u32, u32, u64)], undirected: bool) -> Arcs {
        let mut arcs = edges.to_vec();
        if undirected {
            arcs.extend(edges.iter().map(|&(u, v, w)| (v, u, w)));
        }
        Arcs { n, arcs }
    }

    /// The arcs of a generator spec, as the library generates it for `seed`.
    pub fn generated(spec: &str, seed: u64) -> Arcs {
        let graph =
            simdx_core::gen::GeneratorSpec::parse(spec).expect("a valid spec").generate(seed).expect("generated");
        let csr = graph.out_csr();
        let mut arcs = Vec::with_capacity(csr.num_arcs() as usize);
        for u in 0..graph.num_vertices() as u32 {
            for (i, &v) in csr.neighbors(u).iter().enumerate() {
                let w = csr.weights().map_or(1.0, |w| w.get_f64(csr.range(u).start + i));
                arcs.push((u, v, w as u64));
            }
        }
        Arcs { n: graph.num_vertices(), arcs }
    }

    fn adjacency(&self) -> Vec<Vec<(u32, u64)>> {
        let mut adj = vec![Vec::new(); self.n];
        for &(u, v, w) in &self.arcs {
            adj[u as usize].push((v, w));
        }
        adj
    }
}

/// Dijkstra in `u64`: `None` for unreachable vertices.
pub fn dijkstra(g: &Arcs, sources: &[u32]) -> Vec<Option<u64>> {
    let adj = g.adjacency();
    let mut dist = vec![None; g.n];
    let mut heap = BinaryHeap::new();
    for &s in sources {
        dist[s as usize] = Some(0);
        heap.push(Reverse((0u64, s)));
    }
    while let Some(Reverse((d, u))) = heap.pop() {
        if dist[u as usize].is_some_and(|best| d > best) {
            continue;
        }
        for &(v, w) in &adj[u as usize] {
            let nd = d + w;
            if dist[v as usize].map_or(true, |best| nd < best) {
                dist[v as usize] = Some(nd);
                heap.push(Reverse((nd, v)));
            }
        }
    }
    dist
}

/// BFS levels: `None` for unreachable vertices.
pub fn bfs(g: &Arcs, source: u32) -> Vec<Option<u64>> {
    let adj = g.adjacency();
    let mut level = vec![None; g.n];
    level[source as usize] = Some(0);
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let next = level[u as usize].map(|l| l + 1);
        for &(v, _) in &adj[u as usize] {
            if level[v as usize].is_none() {
                level[v as usize] = next;
                queue.push_back(v);
            }
        }
    }
    level
}

/// PageRank as networkx defines it (dangling mass spread evenly), to convergence in `f64`.
pub fn pagerank(g: &Arcs, damping: f64) -> Vec<f64> {
    let n = g.n as f64;
    let mut out_degree = vec![0u64; g.n];
    for &(u, _, _) in &g.arcs {
        out_degree[u as usize] += 1;
    }
    let mut rank = vec![1.0 / n; g.n];
    for _ in 0..1000 {
        let dangling: f64 = (0..g.n).filter(|&v| out_degree[v] == 0).map(|v| rank[v]).sum();
        let mut next = vec![(1.0 - damping) / n + damping * dangling / n; g.n];
        for &(u, v, _) in &g.arcs {
            next[v as usize] += damping * rank[u as usize] / out_degree[u as usize] as f64;
        }
        let change: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if change < 1e-13 {
            break;
        }
    }
    rank
}

/// The values of a `simdx run --output` file: `<vertex> <value>` lines, `None` for `inf`.
pub fn read_values(text: &str, n: usize) -> Result<Vec<Option<String>>, String> {
    let mut values = vec![None; n];
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut fields = line.split_whitespace();
        let (Some(v), Some(x)) = (fields.next(), fields.next()) else {
            return Err(format!("output line `{line}` is not `<vertex> <value>`"));
        };
        let v: usize = v.parse().map_err(|_| format!("bad vertex in `{line}`"))?;
        if v >= n {
            return Err(format!("output names vertex {v} of {n}"));
        }
        values[v] = (x != "inf").then(|| x.to_string());
        seen += 1;
    }
    if seen != n {
        return Err(format!("output has {seen} values for {n} vertices"));
    }
    Ok(values)
}

/// `Ok` when the output file `text` holds exactly the integers `want` (`inf` for `None`).
pub fn same_integers(text: &str, want: &[Option<u64>]) -> Result<(), String> {
    let got = read_values(text, want.len())?;
    for (v, (g, w)) in got.iter().zip(want).enumerate() {
        if g.as_ref().map(|x| x.parse::<u64>().ok()) != w.map(Some) {
            return Err(format!("vertex {v}: simdx says {g:?}, the oracle {w:?}"));
        }
    }
    Ok(())
}

/// `Ok` when the output file `text` holds `want` within `tolerance` in L1 distance.
pub fn close_floats(text: &str, want: &[f64], tolerance: f64) -> Result<(), String> {
    let got = read_values(text, want.len())?;
    let mut l1 = 0.0;
    for (v, (g, w)) in got.iter().zip(want).enumerate() {
        let g: f64 = g.as_ref().and_then(|x| x.parse().ok()).ok_or(format!("vertex {v}: no number but {g:?}"))?;
        l1 += (g - w).abs();
    }
    if l1.is_nan() || l1 > tolerance {
        return Err(format!("L1 distance to the oracle {l1:e}, more than {tolerance:e}"));
    }
    Ok(())
}

/// Weakly connected components: each vertex labelled with the smallest vertex id of its component.
pub fn components(g: &Arcs) -> Vec<Option<u64>> {
    let mut parent: Vec<usize> = (0..g.n).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for &(u, v, _) in &g.arcs {
        let (a, b) = (root(&mut parent, u as usize), root(&mut parent, v as usize));
        parent[a.max(b)] = a.min(b);
    }
    (0..g.n).map(|v| Some(root(&mut parent, v) as u64)).collect()
}
