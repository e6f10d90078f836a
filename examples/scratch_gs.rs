//! scratch: iterations to tolerance with K-block Gauss-Seidel.
use simdx::gen::GeneratorSpec;
fn main() {
    for spec in ["urand:18:w", "kron:18:w", "grid:512x512"] {
        let g = GeneratorSpec::parse(spec).unwrap().generate(1).unwrap();
        let n = g.num_vertices();
        let inc = g.in_csr();
        let deg: Vec<f64> = (0..n as u32).map(|v| g.out_degree(v) as f64).collect();
        let d = 0.85;
        let run = |k: usize, tol: f64, cap: usize| -> (usize, Vec<f64>) {
            let width = n.div_ceil(k);
            let mut r = vec![1.0 / n as f64; n];
            let mut it = 0;
            loop {
                let dangling: f64 = (0..n).filter(|&v| deg[v] == 0.0).map(|v| r[v]).sum();
                let old = r.clone();
                let mut change = 0.0;
                for v in 0..n {
                    let block_start = (v / width) * width;
                    let s: f64 = inc
                        .neighbors(v as u32)
                        .iter()
                        .map(|&u| {
                            let u = u as usize;
                            let ru = if u < block_start { r[u] } else { old[u] };
                            ru / deg[u]
                        })
                        .sum();
                    r[v] = (1.0 - d) / n as f64 + d * (s + dangling / n as f64);
                    change += (r[v] - old[v]).abs();
                }
                it += 1;
                if change < tol || it >= cap {
                    return (it, r);
                }
            }
        };
        let (_, exact) = run(1, 1e-12, 200);
        for k in [1usize, 2, 4, 8, 16, 64, n] {
            let (it, r) = run(k, 1e-4, 20);
            let l1: f64 = r.iter().zip(&exact).map(|(a, b)| (a - b).abs()).sum();
            println!("{spec} K={k}: {it} iterations, L1 {l1:.1e}");
        }
    }
}
