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
    let never: [(&str, &[&str]); 11] = [
        // The science crates: plain functions, no services, no async.
        ("planner", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs"]),
        ("learner", &["sqlx", "redis", "tokio", "axum", "clap", "schema", "queue", "jobs"]),
        // The permutation puzzles: a science crate beside the planner.
        ("puzzles", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "planner"]),
        // Trunda's features: graphs of PDDL states, nothing else.
        ("subgraphs", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "learner"]),
        // Trunda's learned heuristic: hand-written networks over the subgraph features.
        ("graphlearn", &["sqlx", "redis", "tokio", "axum", "clap", "tch", "schema", "queue", "jobs", "learner"]),
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
