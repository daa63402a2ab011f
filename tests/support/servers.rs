//! Servers for the tests. Tests that share the default Redis touch only
//! keys under their own prefix (and the default PostgreSQL only their own
//! database); a test that must flush or restart a server starts a private
//! one on a free port (`redis-server`, an `initdb` cluster) and restarts that.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The shared Redis (`REDIS_URL`, else the local server).
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string())
}

/// The Redis key prefix of a test on the shared Redis, `hfarm-test-{database}`
/// (named after the test's own database, so that it is unique and says when
/// it was made): every key under it is deleted when this is dropped, when
/// the test passes or fails. `scripts/test` sweeps those of killed tests.
pub struct TestKeys {
    prefix: String,
    url: String,
}

impl TestKeys {
    /// The prefix of the test whose database is `database`, on the shared Redis.
    pub fn new(database: &str) -> TestKeys {
        TestKeys::on(&redis_url(), database)
    }

    /// The same on the Redis at `url`.
    pub fn on(url: &str, database: &str) -> TestKeys {
        assert!(database.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'), "a plain database name: {database}");
        TestKeys { prefix: format!("hfarm-test-{database}"), url: url.to_string() }
    }

    /// Keys now under the prefix (`redis-cli --scan`).
    pub fn keys(&self) -> Vec<String> {
        let out = Command::new("redis-cli")
            .args(["-u", &self.url, "--scan", "--pattern", &format!("{}:*", self.prefix)])
            .output()
            .expect("tests need redis-cli on the PATH (run ./scripts/services)");
        assert!(out.status.success(), "redis-cli --scan: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.is_empty()).map(String::from).collect()
    }
}

impl std::ops::Deref for TestKeys {
    type Target = str;
    fn deref(&self) -> &str {
        &self.prefix
    }
}

impl Drop for TestKeys {
    fn drop(&mut self) {
        // No panic here: a failing test is unwinding through it already.
        let Ok(out) = Command::new("redis-cli")
            .args(["-u", &self.url, "--scan", "--pattern", &format!("{}:*", self.prefix)])
            .output()
        else {
            return;
        };
        let keys: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
        for chunk in keys.chunks(500) {
            let _ = Command::new("redis-cli").args(["-u", &self.url, "DEL"]).args(chunk).stdout(Stdio::null()).status();
        }
    }
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
        PrivateRedis { child: redis_server(port), port, url: format!("redis://127.0.0.1:{port}") }
    }

    /// Kills the server and starts a fresh one on the same port: everything
    /// it held is gone, as after a crash of a Redis that keeps nothing on disk.
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = redis_server(self.port);
    }

    /// FLUSHALL on this server (ours alone).
    pub fn flush(&self) {
        let out = Command::new("redis-cli").args(["-p", &self.port.to_string(), "FLUSHALL"]).output();
        assert!(out.is_ok_and(|o| o.status.success()), "redis-cli FLUSHALL on port {}", self.port);
    }
}

fn redis_server(port: u16) -> Child {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tests need redis-server on the PATH (run ./scripts/services)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A PostgreSQL cluster of our own (`initdb` in a temporary directory, a
/// free port), which a test may crash and restart. Stopped and removed when
/// dropped. As root, it runs as the `postgres` user, since PostgreSQL
/// refuses to run as root.
pub struct PrivatePostgres {
    dir: std::path::PathBuf,
    bin: std::path::PathBuf,
    child: Option<Child>,
    pub port: u16,
}

impl PrivatePostgres {
    pub fn start() -> PrivatePostgres {
        let bin = postgres_bindir();
        let dir =
            std::env::temp_dir().join(format!("hfarm-pg-{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("a directory for the cluster");
        let owner = run_as_postgres();
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).expect("giving the cluster's directory to postgres");
        }
        let mut initdb = Command::new(bin.join("initdb"));
        initdb.args(["-D"]).arg(dir.join("data")).args(["-U", "postgres", "--auth", "trust", "--no-sync"]);
        let out = as_owner(&mut initdb, owner).stdout(Stdio::null()).output().expect("initdb (run ./scripts/services)");
        assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let mut pg = PrivatePostgres { dir, bin, child: None, port };
        pg.run();
        pg
    }

    /// `postgres://postgres@127.0.0.1:{port}/{database}`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    fn run(&mut self) {
        let mut cmd = Command::new(self.bin.join("postgres"));
        cmd.arg("-D").arg(self.dir.join("data")).args([
            "-p",
            &self.port.to_string(),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
        ]);
        cmd.arg(format!("unix_socket_directories={}", self.dir.display()));
        cmd.args(["-c", "fsync=off", "-c", "max_connections=400", "-c", "shared_buffers=32MB"]);
        let child = as_owner(&mut cmd, run_as_postgres())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting postgres");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "postgres did not start on port {}", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server at once, as a crash would (SIGQUIT: immediate
    /// shutdown, no checkpoint; the next start recovers from the WAL).
    pub fn crash(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SAFETY: kill sends a signal to our own child's pid.
            unsafe { libc::kill(c.id() as i32, libc::SIGQUIT) };
            let _ = c.wait();
        }
    }

    /// Crashes the server, keeps it down for `down`, and starts it again on
    /// the same port and data. The pause matters: a server back within a
    /// few milliseconds can go unseen, since a pool that finds its idle
    /// connections broken quietly opens new ones.
    pub fn restart(&mut self, down: Duration) {
        self.crash();
        std::thread::sleep(down);
        self.run();
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        self.crash();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where `initdb` and `postgres` are: on the PATH, else Debian's
/// `/usr/lib/postgresql/<newest>/bin`.
fn postgres_bindir() -> std::path::PathBuf {
    if let Ok(path) = std::env::var("PATH") {
        for d in std::env::split_paths(&path) {
            if d.join("initdb").exists() && d.join("postgres").exists() {
                return d;
            }
        }
    }
    let mut versions: Vec<(u32, std::path::PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, b): &(u32, std::path::PathBuf)| b.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop().map(|(_, b)| b).expect("tests need PostgreSQL's server binaries (initdb): run ./scripts/services")
}

/// The `postgres` user's ids when we are root (PostgreSQL will not run as root).
fn run_as_postgres() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let name = std::ffi::CString::new("postgres").expect("no NUL");
    // SAFETY: getpwnam reads a NUL-terminated name and returns a pointer to
    // static storage (or null), read at once in this single call site.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    assert!(!pw.is_null(), "running as root, and there is no `postgres` user to run PostgreSQL as");
    // SAFETY: pw is non-null and points to a valid passwd record.
    Some(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

fn as_owner(cmd: &mut Command, owner: Option<(u32, u32)>) -> &mut Command {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = owner {
        cmd.uid(uid).gid(gid);
    }
    cmd
}
