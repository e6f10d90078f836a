use simdx::algos::Bfs;
use simdx::engine::Engine;
fn main() {
    let spec = std::env::args().nth(1).unwrap();
    let g = simdx::gen::GeneratorSpec::parse(&spec).unwrap().generate(27491095).unwrap();
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    let levels = Engine::default().run(&Bfs { source }, &g).unwrap().values;
    let mut hist = [0u64; 40];
    let (mut total, mut wide_total, mut maxscan) = (0u64, 0u64, 0u64);
    let mut by_level = std::collections::BTreeMap::new();
    for v in 0..g.num_vertices() as u32 {
        let l = levels[v as usize];
        if l == u32::MAX || l <= 1 {
            continue;
        }
        let nb = g.in_csr().neighbors(v);
        let pos = nb.iter().position(|&u| levels[u as usize] == l - 1).unwrap() as u64 + 1;
        total += pos;
        if nb.len() >= 32 {
            wide_total += pos;
        }
        maxscan = maxscan.max(pos);
        hist[(64 - pos.leading_zeros()) as usize] += 1;
        let e = by_level.entry(l).or_insert((0u64, 0u64));
        e.0 += 1;
        e.1 += pos;
    }
    println!("source {source} total scanned {total} wide {wide_total} max {maxscan}");
    println!("hist(log2 pos): {:?}", &hist[..20]);
    println!("by level (count, scanned): {by_level:?}");
}
