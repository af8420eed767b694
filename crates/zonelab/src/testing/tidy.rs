//! Checks of the source tree itself: in every crate of the workspace (`crates/*/src`, test code
//! apart), no function grows past the guide's bound of about 70 lines nor a file past 600, and
//! no comment carries a speed figure (BENCHMARKS.md keeps those); every type, trait and path docs/architecture.md names exists in the code, and the core modules import only modules below them in docs/architecture.md's tree (so none
//! in a circle): time and NAND at the bottom, then the device seam, firmware and device models,
//! the kernel, host layers, workloads, the report, config, the experiment that assembles them,
//! state files and validation at the top.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Core module -> (module it imports -> the first file that does), test code left out.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file without its inline test module (`#[cfg(test)] mod ... {`, which closes the file).
fn without_test_module(text: &str) -> &str {
    let mut at = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod ") && n.trim_end().ends_with('{'))
        {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

/// The code of a file that builds outside tests, without comment lines.
fn non_test_code(text: &str) -> String {
    let mut code = String::new();
    for line in without_test_module(text).lines() {
        if !line.trim_start().starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
    }
    code
}

/// The modules `code` names as `crate::NAME`.
fn imported(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` and `zonelab_crate::` are not this crate's paths.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// The import graph of the top-level modules under `src`: test files (`*tests.rs`, `testing/`)
/// left out.
fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let module = |p: &Path| -> String {
        let rel = p.strip_prefix(src).expect("under src");
        let first = rel.components().next().expect("a path");
        let name = first.as_os_str().to_string_lossy();
        name.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    let mut g = Graph::new();
    for p in &files {
        let from = module(p);
        let file = p.file_name().expect("a file").to_string_lossy();
        if from == "lib" || from == "testing" || file.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(p).expect("a source file");
        for to in imported(&non_test_code(&text)) {
            if to != from && modules.contains(&to) {
                let rel = p
                    .strip_prefix(src)
                    .expect("under src")
                    .display()
                    .to_string();
                g.entry(from.clone()).or_default().entry(to).or_insert(rel);
            }
        }
    }
    g
}

/// A circle of imports, if there is one: each module with the file that imports the next.
fn circle(g: &Graph) -> Option<Vec<(String, String)>> {
    // Depth-first search; `path` is the chain from the root being searched.
    fn visit(
        g: &Graph,
        m: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in g.get(m).into_iter().flat_map(|e| e.keys()) {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if let Some(c) = visit(g, m, &mut Vec::new(), &mut done) {
            return Some(
                c.windows(2)
                    .map(|w| (w[0].clone(), g[&w[0]][&w[1]].clone()))
                    .collect(),
            );
        }
    }
    None
}

#[test]
fn core_modules_import_one_another_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    assert!(
        g.get("experiment").is_some_and(|e| e.contains_key("sim")),
        "the graph is read: experiment imports sim"
    );
    if let Some(c) = circle(&g) {
        let steps: Vec<String> = c
            .iter()
            .map(|(m, file)| format!("{m} (src/{file})"))
            .collect();
        panic!(
            "the core modules import in a circle: {} -> back to the first. Move what the lower \
             module needs down (plain data into device/, assembly into experiment/)",
            steps.join(" -> ")
        );
    }
}

/// The modules docs/architecture.md lists in its tree, top first: the first word of each line
/// of its first code block that starts in the first column.
fn documented_order(doc: &str) -> Vec<String> {
    let block = doc
        .split("```")
        .nth(1)
        .expect("docs/architecture.md opens with the module tree in a code block");
    block
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .map(|w| w.trim_end_matches('/').trim_end_matches(".rs").to_string())
        .collect()
}

/// Imports that go up the documented order, and modules missing from it.
fn against_order(g: &Graph, modules: &BTreeSet<String>, order: &[String]) -> Vec<String> {
    let at = |m: &str| order.iter().position(|o| o == m);
    let mut problems: Vec<String> = modules
        .iter()
        .filter(|m| at(m).is_none())
        .map(|m| format!("{m} is not in the list"))
        .collect();
    for (from, tos) in g {
        for (to, file) in tos {
            if let (Some(a), Some(b)) = (at(from), at(to))
                && b < a
            {
                problems.push(format!("{from} imports {to}, listed above it (src/{file})"));
            }
        }
    }
    problems
}

#[test]
fn every_module_imports_only_modules_listed_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let doc = std::fs::read_to_string(root.join("../../docs/architecture.md"))
        .expect("docs/architecture.md");
    let order = documented_order(&doc);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).expect("under src");
            let first = rel.components().next().expect("a path");
            first
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .filter(|m| m != "lib" && m != "testing")
        .collect();
    let problems = against_order(&graph(&src), &modules, &order);
    assert!(
        problems.is_empty(),
        "docs/architecture.md's module tree and the code disagree: {}",
        problems.join("; ")
    );
}

/// The guide's bound: split a function before it passes about 70 lines.
const MAX_FUNCTION_LINES: usize = 70;

