//! The floors of `colmena-core`, made executable (issue 34).
//!
//! Every source file's `crate::…`, `super::…` and `self::…` paths (in
//! `use` lines and inline) are read and checked against the floor table
//! below: a file may name its own floor or a floor below, never one
//! above. Three more rules ride along: inside the crate a name is taken
//! from its module, never routed through `lib.rs` (`crate::Ctx`,
//! `crate::{…}`); no import circle among files (over their `crate::`
//! paths) is larger than two; and the lists of known breaks and circles
//! may only shrink — one that is gone must leave its list, so the lists
//! are always today's debt and nothing else.
//!
//! Test code is left out (files named `tests.rs` or under a `tests/`
//! folder, and what follows a file's first `#[cfg(test)]`): a test may set
//! up from any floor. The files the `colmena-sandbox` binary takes in with
//! `#[path]` are left out too: their `crate::` is the binary's root.
//! `scripts/core-layers.py` measures the same edges for the figures.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// The floors, lowest first. A path names a top-level module (a room) or
/// a file or folder inside one; the longest match decides.
const FLOORS: &[(&str, &[&str])] = &[
    (
        "ground: no domain knowledge",
        &[
            "error",
            "ids",
            "validate",
            "glob",
            "data_dir",
            "risk",
            "terminal_text",
            "document",
            "store",
            "secrets",
            "search",
            "llm",
            "net_guard",
            "sandbox",
            "process",
            "private_files",
            "single_instance",
            "work",
        ],
    ),
    (
        "kernel: the open workspace and who acts",
        &["ctx", "caller"],
    ),
    (
        "nouns: rows, rules and writes",
        &[
            "users",
            "providers",
            "models",
            "agents",
            "skills",
            "tools",
            "ethics",
            "memory",
            "images",
            "prompt",
            "permissions",
            "setup",
            "endpoints",
            "mcp_servers",
            "web_search",
            "conversations",
            "canvas",
            "runs",
            "inbox",
            "cron",
            "activity",
        ],
    ),
    (
        "engine: what runs",
        &[
            "runtime",
            "swarms",
            "roles",
            "team_bus",
            "cron/scheduler.rs",
            "cron/targets.rs",
            "canvas/generate.rs",
        ],
    ),
    (
        "operations: the services every door calls, and the tools a run calls",
        &["contracts", "toolbox"],
    ),
    (
        "root: opens the workspace and names every floor",
        &["workspace", "doctor", "connect"],
    ),
];

/// Imports that run up today: `(file, module it names)`. The test fails
/// on a break not listed here, and on a listed one that no longer occurs.
/// Issue 34 left none; a new one needs a reason and a step that cuts it.
const KNOWN_BREAKS: &[(&str, &str)] = &[];

/// Import circles of more than two files today. The test fails when the
/// circles found differ from these, either way. Issue 34 left none.
const KNOWN_CIRCLES: &[&[&str]] = &[];

struct Source {
    /// Relative to `src/`, with `/`.
    file: String,
    text: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn read_sources() -> Vec<Source> {
    let src = src_dir();
    let bin_only = bin_modules(&src);
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("the source folder is readable") {
            let path = entry.expect("a readable entry").path();
            let rel = path
                .strip_prefix(&src)
                .expect("inside src")
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if rel != "bin" && !rel.ends_with("tests") && rel != "tests" {
                    stack.push(path);
                }
                continue;
            }
            if !rel.ends_with(".rs") || rel.ends_with("tests.rs") || bin_only.contains(&rel) {
                continue;
            }
            let text = fs::read_to_string(&path).expect("a readable source file");
            let text = match text.find("#[cfg(test)]") {
                Some(cut) => text[..cut].to_owned(),
                None => text,
            };
            out.push(Source {
                file: rel,
                text: strip_comments(&text),
            });
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// The files `src/bin/*.rs` take in with `#[path = "../…"]`.
fn bin_modules(src: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Ok(bins) = fs::read_dir(src.join("bin")) else {
        return out;
    };
    for bin in bins {
        let text = fs::read_to_string(bin.expect("a bin entry").path()).expect("a bin file");
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("#[path = \"../")
                && let Some(path) = rest.strip_suffix("\"]")
            {
                out.insert(path.to_owned());
            }
        }
    }
    out
}

/// The text without comments (doc comments name paths that are not imports).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_str, mut block) = (false, 0u32);
    while let Some(c) = chars.next() {
        if block > 0 {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                block -= 1;
            } else if c == '\n' {
                out.push('\n');
            }
            continue;
        }
        if in_str {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                block += 1;
            }
            _ => out.push(c),
        }
    }
    out
}

