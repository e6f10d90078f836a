//! Temporary timing harness (deleted after use).
use simdx_core::gen::{GeneratorSpec, DEFAULT_SEED};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for s in &args {
        if s.ends_with(".sxg") {
            continue;
        }
        let spec = GeneratorSpec::parse(s).unwrap();
        let t = Instant::now();
        let el = spec.edge_list(DEFAULT_SEED).unwrap();
        let t_gen = t.elapsed();
        let t2 = Instant::now();
        let g = simdx_core::GraphBuilder::new().build(el).unwrap();
        let t_build = t2.elapsed();
        let (_, max, mean) = g.degree_summary();
        println!(
            "{s}: edges generated in {:.3}s, built in {:.3}s; n={} m={} max_deg={} mean={:.1}",
            t_gen.as_secs_f64(),
            t_build.as_secs_f64(),
            g.num_vertices(),
            g.num_edges(),
            max,
            mean
        );
        if let Some(p) = args.iter().find(|a| a.ends_with(".sxg")) {
            let p = std::path::Path::new(p);
            let t = Instant::now();
            simdx_core::io::binary::write(&g, p).unwrap();
            let tw = t.elapsed();
            let t = Instant::now();
            let back = simdx_core::io::binary::read(p).unwrap();
            let tr = t.elapsed();
            println!(
                "  sxg {} MB: write {:.3}s read {:.3}s equal={}",
                std::fs::metadata(p).unwrap().len() >> 20,
                tw.as_secs_f64(),
                tr.as_secs_f64(),
                back == g
            );
        }
    }
}