/// (file, function name, first line, lines) of every function in `code` longer than the bound,
/// signature to closing brace, as rustfmt lays them out (the brace at the `fn`'s indentation;
/// a function on one line, `fn f() {}`, is one line).
fn long_functions(file: &str, code: &str, out: &mut Vec<(String, String, usize, usize)>) {
    let lines: Vec<&str> = code.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "fn");
        let is_fn = at.is_some_and(|k| {
            words[..k].iter().all(|w| {
                [
                    "pub",
                    "pub(crate)",
                    "pub(super)",
                    "const",
                    "async",
                    "unsafe",
                ]
                .contains(w)
            })
        }) && !line.trim_end().ends_with(';')
            && !line.trim_end().ends_with('}');
        if !is_fn {
            i += 1;
            continue;
        }
        let name: String = words[at.expect("a fn") + 1]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{}}}", " ".repeat(indent));
        let end = (i + 1..lines.len()).find(|&j| lines[j] == close);
        let Some(end) = end else {
            i += 1;
            continue;
        };
        if end - i + 1 > MAX_FUNCTION_LINES {
            out.push((file.to_string(), name, i + 1, end - i + 1));
        }
        i = end + 1;
    }
}

/// The guide's bound on a file: split it before it passes about 600 lines (test modules apart).
const MAX_FILE_LINES: usize = 600;

/// The comment lines of `code` that carry a speed figure (those live in BENCHMARKS.md, where
/// they are kept current): a number with `%` or `x` beside "faster", "slower" or "speedup", or a
/// number beside a rate of requests per second (naming the rate a benchmark measures is not a
/// figure). Model constants and their sources are not figures of this kind.
fn speed_figures(code: &str) -> Vec<(usize, String)> {
    let is_ratio = |w: &str| {
        let w = w.trim_end_matches('.');
        let (num, unit) = w.split_at(w.len().saturating_sub(1));
        (unit == "%" || unit == "x")
            && num.starts_with(|c: char| c.is_ascii_digit())
            && num
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    };
    code.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let comment = line[line.find("//")?..].to_lowercase();
            let words: Vec<&str> = comment
                .split(|c: char| c.is_whitespace() || "(),;:".contains(c))
                .collect();
            let speed = ["faster", "slower", "speedup", "speed-up"]
                .iter()
                .any(|w| comment.contains(w));
            let rate = ["per wall", "requests per second", "req/s", "requests/s"]
                .iter()
                .any(|w| comment.contains(w));
            let number = words
                .iter()
                .any(|w| w.starts_with(|c: char| c.is_ascii_digit()));
            ((speed && words.iter().any(|w| is_ratio(w))) || (rate && number))
                .then(|| (i + 1, line.trim().to_string()))
        })
        .collect()
}

/// The `src` directory of every crate in the workspace: this crate's and its siblings' under
/// `crates/` (their `tests/` directories are test code, and left out).
fn crate_sources() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the core crate sits in crates/");
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(crates)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", crates.display()))
        .map(|e| e.expect("a directory entry").path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    srcs.sort();
    srcs
}

/// Every crate's source files outside tests, as (path from the workspace root, e.g.
/// `crates/zonelab/src/lib.rs`, the code before any test module). Test files (`*tests.rs`,
/// a `testing/` directory) are left out.
fn non_test_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for src in crate_sources() {
        let root = src
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .expect("crates/NAME/src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for p in &files {
            let rel = p
                .strip_prefix(&src)
                .expect("under src")
                .display()
                .to_string();
            if rel.starts_with("testing/") || rel.ends_with("tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(p).expect("a source file");
            let name = p.strip_prefix(root).expect("under the workspace");
            out.push((
                name.display().to_string(),
                without_test_module(&text).to_string(),
            ));
        }
    }
    out
}

#[test]
fn every_crate_is_checked() {
    let files: Vec<String> = non_test_sources().into_iter().map(|(f, _)| f).collect();
    for file in [
        "crates/zonelab/src/lib.rs",
        "crates/zonelab-cli/src/main.rs",
        "crates/zonelab-swarm/src/draw.rs",
        "crates/zonelab-ublk/src/server.rs",
    ] {
        assert!(files.iter().any(|f| f == file), "{file} is not checked");
    }
    assert!(
        !files
            .iter()
            .any(|f| f.ends_with("tests.rs") || f.contains("/testing/")),
        "test files are left out"
    );
}

#[test]
fn no_function_passes_seventy_lines() {
    let mut long = Vec::new();
    for (rel, code) in non_test_sources() {
        long_functions(&rel, &code, &mut long);
    }
    let long: Vec<String> = long
        .iter()
        .map(|(f, n, line, lines)| format!("{f}:{line} {n} ({lines} lines)"))
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines: {}; split them",
        long.join(", ")
    );
}

#[test]
fn no_file_passes_six_hundred_lines() {
    let long: Vec<String> = non_test_sources()
        .iter()
        .map(|(rel, code)| (rel, code.lines().count()))
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(rel, n)| format!("{rel} ({n} lines)"))
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines outside their tests: {}; split them",
        long.join(", ")
    );
}

