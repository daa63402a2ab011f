//! Where a job's heavy computation runs: in a child process under real
//! memory and time limits (the default of `hfarm worker`), or on this
//! process's blocking threads (tests, `--isolation none`).
//!
//! Why children: the planner counts the memory of its own search, but not
//! everything a job allocates (a grounding that explodes, a heuristic's
//! tables, libtorch), and a search that never checks its clock cannot stop
//! itself. A child process gets a kernel limit on its data segment
//! (`RLIMIT_DATA`, which counts heap and anonymous mappings but not the
//! shared libraries' code) and a wall-clock deadline enforced by the parent
//! killing it. A child that dies for any reason ends that job's try, not the
//! worker: the parent records `memory_limit` or `time_limit` (or the death
//! as the job's error) and starts a fresh child for the next task.
//!
//! Children live as long as they are healthy and serve one task at a time
//! over pipes: a JSON line in ([`Request`]), a JSON line out ([`Response`]).
//! Their stderr is forwarded, line by line, to the worker's log inside the
//! span of the task it serves (so into that job's own log, `crate::joblog`),
//! and its last lines during a task go with that task's error when the task
//! fails or the child dies (so they reach the job's `last_error`, `hfarm job`
//! and the dashboard, not only a worker's log that is gone when its pod is). Starting
//! one costs a process and the dynamic loading of libtorch, so they are reused.
//!
//! Invariant: a [`Task`] is self-contained (no database, no Redis): what a
//! job loads it passes in, what it stores it takes back.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jobs::grid::{Instances, PlanLimits, Planning};
use jobs::split::{SolveLimits, Split};
use planner::generate::Params;
use planner::heuristics::Definitions;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The CPU-heavy part of a job, with everything it needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum Task {
    /// One try of a generate job: generate with the try's derived seed and
    /// solve optimally (`kinds::generate`).
    SolveTry {
        domain: String,
        split: Split,
        params: Params,
        seed: u64,
        attempt: u32,
        #[serde(default)]
        instances: Instances,
        limits: SolveLimits,
    },
    /// Label every state of an optimal plan (`kinds::label`).
    Label {
        domain_pddl: String,
        problem_pddl: String,
        plan: Vec<String>,
        #[serde(default)]
        features: Definitions,
    },
    /// Greedy planning with a classical heuristic (`kinds::plan`).
    PlanClassical {
        domain_pddl: String,
        problem_pddl: String,
        heuristic: String,
        limits: PlanLimits,
        #[serde(default)]
        planning: Planning,
    },
    /// Greedy planning with a trained model (`kinds::plan`).
    PlanLearned {
        config: learner::ModelConfig,
        weights: Vec<u8>,
        domain_pddl: String,
        problem_pddl: String,
        clip: Option<learner::LowerBound>,
        limits: PlanLimits,
        #[serde(default)]
        planning: Planning,
    },
    /// Exercises the isolation itself: allocate and touch `allocate_mib`,
    /// sleep, maybe panic (the isolation tests; a worker's self-check).
    Probe { allocate_mib: u64, sleep_s: f64, panic: bool },
}

impl Task {
    /// Runs the task here and now, as JSON (what a child sends back).
    pub fn run_here(self) -> Result<serde_json::Value, String> {
        use crate::compute;
        match self {
            Task::SolveTry { domain, split, params, seed, attempt, instances, limits } => {
                json(compute::solve_try(&domain, split, &params, seed, attempt, instances, &limits))
            }
            Task::Label { domain_pddl, problem_pddl, plan, features } => {
                json(planner::label::label_with(&domain_pddl, &problem_pddl, &plan, features))
            }
            Task::PlanClassical { domain_pddl, problem_pddl, heuristic, limits, planning } => {
                json(compute::plan_classical(&domain_pddl, &problem_pddl, &heuristic, &limits, planning))
            }
            Task::PlanLearned { config, weights, domain_pddl, problem_pddl, clip, limits, planning } => {
                json(compute::plan_learned(config, &weights, &domain_pddl, &problem_pddl, clip, &limits, planning))
            }
            Task::Probe { allocate_mib, sleep_s, panic } => {
                let mut kept: Vec<Vec<u8>> = vec![];
                for _ in 0..allocate_mib {
                    // Touched, so that the pages are really ours.
                    kept.push(vec![1u8; 1 << 20]);
                }
                std::thread::sleep(Duration::from_secs_f64(sleep_s));
                if panic {
                    panic!("probe asked to panic");
                }
                json(Ok(kept.len()))
            }
        }
    }
}

