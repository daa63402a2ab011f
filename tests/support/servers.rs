//! Redis for the tests. Tests that share the default server touch only
//! keys under their own prefix; a test that must flush or restart Redis
//! starts a private `redis-server` on a free port and flushes that one.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The shared Redis (`REDIS_URL`, else the local server).
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string())
}

/// A `redis-server` of our own, stopped when dropped. It keeps nothing on disk.
pub struct PrivateRedis {
    child: Child,
    pub port: u16,
    pub url: String,
}

impl PrivateRedis {
    pub fn start() -> PrivateRedis {
        // Ask the OS for a free port, then let redis-server take it.
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("tests need redis-server on the PATH (run ./scripts/services)");
        let url = format!("redis://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start on port {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        PrivateRedis { child, port, url }
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
