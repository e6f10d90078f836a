//! Label programs ([`Program::VALUES_ARE_LABELS`]): by default the engines link classes
//! (union-find in Afforest's order); when they propagate, each reached vertex follows its chain of
//! labels between steps. Checked on both backends (the GPU where the build and the machine have one)
//! under both label policies and every fusion, direction and filter policy: results equal to
//! union-find (smallest label, largest label with signed values, the smallest source of a component
//! with "unreached" labels that name no vertex, components of the light edges only), two linking
//! passes whatever the diameter, weak components of a directed graph, and far fewer propagation steps
//! than plain label propagation on a high-diameter grid.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx::engine::{DirectionPolicy, FusionPolicy, LabelPolicy, RunOptions};
use simdx::{graph_kernel, Backend, Graph, GraphBuilder, Runner, VertexId};
use simdx_algos::{undirected, verify, Wcc};

use crate::common::policies::{backends, fusions, policies};
use crate::common::{edges, generated};

/// WCC without the declaration: one step per hop.
struct PlainWcc;

#[graph_kernel]
impl Program for PlainWcc {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;
    fn init(&self, v: Vertex) -> u32 {
        v.id
    }
    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }
    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src
    }
}

/// The largest vertex id of each component, as signed labels (negative: never sent).
struct LargestLabel;

#[graph_kernel]
impl Program for LargestLabel {
    type Value = i64;
    type Weight = ();
    const OP: CombineOp = CombineOp::Max;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: i64 = i64::MIN;
    const UNSEEN: i64 = -1;
    const VALUES_ARE_LABELS: bool = true;
    fn init(&self, v: Vertex) -> i64 {
        v.id as i64
    }
    fn active(&self, now: i64, seen: i64) -> bool {
        now > seen
    }
    fn compute(&self, e: Edge<i64, ()>) -> i64 {
        e.src
    }
}

/// The smallest source in each vertex's component; `u32::MAX` (a label naming no vertex) where there
/// is none.
struct SmallestSource {
    is_source: VertexData<bool>,
}

#[graph_kernel]
impl Program for SmallestSource {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;
    const VALUES_ARE_LABELS: bool = true;
    fn init(&self, v: Vertex) -> u32 {
        if self.is_source[v.id] {
            v.id
        } else {
            u32::MAX
        }
    }
    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }
    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src
    }
}

/// Components joined by the edges of weight at most [`LIGHT`] only: an arc passes its label on or
/// sends nothing, by its weight.
struct LightComponents;

/// The heaviest weight [`LightComponents`] follows.
const LIGHT: u32 = 100;

#[graph_kernel]
impl Program for LightComponents {
    type Value = u32;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;
    const VALUES_ARE_LABELS: bool = true;
    fn init(&self, v: Vertex) -> u32 {
        v.id
    }
    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }
    fn compute(&self, e: Edge<u32, u32>) -> u32 {
        if e.weight <= LIGHT {
            e.src
        } else {
            u32::MAX
        }
    }
}

/// The smallest vertex of each vertex's class when the edges that `keep` accepts join classes.
fn smallest_by_edges(g: &Graph, keep: impl Fn(Option<f64>) -> bool) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..g.num_vertices() as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for (u, v, w) in g.edges() {
        if keep(w) {
            let (a, b) = (root(&mut parent, u), root(&mut parent, v));
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    (0..g.num_vertices() as u32).map(|v| root(&mut parent, v)).collect()
}

/// Over each vertex's component (by the union-find oracle), the largest member and the smallest
/// member that `keep` accepts (`u32::MAX` where none does).
fn per_component(g: &Graph, keep: impl Fn(VertexId) -> bool) -> (Vec<i64>, Vec<u32>) {
    let component = verify::union_find_components(g);
    let n = g.num_vertices();
    let (mut largest, mut smallest_kept) = (vec![0i64; n], vec![u32::MAX; n]);
    for v in 0..n as VertexId {
        let c = component[v as usize] as usize;
        largest[c] = largest[c].max(i64::from(v));
        if keep(v) {
            smallest_kept[c] = smallest_kept[c].min(v);
        }
    }
    let largest = component.iter().map(|&c| largest[c as usize]).collect();
    let smallest_kept = component.iter().map(|&c| smallest_kept[c as usize]).collect();
    (largest, smallest_kept)
}

fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> = ["kron:10", "urand:10:2", "grid:40x30"]
        .iter()
        .map(|s| (s.to_string(), undirected(&generated(s)).into_owned()))
        .collect();
    // A path whose ids fall along it, so that every chain of labels is long; isolated vertices.
    let path: Vec<(u32, u32)> = (1..40).map(|i| (i, i - 1)).chain([(45, 41)]).collect();
    all.push((
        "falling path".into(),
        undirected(&GraphBuilder::new().build(edges(50, &path, None)).unwrap()).into_owned(),
    ));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all
}

/// Linking under each fusion policy of `backend`, then propagation under its whole policy matrix.
fn label_policies(backend: Backend) -> Vec<RunOptions> {
    let linking = fusions(backend).iter().map(|&fusion| RunOptions { fusion, ..RunOptions::default() });
    let propagating = policies(backend).into_iter().map(|o| RunOptions { labels: LabelPolicy::Propagate, ..o });
    linking.chain(propagating).collect()
}