/// Why a task could not be run or answered (a job's failure: the job
/// kinds turn it into `job::JobError::Failed`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct IsolationError(pub String);

fn failed(e: impl std::fmt::Display) -> IsolationError {
    IsolationError(e.to_string())
}

/// What a caught panic says.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

fn json<T: Serialize>(v: Result<T, String>) -> Result<serde_json::Value, String> {
    v.and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string()))
}

/// Limits a child enforces on one task; `None` means none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Memory the task may add to the child's data segment.
    pub memory_mib: Option<u64>,
    /// Wall-clock seconds before the parent kills the child.
    pub time_s: Option<f64>,
}

impl Bounds {
    /// A hard stop behind a limit the task checks itself: its own check
    /// should normally come first and report cleanly, so the kill waits a
    /// little longer (grounding and setup are outside the search's clock).
    pub fn behind(memory_mib: Option<u64>, time_s: Option<f64>) -> Bounds {
        Bounds { memory_mib, time_s: time_s.map(|t| t * 1.1 + 2.0) }
    }
}

/// How an isolated task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished<T> {
    Done(T),
    /// Stopped by the kernel's limit on its memory.
    MemoryLimit,
    /// Killed at its deadline.
    TimeLimit,
}

impl<T> Finished<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Finished<U> {
        match self {
            Finished::Done(v) => Finished::Done(f(v)),
            Finished::MemoryLimit => Finished::MemoryLimit,
            Finished::TimeLimit => Finished::TimeLimit,
        }
    }
}

/// One line from parent to child.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub task: Task,
    pub memory_mib: Option<u64>,
}

/// One line from child to parent.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    Ok(serde_json::Value),
    Err(String),
}

/// Where tasks run; cheap to clone.
#[derive(Debug, Clone)]
pub enum Isolation {
    InProcess,
    Children(Arc<Children>),
}

impl Isolation {
    /// Child processes started as `program args...` (`hfarm job-process`).
    pub fn children(program: impl Into<PathBuf>, args: &[&str]) -> Isolation {
        Isolation::Children(Arc::new(Children {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            idle: Mutex::new(vec![]),
        }))
    }

    /// Runs `task` within `bounds` and decodes its result.
    pub async fn run<T: serde::de::DeserializeOwned>(
        &self,
        task: Task,
        bounds: Bounds,
    ) -> Result<Finished<T>, IsolationError> {
        let value = match self {
            Isolation::InProcess => {
                // The planner's own accounting is the only limit here.
                let v = tokio::task::spawn_blocking(move || task.run_here())
                    .await
                    .map_err(|e| failed(format!("job panicked: {e}")))?;
                Finished::Done(v.map_err(IsolationError)?)
            }
            Isolation::Children(c) => c.run(task, bounds).await?,
        };
        Ok(match value {
            Finished::Done(v) => {
                Finished::Done(serde_json::from_value(v).map_err(|e| failed(format!("isolated task's result: {e}")))?)
            }
            Finished::MemoryLimit => Finished::MemoryLimit,
            Finished::TimeLimit => Finished::TimeLimit,
        })
    }
}

/// A pool of idle child processes.
#[derive(Debug)]
pub struct Children {
    program: PathBuf,
    args: Vec<String>,
    idle: Mutex<Vec<Proc>>,
}

/// What a child process's stderr said that matters to us.
const ALLOCATION_FAILED: &str = "memory allocation of";

