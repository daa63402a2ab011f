//! What every handler of the status server shares.

use schema::PgPool;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    /// Bearer token for mutations; None disables them.
    pub token: Option<String>,
    /// For queue depths in `/metrics` (None: not reported).
    pub queue: Option<queue::Queue>,
}