#[test]
fn label_programs_match_union_find_on_every_backend_and_policy() {
    for (name, g) in graphs() {
        let n = g.num_vertices();
        let is_source = VertexData::set(n, &[3, 17, (n as u32).saturating_sub(1)]);
        let (largest, smallest_source) = per_component(&g, |v| is_source[v]);
        let sources = SmallestSource { is_source: is_source.clone() };
        for backend in backends() {
            let mut runner = Runner::new(&g, backend).unwrap();
            for options in label_policies(backend) {
                runner.set_options(options);
                let at = format!("{name}, {backend:?}, {options:?}");
                let wcc = runner.run(&Wcc).unwrap();
                verify::wcc(&g, &wcc.values).unwrap_or_else(|e| panic!("{at}: {e}"));
                assert_eq!(runner.run(&LargestLabel).unwrap().values, largest, "{at}");
                assert_eq!(runner.run(&sources).unwrap().values, smallest_source, "{at}");
            }
        }
    }
}

#[test]
fn linking_follows_only_the_arcs_that_send_a_label() {
    for spec in ["kron:10:w", "urand:10:2:w", "grid:30x30:w"] {
        let g = undirected(&generated(spec)).into_owned();
        let expected = smallest_by_edges(&g, |w| w.is_some_and(|w| w <= f64::from(LIGHT)));
        assert!(expected.iter().enumerate().any(|(v, &c)| c as usize != v), "{spec}: no light edge");
        for backend in backends() {
            let mut runner = Runner::new(&g, backend).unwrap();
            for options in label_policies(backend) {
                runner.set_options(options);
                assert_eq!(runner.run(&LightComponents).unwrap().values, expected, "{spec}, {backend:?}, {options:?}");
            }
        }
    }
}

#[test]
fn linking_takes_two_passes_whatever_the_diameter() {
    // A long path whose ids are scattered, so that no order of the arcs helps propagation.
    let n = 3000u32;
    let order: Vec<u32> = (0..n).map(|i| (i * 1237) % n).collect();
    let path: Vec<(u32, u32)> = order.windows(2).map(|w| (w[0], w[1])).collect();
    let g = undirected(&GraphBuilder::new().build(edges(n as usize, &path, None)).unwrap()).into_owned();
    for backend in backends() {
        let runner = Runner::new(&g, backend).unwrap();
        let run = runner.run(&Wcc).unwrap();
        assert!(run.values.iter().all(|&c| c == 0), "{backend:?}");
        assert_eq!(run.stats.iterations.len(), 2, "{backend:?}");
        assert!(run.stats.edges_touched() <= g.num_arcs(), "{backend:?}: {} arcs linked", run.stats.edges_touched());
    }
}

#[test]
fn linking_joins_both_ends_of_an_arc_on_a_directed_graph() {
    // 0 -> 1 <- 2, 5 -> 3 -> 4: weak components {0, 1, 2} and {3, 4, 5}; 6 alone.
    let g = GraphBuilder::new().directed(true).build(edges(7, &[(0, 1), (2, 1), (5, 3), (3, 4)], None)).unwrap();
    for backend in backends() {
        let runner = Runner::new(&g, backend).unwrap();
        assert_eq!(runner.run(&Wcc).unwrap().values, [0, 0, 0, 3, 3, 3, 6], "{backend:?}");
        assert_eq!(runner.run(&LargestLabel).unwrap().values, [2, 2, 2, 5, 5, 5, 6], "{backend:?}");
    }
}

#[test]
fn shortcuts_cut_the_steps_on_a_grid() {
    // 64 x 64: pulling, plain propagation needs one step per hop of the diameter (126), and each
    // vertex's label names the vertex above it (or to its left), whose label came from further up:
    // chains that shortcuts follow. (Pushes in id order carry the smallest label across the whole
    // grid in a step or two by themselves.)
    let g = undirected(&generated("grid:64x64")).into_owned();
    for backend in backends() {
        let mut runner = Runner::new(&g, backend).unwrap();
        for options in label_policies(backend).into_iter().filter(|o| o.labels == LabelPolicy::Propagate) {
            runner.set_options(options);
            let at = format!("{backend:?}, {options:?}");
            let plain = runner.run(&PlainWcc).unwrap();
            let labels = runner.run(&Wcc).unwrap();
            assert_eq!(plain.values, labels.values, "{at}");
            if options.fusion == FusionPolicy::Async {
                continue; // no steps to count: epochs of asynchronous rounds on the GPU
            }
            let (steps, plain_steps) = (labels.stats.iterations.len(), plain.stats.iterations.len());
            assert!(steps <= plain_steps, "{at}: {steps} steps with shortcuts, {plain_steps} without");
            if options.direction == DirectionPolicy::Pull {
                assert!(steps * 10 <= plain_steps, "{at}: {steps} steps with shortcuts, {plain_steps} without");
            }
        }
    }
}