/// How much of a child's stderr during a task a failed task's error keeps:
/// the last lines, each cut to a length (a panic's message and backtrace
/// head, an allocator's complaint), not a log.
const TAIL_LINES: usize = 12;
const TAIL_LINE_CHARS: usize = 300;

/// The last lines a child wrote to stderr since its current task began.
#[derive(Debug, Default)]
struct Tail(Mutex<VecDeque<String>>);

impl Tail {
    fn push(&self, line: &str) {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if t.len() == TAIL_LINES {
            t.pop_front();
        }
        let cut: String = line.chars().take(TAIL_LINE_CHARS).collect();
        t.push_back(if cut.len() < line.len() { format!("{cut}...") } else { cut });
    }

    fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// `message`, followed by the tail when there is one.
    fn after(&self, message: String) -> String {
        let t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if t.is_empty() {
            return message;
        }
        let lines: Vec<&str> = t.iter().map(String::as_str).collect();
        format!("{message}; its stderr ended:\n{}", lines.join("\n"))
    }
}

#[derive(Debug)]
struct Proc {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Set when its stderr reported a failed allocation (Rust's message
    /// before it aborts), so that its death is read as `memory_limit`.
    out_of_memory: Arc<AtomicBool>,
    tail: Arc<Tail>,
    /// The span of the task it serves: its stderr lines are logged in it.
    serving: Arc<Mutex<tracing::Span>>,
    stderr: tokio::task::JoinHandle<()>,
}

impl Children {
    fn take(&self) -> Result<Proc, IsolationError> {
        if let Some(p) = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(p);
        }
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A job dropped midway (the worker stopping) takes its child with it.
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("cannot start {}: {e}", self.program.display())))?;
        let pid = child.id().unwrap_or(0);
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            return Err(failed("child process without its pipes"));
        };
        let out_of_memory = Arc::new(AtomicBool::new(false));
        let flag = out_of_memory.clone();
        let tail = Arc::new(Tail::default());
        let kept = tail.clone();
        let serving = Arc::new(Mutex::new(tracing::Span::none()));
        let span = serving.clone();
        let stderr = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains(ALLOCATION_FAILED) {
                    flag.store(true, Ordering::SeqCst);
                }
                kept.push(&line);
                let span = span.lock().unwrap_or_else(|e| e.into_inner()).clone();
                span.in_scope(|| tracing::info!("job process {pid}: {line}"));
            }
        });
        Ok(Proc { child, stdin, stdout: BufReader::new(stdout), out_of_memory, tail, serving, stderr })
    }

    async fn run(&self, task: Task, bounds: Bounds) -> Result<Finished<serde_json::Value>, IsolationError> {
        let mut p = self.take()?;
        p.tail.clear();
        *p.serving.lock().unwrap_or_else(|e| e.into_inner()) = tracing::Span::current();
        let mut line = serde_json::to_string(&Request { task, memory_mib: bounds.memory_mib }).map_err(failed)?;
        line.push('\n');
        let exchange = async {
            p.stdin.write_all(line.as_bytes()).await?;
            p.stdin.flush().await?;
            let mut reply = String::new();
            p.stdout.read_line(&mut reply).await?;
            Ok::<_, std::io::Error>(reply)
        };
        let reply = match bounds.time_s {
            Some(t) => match tokio::time::timeout(Duration::from_secs_f64(t), exchange).await {
                Ok(r) => r,
                Err(_) => {
                    let _ = p.child.kill().await;
                    return Ok(Finished::TimeLimit);
                }
            },
            None => exchange.await,
        };
        match reply {
            Ok(reply) if !reply.is_empty() => {
                let response: Response =
                    serde_json::from_str(&reply).map_err(|e| failed(format!("job process answered `{reply}`: {e}")))?;
                let tail = p.tail.clone();
                self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(p);
                match response {
                    Response::Ok(v) => Ok(Finished::Done(v)),
                    Response::Err(e) => Err(IsolationError(tail.after(e))),
                }
            }
            // End of its stdout, or a broken pipe: the child died.
            _ => {
                let status = p.child.wait().await.map_err(failed)?;
                // Its last words may still be in the pipe.
                let _ = tokio::time::timeout(Duration::from_secs(2), &mut p.stderr).await;
                if p.out_of_memory.load(Ordering::SeqCst) {
                    Ok(Finished::MemoryLimit)
                } else {
                    Err(failed(p.tail.after(format!("job process died ({status})"))))
                }
            }
        }
    }
}