#[test]
fn no_comment_carries_a_speed_figure() {
    let found: Vec<String> = non_test_sources()
        .iter()
        .flat_map(|(rel, code)| {
            speed_figures(code)
                .into_iter()
                .map(move |(line, l)| format!("{rel}:{line}: {l}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "speed figures in comments (they belong in BENCHMARKS.md): {found:#?}"
    );
}

#[test]
fn a_speed_figure_in_a_comment_is_found() {
    let code = "let a = 1; // 12% faster than the binary search
                // tR 50 us, 2.5x the SLC read (Table 2)
                // 11.3 M requests per second on this machine
                // slower: the die is busy
                // measures requests per wall-clock second
";
    assert_eq!(
        speed_figures(code),
        [
            (
                1,
                "let a = 1; // 12% faster than the binary search".to_string()
            ),
            (
                3,
                "// 11.3 M requests per second on this machine".to_string()
            )
        ]
    );
}

/// The Rust names a document puts in backticks that a reader would look up: a path with `::`,
/// or a name starting with a capital (a type, trait or variant); for a call, the part before `(`.
fn named_in(doc: &str) -> BTreeSet<String> {
    let ident = |w: &str| {
        !w.is_empty()
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !w.starts_with(|c: char| c.is_ascii_digit())
    };
    doc.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.split('(').next().unwrap_or(""))
        .filter(|path| path.split("::").all(ident))
        .filter(|path| path.contains("::") || path.starts_with(|c: char| c.is_ascii_uppercase()))
        .filter(|path| path.chars().any(|c| c.is_ascii_lowercase()))
        .map(str::to_string)
        .collect()
}

/// Of `names`, those with a segment that is no word of `code`.
fn missing(names: &BTreeSet<String>, code: &str) -> Vec<String> {
    let words: BTreeSet<&str> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    names
        .iter()
        .filter(|n| n.split("::").any(|seg| !words.contains(seg)))
        .cloned()
        .collect()
}

#[test]
fn every_name_the_architecture_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../../docs/architecture.md"))
        .expect("docs/architecture.md");
    let mut files = Vec::new();
    rust_files(&root.join(".."), &mut files);
    // This file names made-up paths for its own test.
    let code: String = files
        .iter()
        .filter(|f| !f.ends_with("testing/tidy.rs"))
        .map(|f| std::fs::read_to_string(f).expect("a source file"))
        .flat_map(|t| {
            t.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect::<Vec<_>>()
        })
        .collect();
    let names = named_in(&doc);
    assert!(names.len() > 40, "the check reads the document: {names:?}");
    let gone = missing(&names, &code);
    assert!(
        gone.is_empty(),
        "docs/architecture.md names what the code does not have: {gone:?}"
    );
}

#[test]
fn a_name_the_code_lacks_is_found() {
    let names = named_in("use `firmware::ResetPolicy` and `Firmware`, `x.y()`, `run(a, b)`, `U32`");
    assert_eq!(
        names.iter().map(String::as_str).collect::<Vec<_>>(),
        ["Firmware", "firmware::ResetPolicy"]
    );
    let code = "pub struct Firmware;\nmod firmware;\n";
    assert_eq!(missing(&names, code), ["firmware::ResetPolicy"]);
}

#[test]
fn a_long_function_is_found_with_its_length() {
    let body = "    let x = 1;\n".repeat(80);
    let code = format!(
        "fn none() {{}}\n\npub(crate) fn big(a: u32) -> u32 {{\n{body}    x\n}}\n\nfn small() {{}}\n"
    );
    let mut out = Vec::new();
    long_functions("a.rs", &code, &mut out);
    // The one-line `none` is not taken for a function running to `big`'s closing brace.
    assert_eq!(out, [("a.rs".to_string(), "big".to_string(), 3, 83)]);
}

#[test]
fn the_graph_sees_a_circle_and_skips_test_code() {
    let mut g = Graph::new();
    g.entry("a".into())
        .or_default()
        .insert("b".into(), "a.rs".into());
    g.entry("b".into())
        .or_default()
        .insert("c".into(), "b/mod.rs".into());
    assert!(circle(&g).is_none());
    g.entry("c".into())
        .or_default()
        .insert("a".into(), "c.rs".into());
    let c = circle(&g).expect("a -> b -> c -> a");
    assert_eq!(c.len(), 3);
    let modules = BTreeSet::from(["a", "b", "c", "d"].map(String::from));
    let order = documented_order("x\n```\na/   one\n     more\nb.rs two\nc/\n```\n");
    assert_eq!(order, ["a", "b", "c"]);
    assert_eq!(
        against_order(&g, &modules, &order),
        [
            "d is not in the list",
            "c imports a, listed above it (src/c.rs)"
        ]
    );
    let code = non_test_code(
        "use crate::device::X;\n// crate::sim in a comment\nfn f() { $crate::zns::y() }\n\
         #[cfg(test)]\nmod tests {\n    use crate::config::Y;\n}\n",
    );
    assert_eq!(
        imported(&code),
        BTreeSet::from(["device".to_string()]),
        "comments, macro paths and the inline test module are not imports"
    );
}
