//! Strongly connected components oracle: Tarjan's algorithm, serial, with an explicit stack (no
//! recursion), each component named by its smallest vertex id.

use simdx_core::{Graph, VertexId};

/// Each vertex's strongly connected component by Tarjan's algorithm, named by its smallest id.
pub fn tarjan_components(graph: &Graph) -> Vec<VertexId> {
    let n = graph.num_vertices();
    const NONE: u32 = u32::MAX;
    let (mut index, mut low, mut on_stack) = (vec![NONE; n], vec![0u32; n], vec![false; n]);
    let (mut stack, mut component, mut next) = (Vec::new(), vec![NONE; n], 0u32);
    for root in 0..n as VertexId {
        if index[root as usize] != NONE {
            continue;
        }
        // Each frame: a vertex and how far through its out-arcs the search is.
        let mut calls = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut arc)) = calls.last_mut() {
            let vi = v as usize;
            if *arc == 0 && index[vi] == NONE {
                (index[vi], low[vi], on_stack[vi]) = (next, next, true);
                next += 1;
                stack.push(v);
            }
            if let Some(&u) = graph.out_neighbors(v).get(*arc) {
                *arc += 1;
                if index[u as usize] == NONE {
                    calls.push((u, 0));
                } else if on_stack[u as usize] {
                    low[vi] = low[vi].min(index[u as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                let start = stack.iter().rposition(|&w| w == v).expect("v is on the stack");
                let members = stack.split_off(start);
                let name = *members.iter().min().expect("a component has its root");
                for w in members {
                    on_stack[w as usize] = false;
                    component[w as usize] = name;
                }
            }
        }
    }
    component
}

/// Checks components against [`tarjan_components`] exactly.
pub fn scc(graph: &Graph, components: &[VertexId]) -> Result<(), String> {
    let want = tarjan_components(graph);
    if components.len() != want.len() {
        return Err(format!("{} components for {} vertices", components.len(), want.len()));
    }
    match (0..want.len()).find(|&v| components[v] != want[v]) {
        Some(v) => Err(format!("vertex {v} is in the component of {}, not {}", want[v], components[v])),
        None => Ok(()),
    }
}
