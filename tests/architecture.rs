//! The map's invariants, checked (ARCHITECTURE.md, "Invariants"): SQL only
//! in `schema`, and each crate free of what it does not use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// What looks like SQL on a line of Rust (comments aside).
fn sql_on(line: &str) -> Option<&'static str> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return None;
    }
    const MARKS: [&str; 9] = [
        "sqlx::",
        "SELECT ",
        "INSERT INTO",
        "DELETE FROM",
        "CREATE TABLE",
        "CREATE DATABASE",
        "DROP DATABASE",
        "ALTER TABLE",
        "ON CONFLICT",
    ];
    if let Some(m) = MARKS.iter().find(|m| code.contains(*m)) {
        return Some(m);
    }
    // `UPDATE jobs SET ...`
    let words: Vec<&str> = code.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
    words.windows(3).any(|w| w[0] == "UPDATE" && w[2] == "SET").then_some("UPDATE .. SET")
}

#[test]
fn sql_lives_only_in_schema() {
    let mut found = vec![];
    for krate in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        if krate.file_name() == "schema" {
            continue;
        }
        let mut files = vec![];
        rust_files(&krate.path().join("src"), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, line) in text.lines().enumerate() {
                if let Some(mark) = sql_on(line) {
                    found.push(format!("{}:{}: {mark}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "SQL outside crates/schema (add a typed operation to schema instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_sql_gate_sees_sql() {
    assert!(sql_on(r#"    sqlx::query("SELECT 1")"#).is_some());
    assert!(sql_on(r#"        "UPDATE jobs SET status = 'x'","#).is_some());
    assert!(sql_on("// we SELECT nothing here").is_none());
    assert!(sql_on("let update = set;").is_none());
}

/// Each workspace crate's direct dependencies (normal ones, not dev or build).
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut manifests: Vec<PathBuf> =
        std::fs::read_dir(root().join("crates")).unwrap().flatten().map(|e| e.path().join("Cargo.toml")).collect();
    manifests.push(root().join("tests/Cargo.toml"));
    for m in manifests {
        let doc: toml::Table = std::fs::read_to_string(&m).unwrap().parse().unwrap();
        let name = doc["package"]["name"].as_str().unwrap().to_string();
        let deps = doc.get("dependencies").and_then(|d| d.as_table()).map(|t| t.keys().cloned().collect());
        out.insert(name, deps.unwrap_or_default());
    }
    out
}

/// Everything `krate` depends on, through the workspace's crates.
fn closure(deps: &BTreeMap<String, BTreeSet<String>>, krate: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![krate.to_string()];
    while let Some(k) = todo.pop() {
        for d in deps.get(&k).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn library_crates_depend_only_on_what_they_use() {
    let deps = dependencies();
    let never: [(&str, &[&str]); 12] = [
        // The science crates: plain functions, no services, no async.
        ("planner", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs"]),
        ("learner", &["sqlx", "redis", "tokio", "axum", "clap", "schema", "queue", "jobs"]),
        // The permutation puzzles: a science crate beside the planner.
        ("puzzles", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "planner"]),
        // Trunda's features: graphs of PDDL states, nothing else.
        ("subgraphs", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "learner"]),
        // Trunda's learned heuristic: hand-written networks over the subgraph features.
        ("graphlearn", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "learner"]),
        // WL features and their linear heuristic: the planner and nothing of the farm's.
        ("wl", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "learner", "subgraphs"]),
        // Marom & Rosman's learners: hand-written small networks over the puzzles.
        ("likely", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "planner"]),
        // The vocabulary: no transport, no storage, no learner.
        ("jobs", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "learner"]),
        ("queue", &["sqlx", "jobs", "schema", "tch", "clap"]),
        // Backoff and outage logs: it knows no server, only time.
        ("outage", &["sqlx", "redis", "schema", "queue", "jobs", "axum", "clap", "tch"]),
        ("schema", &["redis", "queue", "axum", "clap", "tch", "learner", "worker"]),
        // The coordinator schedules and serves; it never trains.
        ("coordinator", &["tch", "torch-sys", "learner", "worker", "clap"]),
    ];
    let mut bad = vec![];
    for (krate, forbidden) in never {
        let all = closure(&deps, krate);
        for f in forbidden {
            if all.contains(*f) {
                bad.push(format!("{krate} depends on {f}"));
            }
        }
    }
    for (krate, d) in &deps {
        if d.contains("sqlx") && !["schema", "system-tests"].contains(&krate.as_str()) {
            bad.push(format!("{krate} depends on sqlx: only schema may"));
        }
        if d.contains("clap") && krate != "hfarm" {
            bad.push(format!("{krate} depends on clap: only the command line may"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A module's path in its crate from its file: `src/lib.rs` is the root
/// (`[]`), `src/a.rs` and `src/a/mod.rs` are `[a]`, `src/a/b.rs` is `[a, b]`.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None; // binaries are roots of their own
    }
    let last = parts.pop()?.trim_end_matches(".rs").to_string();
    if !matches!(last.as_str(), "lib" | "main" | "mod") {
        parts.push(last);
    }
    Some(parts)
}

/// The module paths a line names: `crate::a::b::C`, `crate::{a, b::c}` and
/// `super::x` (relative to `here`), each as written (truncated later to the
/// longest module that exists).
fn named_paths(line: &str, here: &[String]) -> Vec<Vec<String>> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let path_at = |s: &str| -> Vec<String> {
        let mut out = vec![];
        let mut rest = s;
        loop {
            let id = ident(rest);
            if id.is_empty() {
                break;
            }
            rest = &rest[id.len()..];
            out.push(id);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        out
    };
    let mut found = vec![];
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices("crate::") {
        // `hfarm_crate::` or `my_crate::` are other names.
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
            continue;
        }
        let rest = &line[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            found.extend(inner.split(',').map(|item| path_at(item.trim())).filter(|p| !p.is_empty()));
        } else {
            found.push(path_at(rest));
        }
    }
    for (i, _) in line.match_indices("super::") {
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':') {
            continue; // the second `super::` of `super::super::`
        }
        let mut base: Vec<String> = here.to_vec();
        let mut rest = &line[i..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            for item in inner.split(',') {
                let mut p = base.clone();
                p.extend(path_at(item.trim()));
                found.push(p);
            }
        } else {
            base.extend(path_at(rest));
            found.push(base);
        }
    }
    found
}

/// Cycles between sibling modules of each crate: module A names sibling B
/// (or something inside it) and B names A. A parent and its children are not
/// siblings (`mod child;` one way, `super::` the other, is how Rust nests).
fn module_cycles() -> BTreeSet<String> {
    let mut cycles = BTreeSet::new();
    for krate in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let src = krate.path().join("src");
        let mut files = vec![];
        rust_files(&src, &mut files);
        let modules: BTreeSet<Vec<String>> = files.iter().filter_map(|f| module_path(&src, f)).collect();
        let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
        for f in &files {
            let Some(here) = module_path(&src, f) else { continue };
            let text = std::fs::read_to_string(f).unwrap();
            for line in text.lines() {
                let code = line.trim_start();
                if code.starts_with("#[cfg(test)]") {
                    break; // a file's tests come last and name what they test
                }
                if code.starts_with("//") {
                    continue;
                }
                for mut target in named_paths(code, &here) {
                    while !target.is_empty() && !modules.contains(&target) {
                        target.pop();
                    }
                    let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
                    if common == here.len() || common == target.len() {
                        continue; // itself, an ancestor or a descendant
                    }
                    edges.insert((here[..=common].to_vec(), target[..=common].to_vec()));
                }
            }
        }
        let name = krate.file_name().to_string_lossy().into_owned();
        for (a, b) in &edges {
            if a < b && edges.contains(&(b.clone(), a.clone())) {
                cycles.insert(format!("{name}: {} <-> {}", a.join("::"), b.join("::")));
            }
        }
    }
    cycles
}

/// Module cycles that exist today, each to be undone (issue 26): none since
/// the jobs and worker crates were untangled; a new one fails the test.
const KNOWN_MODULE_CYCLES: &[&str] = &[];

#[test]
fn no_new_cycles_between_sibling_modules() {
    let found = module_cycles();
    let known: BTreeSet<String> = KNOWN_MODULE_CYCLES.iter().map(|s| s.to_string()).collect();
    let new: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "new module cycles (a module names a sibling that names it back; move what both need into one of them \
         or a third module): {new:#?}\nknown cycles now gone (take them off KNOWN_MODULE_CYCLES): {gone:#?}"
    );
}

/// The detector sees a cycle where there is one, and none between a parent
/// and its child.
#[test]
fn the_cycle_detector_sees_cycles() {
    let here = vec!["grid".to_string()];
    assert_eq!(named_paths("use crate::{expand::Expand, spec};", &here), vec![vec!["expand", "Expand"], vec!["spec"]]);
    assert_eq!(
        named_paths("let x = super::spec::JobSpec::new();", &["a".into(), "b".into()]),
        vec![vec!["a", "spec", "JobSpec", "new"]]
    );
    assert_eq!(named_paths("use my_crate::x; use hfarm_crate::y;", &here), Vec::<Vec<String>>::new());
    assert_eq!(named_paths("super::super::x::Y", &["a".into(), "b".into(), "c".into()]), vec![vec!["a", "x", "Y"]]);
}

/// The files of the crates' sources that use `unsafe` (a lint attribute or a
/// comment aside).
fn files_with_unsafe() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for krate in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let mut files = vec![];
        rust_files(&krate.path().join("src"), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let uses = text.lines().any(|l| {
                let code = l.trim_start();
                !code.starts_with("//")
                    && !code.starts_with("#![")
                    && !code.starts_with("#[")
                    && code.contains("unsafe ")
            });
            if uses {
                let rel = f.strip_prefix(root().join("crates")).unwrap();
                out.insert(rel.to_string_lossy().into_owned());
            }
        }
    }
    out
}

/// ARCHITECTURE.md lists every file that uses `unsafe`, and nothing else.
#[test]
fn the_unsafe_list_names_every_file_that_uses_unsafe() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let start = map.find("- `unsafe` is rare and commented").expect("ARCHITECTURE.md's unsafe bullet");
    let mut lines = map[start..].lines();
    let first = lines.next().unwrap_or_default();
    let rest = lines.take_while(|l| !l.trim().is_empty() && !l.trim_start().starts_with("- "));
    let bullet: String = std::iter::once(first).chain(rest).collect::<Vec<_>>().join(" ");
    let listed: BTreeSet<String> =
        bullet.split('`').filter(|w| w.ends_with(".rs") && w.contains("/src/")).map(|w| w.to_string()).collect();
    let used = files_with_unsafe();
    assert!(!used.is_empty(), "the scan found no unsafe at all: it is broken");
    assert_eq!(listed, used, "ARCHITECTURE.md's unsafe bullet (left) vs the files that use unsafe (right)");
}

/// The job kinds' names that appear quoted on a line of code: `"plan"` (a
/// Rust literal, JSON in one too) or `'plan'` (SQL in a Rust string); none
/// on a comment line, and none where the name is part of a longer word.
fn kind_literals<'a>(line: &str, names: &[&'a str]) -> Vec<&'a str> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return vec![];
    }
    names.iter().copied().filter(|n| code.contains(&format!("\"{n}\"")) || code.contains(&format!("'{n}'"))).collect()
}

