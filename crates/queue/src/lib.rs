//! The Redis side of dispatch: one list per lane (a resource class, or jobs
//! that prefer a GPU but run anywhere: `jobs::spec::Lane`), under a prefix
//! (so tests and farms can share a server). Redis only carries job keys as
//! hints; PostgreSQL decides who runs what (`schema::lifecycle`).
//!
//! Invariant: this crate knows job keys as opaque strings and lanes by
//! name; it never depends on the job vocabulary or the database.

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::AsyncCommands;
pub use redis::RedisError;

/// Whether a Redis error says the server was unreachable or went away
/// (refused, dropped, timed out) rather than refusing what was asked.
pub fn is_outage(e: &RedisError) -> bool {
    e.is_io_error() || e.is_connection_refusal() || e.is_connection_dropped() || e.is_timeout()
}

/// Pushes and inspects queues over one shared (multiplexed, reconnecting) connection.
#[derive(Clone)]
pub struct Queue {
    client: redis::Client,
    conn: ConnectionManager,
    prefix: String,
}

/// Pops with a blocking command, so it needs a connection of its own: a
/// blocked command would hold up everything else multiplexed on a shared one,
/// and a response timeout shorter than the block would lose popped keys.
pub struct Popper {
    conn: ConnectionManager,
    prefix: String,
    list: String,
}

impl Popper {
    /// Waits up to `timeout_s` for a job key on the list this popper was made for.
    pub async fn pop(&mut self, timeout_s: f64) -> redis::RedisResult<Option<String>> {
        let r: Option<(String, String)> = self.conn.brpop(&self.list, timeout_s).await?;
        Ok(r.map(|(_, k)| k))
    }

    /// Waits up to `timeout_s` for job keys on any of `lanes`' lists and pops
    /// up to `count` of them, oldest first, from the first list in `lanes`'
    /// order that has any: one round trip for as many keys as a worker has
    /// free slots (BLMPOP, Redis 7). Empty when the time ran out.
    pub async fn pop_many(&mut self, lanes: &[&str], count: usize, timeout_s: f64) -> redis::RedisResult<Vec<String>> {
        if lanes.is_empty() || count == 0 {
            return Ok(vec![]);
        }
        let mut cmd = redis::cmd("BLMPOP");
        cmd.arg(timeout_s).arg(lanes.len());
        for lane in lanes {
            cmd.arg(list_key(&self.prefix, lane));
        }
        cmd.arg("RIGHT").arg("COUNT").arg(count);
        let r: Option<(String, Vec<String>)> = cmd.query_async(&mut self.conn).await?;
        Ok(r.map(|(_, keys)| keys).unwrap_or_default())
    }
}

impl Queue {
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Queue> {
        let client = redis::Client::open(url)?;
        let conn = ConnectionManager::new(client.clone()).await?;
        Ok(Queue { client, conn, prefix: prefix.to_string() })
    }

    /// A dedicated connection for popping: from `lane`'s list with
    /// [`Popper::pop`], from any with [`Popper::pop_many`].
    pub async fn popper(&self, lane: &str) -> redis::RedisResult<Popper> {
        let config = ConnectionManagerConfig::new().set_response_timeout(None);
        let conn = ConnectionManager::new_with_config(self.client.clone(), config).await?;
        Ok(Popper { conn, prefix: self.prefix.clone(), list: self.list(lane) })
    }

    fn list(&self, lane: &str) -> String {
        list_key(&self.prefix, lane)
    }

    /// Announces jobs (oldest first out).
    pub async fn push(&self, lane: &str, keys: &[String]) -> redis::RedisResult<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let mut c = self.conn.clone();
        c.lpush::<_, _, ()>(self.list(lane), keys).await
    }

    pub async fn len(&self, lane: &str) -> redis::RedisResult<u64> {
        let mut c = self.conn.clone();
        c.llen(self.list(lane)).await
    }
}

/// The Redis list that holds `lane`'s job keys under `prefix`
/// (`hfarm:queue:cpu`): what autoscalers watch.
pub fn list_key(prefix: &str, lane: &str) -> String {
    format!("{prefix}:queue:{lane}")
}