/// One `crate::` path: where it stands and the module path it names
/// (`crate::store::bus::Author` → `["store", "bus", "Author"]`).
struct Named {
    line: usize,
    /// How many modules up the path starts from the file's own module:
    /// `None` for `crate::`, `Some(0)` for `self::`, `Some(1)` for
    /// `super::`, and so on.
    up: Option<usize>,
    path: Vec<String>,
    /// `crate::X` (a capital) or `crate::{…}`: routed through `lib.rs`.
    through_root: bool,
}

fn ident_at(text: &[u8], mut i: usize) -> (String, usize) {
    let start = i;
    while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
        i += 1;
    }
    (String::from_utf8_lossy(&text[start..i]).into_owned(), i)
}

/// The paths a `{…}` group starting at `open` names, each as segments.
fn group_paths(text: &[u8], open: usize) -> Vec<Vec<String>> {
    let mut depth = 0usize;
    let mut end = open;
    for (i, &b) in text.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = String::from_utf8_lossy(&text[open + 1..end]).into_owned();
    let mut items = Vec::new();
    let (mut depth, mut cur) = (0usize, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            items.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    items.push(cur);
    let mut out = Vec::new();
    for item in items {
        let item: String = item.split_whitespace().collect::<Vec<_>>().join(" ");
        if item.is_empty() {
            continue;
        }
        if let Some(brace) = item.find('{') {
            let head: Vec<String> = item[..brace]
                .split("::")
                .filter(|s| !s.trim().is_empty())
                .map(|s| s.trim().to_owned())
                .collect();
            for tail in group_paths(item.as_bytes(), brace) {
                out.push(head.iter().cloned().chain(tail).collect());
            }
        } else {
            let item = item.split(" as ").next().unwrap_or_default();
            out.push(
                item.split("::")
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty() && s != "self" && s != "*")
                    .collect(),
            );
        }
    }
    out
}

/// The `crate::`, `super::` and `self::` paths of `text`, and the bare
/// ones that start at one of its module's `children` (`scheduler::Hub` in
/// `cron/mod.rs`).
fn named_paths(text: &str, children: &[String]) -> Vec<Named> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let anchors: Vec<String> = ["crate::", "super::", "self::"]
        .into_iter()
        .map(str::to_owned)
        .chain(children.iter().map(|c| format!("{c}::")))
        .collect();
    for anchor in &anchors {
        let anchor = anchor.as_str();
        let child = !matches!(anchor, "crate::" | "super::" | "self::");
        let mut from = 0;
        while let Some(at) = text[from..].find(anchor) {
            let start = from + at;
            from = start + anchor.len();
            // A child's path keeps the child's name as its first segment.
            let mut head = if child { start } else { from };
            let before = start.checked_sub(1).map(|i| bytes[i]);
            if before
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':' || b == b'$')
            {
                continue; // `$crate::`, `a::super::` (counted from its start), a longer name
            }
            let mut up = match anchor {
                "crate::" => None,
                "super::" => Some(1),
                _ => Some(0),
            };
            while up.is_some() && text[head..].starts_with("super::") {
                up = up.map(|n| n + 1);
                head += "super::".len();
            }
            let line = text[..start].matches('\n').count() + 1;
            if bytes.get(head) == Some(&b'{') {
                for path in group_paths(bytes, head) {
                    out.push(Named {
                        line,
                        up,
                        path,
                        through_root: up.is_none(),
                    });
                }
                continue;
            }
            let mut path = Vec::new();
            let mut i = head;
            loop {
                let (ident, end) = ident_at(bytes, i);
                if ident.is_empty() {
                    break;
                }
                path.push(ident);
                i = end;
                if bytes.get(i..i + 2) == Some(b"::") && bytes.get(i + 2) != Some(&b'{') {
                    i += 2;
                } else {
                    if bytes.get(i..i + 3) == Some(b"::{") {
                        let head = path.clone();
                        for tail in group_paths(bytes, i + 2) {
                            out.push(Named {
                                line,
                                up,
                                path: head.iter().cloned().chain(tail).collect(),
                                through_root: false,
                            });
                        }
                        path.clear();
                    }
                    break;
                }
            }
            if let Some(first) = path.first() {
                let through_root =
                    up.is_none() && first.starts_with(|c: char| c.is_ascii_uppercase());
                out.push(Named {
                    line,
                    up,
                    path,
                    through_root,
                });
            }
        }
    }
    out.sort_by_key(|n| n.line);
    out
}