/// The experiment kinds' modules and the prefix of their job kinds' names: a
/// file named after one (`worker/src/kinds/likely.rs`) is its kinds' own.
const EXPERIMENT_KIND_MODULES: [(&str, &str); 2] = [("likely", "puzzle_"), ("graphlearn", "graph_")];

/// Literals that are a kind's name by accident, as (file under `crates/`,
/// the line's code): another thing spelled alike.
const KIND_WORD_CLASHES: &[(&str, &str)] = &[
    // An artifact's kind (a generate job's optimal plan), not a job kind.
    ("schema/src/export.rs", "pub const PLAN: &'static str = \"plan\";"),
];

/// A job kind is named once, by `jobs::JobKind` (issue 26): `schema` and
/// `worker` say `JobKind::X` (in SQL, a bound `JobKind::X.as_str()`), never
/// the name in quotes, except in the kind's own module (`kinds/plan.rs`;
/// `kinds/likely.rs` for `puzzle_*`). Tests, which come last in a file, may.
#[test]
fn job_kind_names_are_spelled_only_by_their_own_module() {
    let names: Vec<&str> = jobs::JobKind::ALL.iter().map(|k| k.as_str()).collect();
    let crates = root().join("crates");
    let mut found = vec![];
    for krate in ["schema", "worker"] {
        let mut files = vec![];
        rust_files(&crates.join(krate).join("src"), &mut files);
        assert!(!files.is_empty(), "no sources under crates/{krate}/src");
        for f in files {
            let rel = f.strip_prefix(&crates).unwrap().to_string_lossy().into_owned();
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            let owns = |name: &str| {
                name == stem || EXPERIMENT_KIND_MODULES.iter().any(|(m, prefix)| stem == *m && name.starts_with(prefix))
            };
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("#[cfg(test)]") {
                    break;
                }
                if KIND_WORD_CLASHES.contains(&(rel.as_str(), line.trim())) {
                    continue;
                }
                for name in kind_literals(line, &names).into_iter().filter(|n| !owns(n)) {
                    found.push(format!("{rel}:{}: {name:?}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a job kind's name outside its own module (say `JobKind::X`, or bind `JobKind::X.as_str()` in SQL):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_kind_name_gate_sees_kind_names() {
    let names = ["plan", "draw", "train"];
    assert_eq!(kind_literals(r#"            Some("train") => {"#, &names), ["train"]);
    assert_eq!(kind_literals("         WHEN d.kind = 'draw' THEN ' did not draw'", &names), ["draw"]);
    assert_eq!(kind_literals(r##"    let s = r#"{"kind":"plan","domain":"x"}"#;"##, &names), ["plan"]);
    assert!(kind_literals(r#"    // as "plan" jobs do"#, &names).is_empty());
    assert!(kind_literals(r#"    let s = "a plan"; let t = "trained"; let u = "plans";"#, &names).is_empty());
}

/// Every crate's top-level modules (`src/NAME.rs`, `src/NAME/mod.rs`), by the
/// files on disk.
fn top_level_modules() -> Vec<(String, String)> {
    let mut out = vec![];
    let crates = root().join("crates");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs {
        let src = dir.join("src");
        let Ok(entries) = std::fs::read_dir(&src) else { continue };
        let krate = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut names: Vec<String> = entries
            .filter_map(|e| {
                let p = e.unwrap().path();
                let name = p.file_stem()?.to_string_lossy().to_string();
                let module = if p.is_dir() { p.join("mod.rs").exists() } else { p.extension()? == "rs" };
                (module && !["lib", "main"].contains(&name.as_str())).then_some(name)
            })
            .collect();
        names.sort();
        out.extend(names.into_iter().map(|n| (krate.clone(), n)));
    }
    out
}

/// The map cannot drift by omission: every top-level module of every crate
/// is named in ARCHITECTURE.md (as `name`, `name.rs`, `name/` or in a path).
#[test]
fn architecture_names_every_top_level_module() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let modules = top_level_modules();
    assert!(modules.len() > 100, "only {} modules found: is the walk right?", modules.len());
    // Named as `m`, `m.rs`, `m/`, or in a path: `m::X`, `crate::m`, `a::m::b`.
    let named = |m: &str| {
        [
            format!("`{m}`"),
            format!("`{m}.rs`"),
            format!("`{m}/`"),
            format!("`{m}::"),
            format!("::{m}`"),
            format!("::{m}::"),
        ]
        .iter()
        .any(|f| map.contains(f.as_str()))
    };
    let missing: Vec<String> = modules.iter().filter(|(_, m)| !named(m)).map(|(c, m)| format!("{c}: {m}")).collect();
    assert!(missing.is_empty(), "modules ARCHITECTURE.md does not name (say what each holds): {missing:#?}");
}
