//! Pattern databases kept in PostgreSQL (`schema::artifacts`), so that a PDB
//! is built once for the whole farm and every worker fetches it instead of
//! rebuilding it per job: `puzzles::pdb::load_or_build` with a [`DbPdbStore`].

use puzzles::pdb::PdbStore;
use puzzles::PuzzleError;
use schema::PgPool;

/// A [`PdbStore`] over the farm's database. Its calls block on the async
/// pool: use it from a blocking thread (a job's computation), never from
/// an async task.
#[derive(Clone)]
pub struct DbPdbStore {
    pool: PgPool,
    rt: tokio::runtime::Handle,
}

impl DbPdbStore {
    /// A store using `pool` through the runtime `rt` (`Handle::current()`
    /// where the job starts).
    pub fn new(pool: PgPool, rt: tokio::runtime::Handle) -> DbPdbStore {
        DbPdbStore { pool, rt }
    }
}

fn db_err(key: &str, e: schema::DbError) -> PuzzleError {
    PuzzleError::Io(format!("pattern database {key} in PostgreSQL: {e}"))
}

impl PdbStore for DbPdbStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, PuzzleError> {
        self.rt.block_on(schema::artifacts::get(&self.pool, key)).map_err(|e| db_err(key, e))
    }

    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), PuzzleError> {
        self.rt.block_on(schema::artifacts::put(&self.pool, key, "pdb", bytes)).map_err(|e| db_err(key, e))
    }
}