/// The module a file is (`store/bus/mod.rs` → `store/bus`).
fn module_of(file: &str) -> String {
    let bare = file.trim_end_matches(".rs");
    bare.strip_suffix("/mod").unwrap_or(bare).to_owned()
}

/// The floor of a module path (`inbox/wakes`), by the longest entry of
/// [`FLOORS`] that covers it.
fn floor_of(module: &str) -> Option<(usize, &'static str)> {
    let mut best: Option<(usize, usize, &str)> = None;
    for (floor, (_, entries)) in FLOORS.iter().enumerate() {
        for entry in *entries {
            let entry_mod = entry.trim_end_matches(".rs");
            let covers = module == entry_mod || module.starts_with(&format!("{entry_mod}/"));
            if covers && best.is_none_or(|(len, _, _)| entry_mod.len() > len) {
                best = Some((entry_mod.len(), floor, entry));
            }
        }
    }
    best.map(|(_, floor, entry)| (floor, entry))
}

/// The deepest module of ours a path names (`["store", "bus", "Author"]` →
/// `store/bus`), given the modules that exist.
fn target_of(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let mut best = None;
    for n in 1..=path.len() {
        let candidate = path[..n].join("/");
        if modules.contains(&candidate) {
            best = Some(candidate);
        }
    }
    best
}

struct Edge {
    file: String,
    line: usize,
    target: String,
    /// Named with `super::` or `self::`: counts for the floors, not for
    /// the circles (a folder's `mod.rs` and its files name each other by
    /// design; the circle rule is over `crate::` paths, as issue 34 says).
    relative: bool,
}

fn edges(sources: &[Source]) -> (Vec<Edge>, Vec<String>) {
    let modules: BTreeSet<String> = sources.iter().map(|s| module_of(&s.file)).collect();
    let (mut edges, mut routed) = (Vec::new(), Vec::new());
    for source in sources {
        if source.file == "lib.rs" {
            continue;
        }
        let own = module_of(&source.file);
        let children: Vec<String> = modules
            .iter()
            .filter_map(|m| m.strip_prefix(&format!("{own}/")))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_owned)
            .collect();
        for named in named_paths(&source.text, &children) {
            if named.through_root {
                routed.push(format!(
                    "{}:{}: crate::{} is taken through lib.rs: name its module",
                    source.file,
                    named.line,
                    named.path.join("::")
                ));
                continue;
            }
            let path = match named.up {
                None => named.path.clone(),
                Some(up) => {
                    // `super::` of `inbox/authors.rs` (module `inbox/authors`) is `inbox`.
                    let own = module_of(&source.file);
                    let mut base: Vec<String> = own
                        .split('/')
                        .filter(|p| !p.is_empty() && *p != "lib")
                        .map(str::to_owned)
                        .collect();
                    base.truncate(base.len().saturating_sub(up));
                    base.into_iter().chain(named.path.iter().cloned()).collect()
                }
            };
            if let Some(target) = target_of(&path, &modules)
                && target != module_of(&source.file)
            {
                edges.push(Edge {
                    file: source.file.clone(),
                    line: named.line,
                    target,
                    relative: named.up.is_some(),
                });
            }
        }
    }
    (edges, routed)
}

#[test]
fn every_file_has_a_floor() {
    let missing: Vec<String> = read_sources()
        .iter()
        .filter(|s| s.file != "lib.rs" && floor_of(&module_of(&s.file)).is_none())
        .map(|s| s.file.clone())
        .collect();
    assert!(
        missing.is_empty(),
        "files on no floor (add their room to FLOORS in tests/layers.rs): {missing:?}"
    );
}

#[test]
fn imports_run_down_and_name_their_module() {
    let sources = read_sources();
    let (edges, routed) = edges(&sources);
    let mut broken = BTreeMap::new();
    for edge in &edges {
        let (Some((from, _)), Some((to, _))) =
            (floor_of(&module_of(&edge.file)), floor_of(&edge.target))
        else {
            continue;
        };
        if to > from {
            broken
                .entry((edge.file.clone(), edge.target.replace('/', "::")))
                .or_insert_with(|| {
                    format!(
                        "{}:{}: crate::{} runs up from floor {} ({}) to floor {} ({})",
                        edge.file,
                        edge.line,
                        edge.target.replace('/', "::"),
                        from + 1,
                        FLOORS[from].0,
                        to + 1,
                        FLOORS[to].0
                    )
                });
        }
    }
    let known: BTreeSet<(String, String)> = KNOWN_BREAKS
        .iter()
        .map(|(f, t)| ((*f).to_owned(), (*t).to_owned()))
        .collect();
    let new: Vec<&String> = broken
        .iter()
        .filter(|(key, _)| !known.contains(*key))
        .map(|(_, why)| why)
        .collect();
    let gone: Vec<&(String, String)> = known.iter().filter(|k| !broken.contains_key(*k)).collect();
    assert!(
        new.is_empty() && gone.is_empty() && routed.is_empty(),
        "imports that run up:\n{}\n\nlisted in KNOWN_BREAKS but gone (take them off the list):\n{:?}\n\nnames taken through lib.rs:\n{}",
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        gone,
        routed.join("\n")
    );
}

