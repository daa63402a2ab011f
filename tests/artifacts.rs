//! Pattern databases kept in PostgreSQL: built once by the first worker that
//! needs one, fetched by every other (`worker::pdb_store::DbPdbStore`), and
//! a damaged copy rebuilt and replaced.

use puzzles::pdb::{load_or_build, Provenance};
use schema::testing::TestDatabase;
use worker::pdb_store::DbPdbStore;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdb_is_built_once_and_fetched_by_every_worker() {
    let db = TestDatabase::create().await;
    let rt = tokio::runtime::Handle::current();
    let first = DbPdbStore::new(db.pool.clone(), rt.clone());
    // Another worker: its own pool on the same database.
    let other_pool = schema::connect(&db.url).await.unwrap();
    let second = DbPdbStore::new(other_pool, rt);
    let key = tokio::task::spawn_blocking(move || {
        let d = puzzles::by_name("8-puzzle").unwrap();
        let pattern = [1u8, 2, 3, 4];
        let spec = d.pdb_spec(&pattern).unwrap();
        let (built, how) = load_or_build(&first, &spec, || d.build_pdb(&pattern, 1)).unwrap();
        assert_eq!(how, Provenance::Built);
        let (fetched, how) = load_or_build(&second, &spec, || panic!("a stored PDB is built again")).unwrap();
        assert_eq!(how, Provenance::Loaded);
        assert_eq!(fetched.to_bytes(), built.to_bytes());
        spec.key()
    })
    .await
    .unwrap();

    // Damage the stored copy: the next worker rebuilds it and stores it over.
    sqlx::query("UPDATE artifacts SET bytes = '\\x0102' WHERE key = $1").bind(&key).execute(&db.pool).await.unwrap();
    let store = DbPdbStore::new(db.pool.clone(), tokio::runtime::Handle::current());
    let pool = db.pool.clone();
    tokio::task::spawn_blocking(move || {
        let d = puzzles::by_name("8-puzzle").unwrap();
        let pattern = [1u8, 2, 3, 4];
        let spec = d.pdb_spec(&pattern).unwrap();
        let (_, how) = load_or_build(&store, &spec, || d.build_pdb(&pattern, 1)).unwrap();
        assert!(matches!(how, Provenance::Rebuilt(_)), "{how:?}");
        let (_, how) = load_or_build(&store, &spec, || panic!("the rebuilt copy was not stored")).unwrap();
        assert_eq!(how, Provenance::Loaded);
    })
    .await
    .unwrap();
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM artifacts").fetch_one(&pool).await.unwrap();
    assert_eq!(n, 1);
}
