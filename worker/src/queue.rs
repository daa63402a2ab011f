//! The Redis side of dispatch: one list per resource class, under a prefix
//! (so tests and farms can share a server). Redis only carries job keys as
//! hints; PostgreSQL decides who runs what (`schema::lifecycle`).

use redis::aio::ConnectionManager;
use redis::AsyncCommands;

#[derive(Clone)]
pub struct Queue {
    conn: ConnectionManager,
    prefix: String,
}

impl Queue {
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Queue> {
        let client = redis::Client::open(url)?;
        let conn = ConnectionManager::new(client).await?;
        Ok(Queue { conn, prefix: prefix.to_string() })
    }

    fn list(&self, class: &str) -> String {
        format!("{}:queue:{class}", self.prefix)
    }

    /// Announces jobs (oldest first out).
    pub async fn push(&self, class: &str, keys: &[String]) -> redis::RedisResult<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let mut c = self.conn.clone();
        c.lpush::<_, _, ()>(self.list(class), keys).await
    }

    /// Waits up to `timeout_s` for a job key.
    pub async fn pop(&self, class: &str, timeout_s: f64) -> redis::RedisResult<Option<String>> {
        let mut c = self.conn.clone();
        let r: Option<(String, String)> = c.brpop(self.list(class), timeout_s).await?;
        Ok(r.map(|(_, k)| k))
    }

    pub async fn len(&self, class: &str) -> redis::RedisResult<u64> {
        let mut c = self.conn.clone();
        c.llen(self.list(class)).await
    }
}