#[test]
fn no_import_circle_is_larger_than_two_files() {
    let sources = read_sources();
    let (edges, _) = edges(&sources);
    let file_of: HashMap<String, String> = sources
        .iter()
        .map(|s| (module_of(&s.file), s.file.clone()))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for edge in edges.iter().filter(|e| !e.relative) {
        if let Some(to) = file_of.get(&edge.target) {
            graph
                .entry(edge.file.clone())
                .or_default()
                .insert(to.clone());
        }
    }
    let nodes: Vec<String> = sources.iter().map(|s| s.file.clone()).collect();
    let found: BTreeSet<BTreeSet<String>> = strongly_connected(&nodes, &graph)
        .into_iter()
        .filter(|c| c.len() > 2)
        .map(|c| c.into_iter().collect())
        .collect();
    let known: BTreeSet<BTreeSet<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|f| (*f).to_owned()).collect())
        .collect();
    assert_eq!(
        found, known,
        "files that import each other in a circle of more than two (left) against KNOWN_CIRCLES \
         (right): cut a new circle; update the list when a known one shrinks or goes"
    );
}

/// Tarjan's strongly connected components, iterative.
fn strongly_connected(
    nodes: &[String],
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Vec<String>> {
    let empty = BTreeSet::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut low: HashMap<&str, usize> = HashMap::new();
    let mut on_stack: BTreeSet<&str> = BTreeSet::new();
    let (mut stack, mut out, mut next) = (Vec::<&str>::new(), Vec::new(), 0usize);
    for root in nodes {
        if index.contains_key(root.as_str()) {
            continue;
        }
        let mut work: Vec<(&str, Vec<&str>)> = Vec::new();
        index.insert(root, next);
        low.insert(root, next);
        next += 1;
        stack.push(root);
        on_stack.insert(root);
        work.push((
            root,
            graph
                .get(root)
                .unwrap_or(&empty)
                .iter()
                .map(String::as_str)
                .collect(),
        ));
        while let Some(top) = work.last_mut() {
            let v = top.0;
            if let Some(w) = top.1.pop() {
                if !index.contains_key(w) {
                    index.insert(w, next);
                    low.insert(w, next);
                    next += 1;
                    stack.push(w);
                    on_stack.insert(w);
                    let children = graph
                        .get(w)
                        .unwrap_or(&empty)
                        .iter()
                        .map(String::as_str)
                        .collect();
                    work.push((w, children));
                } else if on_stack.contains(w) {
                    let lw = index[w];
                    let lv = low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                let lv = low[v];
                let lp = low.get_mut(parent).expect("visited");
                *lp = (*lp).min(lv);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack.remove(w);
                    component.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[test]
fn the_reader_finds_grouped_nested_and_inline_paths() {
    let text = strip_comments(
        "use crate::a::{b, c::{D, e}};\n// crate::commented::Out\nfn f() { crate::x::y(); }\nuse crate::Ctx;\nuse super::super::z::W;\n",
    );
    let found: Vec<(usize, String, bool)> = named_paths(&text, &[])
        .into_iter()
        .map(|n| (n.line, n.path.join("::"), n.through_root))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, "a::b".to_owned(), false),
            (1, "a::c::D".to_owned(), false),
            (1, "a::c::e".to_owned(), false),
            (3, "x::y".to_owned(), false),
            (4, "Ctx".to_owned(), true),
            (5, "z::W".to_owned(), false),
        ]
    );
    assert_eq!(floor_of("roles/wakes").map(|f| f.0), Some(3));
    assert_eq!(floor_of("cron/scheduler").map(|f| f.0), Some(3));
    assert_eq!(floor_of("inbox/messages").map(|f| f.0), Some(2));
    assert_eq!(floor_of("ctx").map(|f| f.0), Some(1));
}
