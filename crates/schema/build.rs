//! `sqlx::migrate!` embeds `migrations/` at compile time but does not tell
//! cargo to watch the folder: without this, a migration added to a built tree
//! is missing from the next incremental build (and from its tests).
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
