//! Per-vertex inputs from text: a vector file (an SpMV `x`, MLP inputs or biases, BP priors) and a
//! vertex set (sources, seeds) given inline (`1,5,9`) or as a file. Errors name the file and line.
//!
//! A vector file has either one value per line, one line per vertex in id order, or `<id> <value>`
//! lines in any order (vertices not named take a default). Blank lines and lines starting with `#` or
//! `%` are skipped. Values must be finite numbers.

use std::path::Path;

use crate::error::{GraphError, Result};
use crate::VertexId;

/// A vector of `n` finite values from `path`; with `<id> <value>` lines, vertices not named get
/// `default`.
pub fn read_vertex_values(path: &Path, n: usize, default: f64) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path).map_err(|e| GraphError::io(path, e))?;
    let lines = text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l.trim())).filter(|(_, l)| is_data(l));
    let mut values = Vec::new();
    let mut pairs: Option<Vec<f64>> = None;
    for (line, l) in lines {
        let fields: Vec<&str> = l.split_whitespace().collect();
        let paired = match (&pairs, values.is_empty(), fields.len()) {
            (Some(_), _, 2) => true,
            (None, true, 2) => {
                pairs = Some(vec![default; n]);
                true
            }
            (None, _, 1) => false,
            (Some(_), _, k) | (None, _, k) => {
                let want = if pairs.is_some() { "two fields, `<id> <value>`" } else { "one value" };
                return Err(GraphError::parse(
                    path,
                    line,
                    format!("expected {want} as on the first line, found {k} fields"),
                ));
            }
        };
        if paired {
            let id = parse_id(path, line, fields[0], n)?;
            let value = parse_value(path, line, fields[1])?;
            pairs.as_mut().expect("set for pairs")[id as usize] = value;
        } else {
            if values.len() == n {
                return Err(GraphError::parse(path, line, format!("more than {n} values: the graph has {n} vertices")));
            }
            values.push(parse_value(path, line, fields[0])?);
        }
    }
    match pairs {
        Some(v) => Ok(v),
        None if values.len() == n => Ok(values),
        None => Err(GraphError::file(
            path,
            format!("{} values for {n} vertices: give one value per vertex, or `<id> <value>` lines", values.len()),
        )),
    }
}

/// A set of vertex ids below `n`, from `spec`: ids separated by commas (`3,7`), or else the name of a
/// file of ids (whitespace or commas between them, comments as above). An empty set is an error.
pub fn parse_vertex_set(spec: &str, n: usize, what: &str) -> Result<Vec<VertexId>> {
    if spec.trim().is_empty() {
        return Err(GraphError::Vertices(format!("{what} names no vertex: give ids such as 3,7 or a file of ids")));
    }
    let inline = !spec.is_empty()
        && spec.split(',').all(|s| !s.trim().is_empty() && s.trim().bytes().all(|b| b.is_ascii_digit()));
    let ids = if inline {
        let mut ids = Vec::new();
        for s in spec.split(',') {
            let id = s.trim().parse::<u64>().ok().filter(|&id| id < n as u64).ok_or_else(|| {
                GraphError::Vertices(format!(
                    "{what}: vertex {} does not exist: the graph has {n} vertices (ids 0..{n})",
                    s.trim()
                ))
            })?;
            ids.push(id as VertexId);
        }
        ids
    } else {
        let path = Path::new(spec);
        let text = std::fs::read_to_string(path).map_err(|e| GraphError::io(path, e))?;
        let mut ids = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if !is_data(l) {
                continue;
            }
            for field in l.split(|c: char| c == ',' || c.is_whitespace()).filter(|f| !f.is_empty()) {
                ids.push(parse_id(path, i as u64 + 1, field, n)?);
            }
        }
        if ids.is_empty() {
            return Err(GraphError::file(path, format!("no vertex ids in the file given for {what}")));
        }
        ids
    };
    if ids.is_empty() {
        return Err(GraphError::Vertices(format!("{what} names no vertex: give ids such as 3,7 or a file of ids")));
    }
    Ok(ids)
}

fn is_data(line: &str) -> bool {
    !line.is_empty() && !line.starts_with('#') && !line.starts_with('%')
}

fn parse_id(path: &Path, line: u64, field: &str, n: usize) -> Result<VertexId> {
    match field.parse::<u64>() {
        Ok(id) if id < n as u64 => Ok(id as VertexId),
        Ok(id) => Err(GraphError::parse(
            path,
            line,
            format!("vertex {id} does not exist: the graph has {n} vertices (ids 0..{n})"),
        )),
        Err(_) => Err(GraphError::parse(path, line, format!("'{field}' is not a vertex id"))),
    }
}

fn parse_value(path: &Path, line: u64, field: &str) -> Result<f64> {
    match field.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(GraphError::parse(path, line, format!("'{field}' is not a finite number"))),
        Err(_) => Err(GraphError::parse(path, line, format!("'{field}' is not a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        f
    }

    #[test]
    fn both_layouts_read() {
        let f = file("# x\n1.5\n-2\n\n3e1\n");
        assert_eq!(read_vertex_values(f.path(), 3, 0.0).unwrap(), vec![1.5, -2.0, 30.0]);
        let f = file("2 0.5\n0 1\n");
        assert_eq!(read_vertex_values(f.path(), 4, 9.0).unwrap(), vec![1.0, 9.0, 0.5, 9.0]);
    }

    #[test]
    fn bad_vectors_name_file_and_line() {
        let cases = [
            ("1\n2\n", "2 values for 3 vertices"),
            ("1\nx\n3\n", ":2: 'x' is not a number"),
            ("1\nNaN\n3\n", ":2: 'NaN' is not a finite number"),
            ("1\n2\n3\n4\n", ":4: more than 3 values"),
            ("0 1\n7 2\n", ":2: vertex 7 does not exist"),
            ("0 1\n5\n", ":2: expected two fields"),
        ];
        for (text, want) in cases {
            let f = file(text);
            let err = read_vertex_values(f.path(), 3, 0.0).unwrap_err().to_string();
            assert!(err.contains(want) && err.contains(&f.path().display().to_string()), "{err}");
        }
    }

    #[test]
    fn vertex_sets() {
        assert_eq!(parse_vertex_set("3, 7", 8, "--sources").unwrap(), vec![3, 7]);
        assert!(parse_vertex_set("3,8", 8, "--sources").unwrap_err().to_string().contains("vertex 8 does not exist"));
        assert!(parse_vertex_set("", 8, "--sources").is_err());
        let f = file("# seeds\n1 2,3\n");
        assert_eq!(parse_vertex_set(f.path().to_str().unwrap(), 8, "--sources").unwrap(), vec![1, 2, 3]);
        let f = file("# none\n");
        assert!(parse_vertex_set(f.path().to_str().unwrap(), 8, "--sources")
            .unwrap_err()
            .to_string()
            .contains("no vertex ids"));
        let f = file("1\n9\n");
        let err = parse_vertex_set(f.path().to_str().unwrap(), 8, "--sources").unwrap_err().to_string();
        assert!(err.contains(":2: vertex 9 does not exist"), "{err}");
    }
}