/// The child's side (`hfarm job-process`): serve requests from stdin until
/// it closes. A panicking task answers an error; running out of its memory
/// limit aborts the process, which the parent reads as `memory_limit`.
pub fn child_main() -> std::process::ExitCode {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let response = match serde_json::from_str::<Request>(&line) {
            Err(e) => Response::Err(format!("bad request to the job process: {e}")),
            Ok(req) => {
                limit_data(req.memory_mib);
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| req.task.run_here())) {
                    Ok(Ok(v)) => Response::Ok(v),
                    Ok(Err(e)) => Response::Err(e),
                    Err(p) => Response::Err(format!("job panicked: {}", panic_message(&*p))),
                }
            }
        };
        let Ok(mut out) = serde_json::to_string(&response) else { break };
        out.push('\n');
        if stdout.write_all(out.as_bytes()).and_then(|_| stdout.flush()).is_err() {
            break;
        }
    }
    std::process::ExitCode::SUCCESS
}

/// Sets the soft `RLIMIT_DATA` to what the process holds now plus
/// `memory_mib` (unlimited for None): each task gets its own allowance on
/// top of the child's baseline (its code's data, libtorch once loaded).
fn limit_data(memory_mib: Option<u64>) {
    let limit = match memory_mib {
        Some(m) => data_segment_bytes().saturating_add(m.saturating_mul(1 << 20)),
        None => libc::RLIM_INFINITY,
    };
    let rl = libc::rlimit { rlim_cur: limit, rlim_max: libc::RLIM_INFINITY };
    // SAFETY: setrlimit reads the struct we own; RLIMIT_DATA is a constant.
    // The hard limit stays unlimited, so a later task may raise the soft one.
    if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &rl) } != 0 {
        tracing::warn!("cannot set the memory limit: {}", std::io::Error::last_os_error());
    }
}

/// The process's data segment as the kernel counts it for `RLIMIT_DATA`
/// (`VmData` in /proc/self/status).
fn data_segment_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmData:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> Task {
        Task::Label {
            domain_pddl: String::new(),
            problem_pddl: String::new(),
            plan: vec![],
            features: Definitions::default(),
        }
    }

    /// A child that says something on stderr and dies: the job's error
    /// carries its last words, and only the last ones.
    #[tokio::test]
    async fn a_dying_childs_last_stderr_lines_go_with_the_error() {
        let script = "read request; for i in $(seq 1 30); do echo \"line $i\" >&2; done; exit 3";
        let children = Isolation::children("sh", &["-c", script]);
        let e = children.run::<serde_json::Value>(task(), Bounds::default()).await.unwrap_err().to_string();
        assert!(e.contains("job process died (exit status: 3); its stderr ended:\nline 19\n"), "{e}");
        assert!(e.ends_with("line 30") && !e.contains("line 18\n"), "{e}");
    }

    /// A child that answers an error keeps serving; its stderr since the
    /// task began goes with the error, cut to a length.
    #[tokio::test]
    async fn an_error_answer_carries_this_tasks_stderr() {
        let long = "x".repeat(1000);
        let script = format!("while read request; do echo {long} >&2; sleep 0.2; echo '{{\"err\":\"no good\"}}'; done");
        let children = Isolation::children("sh", &["-c", &script]);
        for _ in 0..2 {
            let e = children.run::<serde_json::Value>(task(), Bounds::default()).await.unwrap_err().to_string();
            let expected = format!("no good; its stderr ended:\n{}...", "x".repeat(TAIL_LINE_CHARS));
            assert_eq!(e, expected, "the second task sees only its own line");
        }
    }
}
