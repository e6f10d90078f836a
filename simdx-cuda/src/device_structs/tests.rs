//! Host-side checks of the host-device structs, without a GPU: the generated C declarations list every
//! field of the Rust definitions in order, the kernels use every field and declare no counter slot
//! themselves, and a host C++ compiler accepts the generated `static_assert`s (and rejects a layout that
//! differs, naming the field). The compiler checks are skipped, with a notice, where there is none.

use std::process::{Command, Stdio};

use super::*;

/// The kernel files the engine's steps do not compile (the steps' own are `engine::PHASES`).
const OTHER_KERNELS: [(&str, &str); 7] = [
    ("barrier.cu", include_str!("../kernels/barrier.cu")),
    ("fused.cu", include_str!("../kernels/fused.cu")),
    ("async.cu", include_str!("../kernels/async.cu")),
    ("multi_source.cu", include_str!("../kernels/multi_source.cu")),
    ("dependencies.cu", include_str!("../kernels/dependencies.cu")),
    ("intersect.cu", include_str!("../kernels/intersect.cu")),
    ("strong.cu", include_str!("../kernels/strong.cu")),
];

/// Every kernel file, by name.
fn kernels() -> impl Iterator<Item = (&'static str, &'static str)> {
    crate::engine::PHASES.into_iter().chain(OTHER_KERNELS)
}

/// The declarations of CUDA's built-ins for a host compiler (as the kernel syntax test uses).
const SHIM: &str = include_str!("../../tests/syntax_shim.h");

/// The field names of the C struct `name` in `c` (`typedef struct { ... } name;`), in order; several
/// declarators in one declaration (`simdx_u32 a, b;`) and arrays (`T* a[2];`) are split.
fn c_fields(c: &str, name: &str) -> Vec<String> {
    let end = c.find(&format!("}} {name};")).unwrap_or_else(|| panic!("no declaration of {name}"));
    let start = c[..end].rfind("typedef struct {").expect("a typedef struct") + "typedef struct {".len();
    let mut body = String::new();
    for line in c[start..end].lines() {
        body.push_str(line.split("/*").next().unwrap_or(""));
    }
    let mut fields = Vec::new();
    for declaration in body.split(';').map(str::trim).filter(|d| !d.is_empty()) {
        for (i, declarator) in declaration.split(',').enumerate() {
            let declarator = declarator.split('[').next().unwrap_or("").trim();
            let word = if i == 0 { declarator.rsplit([' ', '*']).next() } else { Some(declarator) };
            fields.push(word.unwrap_or("").trim_start_matches('*').to_string());
        }
    }
    fields
}

/// Checks that `T`'s generated declaration lists its fields in order (and the tail), and that the
/// kernels in `users` read every field but padding.
fn check_struct<T: DeviceStruct>(users: &[&str]) {
    let mut expected: Vec<String> = T::FIELDS.iter().map(|f| f.name.to_string()).collect();
    expected.extend(T::TAIL.map(|(_, field)| field.to_string()));
    assert_eq!(c_fields(&declaration::<T>(), T::C_NAME), expected, "{}", T::C_NAME);
    for f in T::FIELDS.iter().filter(|f| f.name != "pad") {
        let used = kernels()
            .filter(|(file, _)| users.contains(file))
            .any(|(_, text)| text.contains(&format!("->{}", f.name)) || text.contains(&format!(".{}", f.name)));
        assert!(used, "{}.{} is read by none of {users:?}", T::C_NAME, f.name);
    }
    let mut end = 0;
    for f in T::FIELDS {
        assert_eq!(f.offset, end, "{}.{}: not where the previous field ends", T::C_NAME, f.name);
        end = f.offset + f.size;
    }
    assert_eq!(end, std::mem::size_of::<T>(), "{}", T::C_NAME);
}

#[test]
fn declarations_list_every_field_in_order_and_the_kernels_use_them() {
    let engine = ["state.cu", "online_filter.cu", "prepare.cu", "push.cu", "pull.cu", "tiles.cu", "chunks.cu"];
    let engine = [&engine[..], &["apply.cu", "select.cu", "buckets.cu", "scan.cu", "link.cu", "async.cu"]].concat();
    check_struct::<SxState>(&engine);
    check_struct::<SxFused>(&["fused.cu"]);
    check_struct::<SxQueue>(&["async.cu"]);
    check_struct::<SxPacket>(&["shares.cu"]);
    check_struct::<MsState>(&["multi_source.cu"]);
    check_struct::<BcState>(&["dependencies.cu"]);
    check_struct::<IxState>(&["intersect.cu"]);
    check_struct::<ScState>(&["strong.cu"]);
}

#[test]
fn the_parser_reads_several_declarators_and_arrays() {
    let c = "typedef struct {\n    simdx_u32* far[2]; /* x, y */\n    simdx_u32 a, b;\n    const void* p;\n} t;";
    assert_eq!(c_fields(c, "t"), ["far", "a", "b", "p"]);
}

