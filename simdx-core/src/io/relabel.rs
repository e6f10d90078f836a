//! Edge lists with any vertex ids: with [`ReadOptions::relabel`](super::ReadOptions::relabel), the
//! distinct ids of an `.el` or `.wel` file (any tokens without blanks: 64-bit numbers, names, hashes)
//! are numbered densely, 0, 1, ... in the order they first appear, and [`VertexLabels`] keeps each
//! vertex's original id so that outputs can name it. Without it, an edge list's ids are the vertex
//! numbers themselves, and ids far above the number of edges are refused before anything large is
//! allocated.

use std::collections::HashMap;
use std::path::Path;

use super::text::{self, Accumulator, EdgeChunk, Line, LineReader};
use super::ParsedEdges;
use crate::error::{GraphError, Result as GraphResult};
use crate::graph::builder::EdgeList;
use crate::graph::weights::WeightKind;
use crate::{VertexId, MAX_VERTICES};

/// The original id of every vertex of a relabelled graph: `labels.get(v)` is the token vertex `v`
/// had in the file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VertexLabels {
    labels: Vec<Box<str>>,
}

impl VertexLabels {
    /// The original id of vertex `v`, if there is such a vertex.
    pub fn get(&self, v: VertexId) -> Option<&str> {
        self.labels.get(v as usize).map(|l| &**l)
    }

    /// How many vertices have a label.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether no vertex has a label.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// Parses an `.el` (`weighted == false`) or `.wel` file, numbering its ids densely in the order they
/// first appear. The file is read in one pass on one thread (the numbering is sequential by nature).
pub(crate) fn parse(path: &Path, bytes: &[u8], weighted: bool) -> GraphResult<(ParsedEdges, VertexLabels)> {
    let bytes = text::skip_bom(bytes);
    let mut ids: HashMap<&[u8], VertexId> = HashMap::new();
    let mut labels: Vec<Box<str>> = Vec::new();
    let mut chunk = EdgeChunk::for_chunk(bytes.len());
    let mut reader = LineReader::new(bytes);
    let layout = if weighted { "'u v w'" } else { "'u v'" };
    while let Some((line_number, line_bytes)) = reader.next_line() {
        let mut line = Line::new(line_bytes);
        if matches!(line.first_byte(), None | Some(b'#') | Some(b'%')) {
            continue;
        }
        let fail = |message: String| GraphError::parse(path, line_number, message);
        let u = line.expect_token("the source vertex").map_err(fail)?;
        let v = line.next_token().ok_or_else(|| fail(format!("missing the target vertex (expected {layout})")))?;
        if weighted {
            let w = line.expect_token("the weight (expected 'u v w')").map_err(fail)?;
            chunk.push_weight_token(w).map_err(fail)?;
        }
        line.expect_end(layout).map_err(fail)?;
        let su = number(&mut ids, &mut labels, u).map_err(fail)?;
        let sv = number(&mut ids, &mut labels, v).map_err(fail)?;
        chunk.push_edge(su, sv);
    }
    let edges = text::concat_edges(vec![chunk], weighted.then_some(WeightKind::U32));
    let edges = EdgeList { num_vertices: labels.len(), src: edges.src, dst: edges.dst, weights: edges.weights };
    Ok((ParsedEdges { edges, directed: true }, VertexLabels { labels }))
}

/// The dense number of `token`, given the next free one if it is new.
fn number<'a>(
    ids: &mut HashMap<&'a [u8], VertexId>,
    labels: &mut Vec<Box<str>>,
    token: &'a [u8],
) -> Result<VertexId, String> {
    if let Some(&id) = ids.get(token) {
        return Ok(id);
    }
    if labels.len() >= MAX_VERTICES {
        return Err(format!("more than {MAX_VERTICES} distinct vertex ids"));
    }
    let id = labels.len() as VertexId;
    labels.push(String::from_utf8_lossy(token).into());
    ids.insert(token, id);
    Ok(id)
}

/// The most vertices an edge list may imply per edge it holds (ids numbered as they are) before its
/// ids count as sparse, once it implies more than [`SPARSE_FROM`] vertices.
const SPARSE_RATIO: u64 = 64;
/// Vertex counts up to this are never refused as sparse (tens of megabytes of arrays).
const SPARSE_FROM: u64 = 1 << 22;

/// Refuses an edge list whose ids, taken as vertex numbers, would make far more vertices than its
/// edges can touch (a largest id of 4,294,967,294 in a two-line file would mean 34 GB of arrays):
/// one sentence naming the file, the largest id, the edges, the memory it would take, and
/// `--relabel`.
pub(crate) fn check_dense(path: &Path, num_vertices: usize, num_edges: usize) -> GraphResult<()> {
    let (n, m) = (num_vertices as u64, num_edges as u64);
    if n <= SPARSE_FROM || n <= SPARSE_RATIO * (m + 1) {
        return Ok(());
    }
    Err(GraphError::file(
        path,
        format!(
            "the largest vertex id is {} but the file holds only {m} edges: numbering vertices by id would \
             make {n} vertices (about {} of arrays); pass --relabel to number the ids densely",
            n - 1,
            crate::memory::show_bytes(crate::memory::graph_bytes(n, m, true)),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str, weighted: bool) -> GraphResult<(ParsedEdges, VertexLabels)> {
        parse(Path::new("t.el"), text.as_bytes(), weighted)
    }

    #[test]
    fn ids_of_any_kind_are_numbered_in_order_of_first_appearance() {
        let (parsed, labels) =
            parse_str("# a comment\n18446744073709551615 alice\nalice 7\n\n7 18446744073709551615\n", false).unwrap();
        assert_eq!(parsed.edges.num_vertices, 3);
        assert_eq!(parsed.edges.src, vec![0, 1, 2]);
        assert_eq!(parsed.edges.dst, vec![1, 2, 0]);
        let names: Vec<&str> = (0..3).map(|v| labels.get(v).unwrap()).collect();
        assert_eq!(names, ["18446744073709551615", "alice", "7"]);
        assert_eq!(labels.get(3), None);
    }

    #[test]
    fn weights_and_errors_keep_their_line_numbers() {
        let (parsed, _) = parse_str("a b 5\nb c 2.5\n", true).unwrap();
        assert!(parsed.edges.weights.is_some());
        let err = parse_str("a b\nc\n", false).unwrap_err().to_string();
        assert!(err.contains("t.el:2") && err.contains("target"), "{err}");
        let err = parse_str("a b 1\na b -3\n", true).unwrap_err().to_string();
        assert!(err.contains("t.el:2"), "{err}");
        let err = parse_str("a b c\n", false).unwrap_err().to_string();
        assert!(err.contains("t.el:1"), "{err}");
    }

    #[test]
    fn sparse_ids_are_refused_with_the_way_out() {
        let err = check_dense(Path::new("s.el"), 4_294_967_295, 2).unwrap_err().to_string();
        assert!(err.contains("s.el") && err.contains("4294967294") && err.contains("--relabel"), "{err}");
        assert!(check_dense(Path::new("s.el"), 1 << 22, 1).is_ok(), "small graphs pass whatever their edges");
        assert!(check_dense(Path::new("s.el"), 100_000_000, 2_000_000).is_ok(), "dense enough");
    }
}
