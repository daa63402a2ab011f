//! The Redis side of dispatch: one list per resource class, under a prefix
//! (so tests and farms can share a server). Redis only carries job keys as
//! hints; PostgreSQL decides who runs what (`schema::lifecycle`).
//!
//! Invariant: this crate knows job keys as opaque strings and resource
//! classes by name; it never depends on the job vocabulary or the database.

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::AsyncCommands;

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
    list: String,
}

impl Popper {
    /// Waits up to `timeout_s` for a job key.
    pub async fn pop(&mut self, timeout_s: f64) -> redis::RedisResult<Option<String>> {
        let r: Option<(String, String)> = self.conn.brpop(&self.list, timeout_s).await?;
        Ok(r.map(|(_, k)| k))
    }
}

impl Queue {
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Queue> {
        let client = redis::Client::open(url)?;
        let conn = ConnectionManager::new(client.clone()).await?;
        Ok(Queue { client, conn, prefix: prefix.to_string() })
    }

    /// A dedicated connection for popping from `class`'s queue.
    pub async fn popper(&self, class: &str) -> redis::RedisResult<Popper> {
        let config = ConnectionManagerConfig::new().set_response_timeout(None);
        let conn = ConnectionManager::new_with_config(self.client.clone(), config).await?;
        Ok(Popper { conn, list: self.list(class) })
    }

    fn list(&self, class: &str) -> String {
        list_key(&self.prefix, class)
    }

    /// Announces jobs (oldest first out).
    pub async fn push(&self, class: &str, keys: &[String]) -> redis::RedisResult<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let mut c = self.conn.clone();
        c.lpush::<_, _, ()>(self.list(class), keys).await
    }

    pub async fn len(&self, class: &str) -> redis::RedisResult<u64> {
        let mut c = self.conn.clone();
        c.llen(self.list(class)).await
    }
}

/// The Redis list that holds `class`'s job keys under `prefix`
/// (`hfarm:queue:cpu`): what autoscalers watch.
pub fn list_key(prefix: &str, class: &str) -> String {
    format!("{prefix}:queue:{class}")
}