#[test]
fn counter_slots_are_declared_only_here() {
    let slots = [
        step::DEFINES,
        far::DEFINES,
        queue::DEFINES,
        multi_source::DEFINES,
        sweep::DEFINES,
        intersect::DEFINES,
        strong::DEFINES,
    ]
    .concat();
    for (name, _, doc) in &slots {
        assert!(!doc.trim().is_empty(), "{name} has no documentation");
        for (file, text) in kernels() {
            assert!(!text.contains(&format!("#define {name} ")), "kernels/{file} defines {name} itself");
        }
    }
    for (name, value, _) in step::DEFINES.iter().filter(|(name, ..)| *name != "SX_COUNTERS") {
        let end = if *name == "SX_CLASS_LEN" { value + 4 } else { value + 1 };
        assert!(end <= step::COUNTERS, "{name} lies past SX_COUNTERS");
    }
}

#[test]
fn uploaded_bytes_are_the_struct_fields() {
    let state = SxState { out_offsets: 0x0102_0304_0506_0708, n: 7, online_capacity: 9, ..SxState::default() };
    let bytes = state.as_bytes();
    assert_eq!(bytes.len(), 240);
    assert_eq!(bytes[..8], 0x0102_0304_0506_0708u64.to_ne_bytes());
    let at = std::mem::offset_of!(SxState, online_capacity);
    assert_eq!(at, 204);
    assert_eq!(bytes[at..at + 4], 9u32.to_ne_bytes());
    // The offsets the hand-written byte layouts had.
    assert_eq!(std::mem::offset_of!(SxFused, len), 148);
    assert_eq!(std::mem::offset_of!(SxFused, pull_chunks), 176);
    assert_eq!(std::mem::offset_of!(SxFused, host_above), 192);
    assert_eq!(std::mem::size_of::<SxFused>(), 232);
    assert_eq!(std::mem::size_of::<SxQueue>(), 64);
    assert_eq!(std::mem::size_of::<MsState>(), 20 * 8);
    assert_eq!(std::mem::size_of::<BcState>(), 9 * 8);
    assert_eq!(std::mem::size_of::<IxState>(), 16 * 8);
}

/// The host C++ compiler (`CXX`, else `c++`), if there is one.
fn host_compiler() -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let found = Command::new(&cxx).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !found {
        eprintln!("device_structs: no C++ compiler `{cxx}`; the host compiler's checks are skipped");
    }
    found.then_some(cxx)
}

/// Compiles `source` with the host C++ compiler (syntax only); its messages on failure.
fn compile(cxx: &str, name: &str, source: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("simdx-device-structs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{name}.cpp"));
    std::fs::write(&path, source).map_err(|e| e.to_string())?;
    let out = Command::new(cxx)
        .args(["-std=c++17", "-fsyntax-only", "-Wno-unused-function", "-Wno-unknown-pragmas", "-x", "c++"])
        .arg(&path)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&path);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Types the engine's structs need from the prelude and a program: a parameter struct of `params`.
fn program_stub(params: &str) -> String {
    format!(
        "typedef unsigned int simdx_u32;\ntypedef unsigned long long simdx_u64;\ntypedef float simdx_weight;\n\
         typedef double simdx_value;\ntypedef float simdx_msg;\ntypedef struct {{ {params} }} simdx_params;\n"
    )
}

#[test]
fn the_host_compiler_accepts_the_generated_layout_checks() {
    let Some(cxx) = host_compiler() else { return };
    for params in ["double x; unsigned int y;", "unsigned int y;", "const double* rank; float z;"] {
        let unit = format!("{}{}", program_stub(params), engine_header());
        compile(&cxx, "engine", &unit).unwrap_or_else(|e| panic!("engine structs ({params}):\n{e}"));
    }
    let sweeps = format!("{SHIM}\n{}", crate::search_buffers::sweep_unit());
    compile(&cxx, "sweeps", &sweeps).unwrap_or_else(|e| panic!("the sweeps' unit:\n{e}"));
    let traversal = format!("{SHIM}\n{}", crate::search_buffers::multi_source_unit(""));
    compile(&cxx, "traversal", &traversal).unwrap_or_else(|e| panic!("the traversal's unit:\n{e}"));
    let intersect = format!("{SHIM}\n{}", crate::intersect::intersect_source());
    compile(&cxx, "intersect", &intersect).unwrap_or_else(|e| panic!("the edge computations' unit:\n{e}"));
    let strong = format!("{SHIM}\n{}", crate::strong::strong_source());
    compile(&cxx, "strong", &strong).unwrap_or_else(|e| panic!("the strongly connected components' unit:\n{e}"));
    let tree = format!("{SHIM}\n{}", crate::tree::tree_source());
    compile(&cxx, "tree", &tree).unwrap_or_else(|e| panic!("the parent tree's unit:\n{e}"));
}

#[test]
fn a_layout_that_differs_fails_naming_the_field() {
    let Some(cxx) = host_compiler() else { return };
    let header = sweep_header();
    let at = std::mem::offset_of!(BcState, level);
    let good = format!("__builtin_offsetof(bc_state, level) == {at},");
    assert!(header.contains(&good), "{header}");
    let bad = header.replace(&good, &format!("__builtin_offsetof(bc_state, level) == {},", at + 8));
    let message = compile(&cxx, "mismatch", &bad).expect_err("a wrong offset must not compile");
    assert!(message.contains("bc_state.level"), "{message}");
    let bad = sweep_header().replace("unsigned int* level;", "unsigned int level;");
    let message = compile(&cxx, "mismatch_size", &bad).expect_err("a wrong field type must not compile");
    assert!(message.contains("bc_state.level"), "{message}");
}
