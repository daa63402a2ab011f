//! Heuristic learning on tch (the IJCAI'24 paper's science): models of h* as
//! a Gaussian or a truncated Gaussian bounded below by an admissible
//! heuristic; linear, NLM and STRIPS-HGN networks; training with resumable
//! checkpoints; test metrics; and trained models as planner heuristics.
//!
//! Like the planner, this crate knows nothing of Redis or PostgreSQL: the
//! worker hands it labelled data and stores what it returns.
//!
//! Map: [`distribution`] (N and TN, numerically stable) · [`encode`] (states
//! to tensors) · [`models`] (networks) · [`predictor`] (outputs to
//! distributions, weights to bytes) · [`prepare`] (labelled data to samples)
//! · [`train`] · [`optim`] (AdamW) · [`evaluate`] · [`heuristic`].

pub mod bench;
pub mod config;
pub mod data;
pub mod distribution;
pub mod encode;
pub mod evaluate;
pub mod heuristic;
pub mod models;
pub mod optim;
pub mod predictor;
pub mod prepare;
pub mod shape;
pub mod train;

pub use config::{Family, LowerBound, ModelConfig, ModelKind, ResidualBase, SigmaMode, TrainConfig};
pub use data::{Dataset, LabelledInstance, Sample};
pub use heuristic::{many, LearnedHeuristic, SearchMode};
pub use predictor::Predictor;
pub use prepare::Axes;

#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// Bad or inconsistent input (instances, labels, stored weights).
    #[error("{0}")]
    Input(String),
    #[error("training diverged at step {step}: loss {loss}")]
    Diverged { step: u64, loss: f64 },
    /// The observer (e.g. the database) refused a report.
    #[error("{0}")]
    Observer(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// Loads libtorch's CUDA backend if this machine can: the binary links only
/// libtorch_cpu (the linker drops libtorch_cuda, whose symbols nothing
/// names), so the CUDA backend registers itself only once its library is
/// loaded. It is found beside libtorch_cpu (the binary's runpath) or on
/// LD_LIBRARY_PATH; where it or its CUDA libraries are missing (CPU-only
/// setups), nothing happens and training runs on CPU.
pub fn load_cuda_backend() -> bool {
    static LOADED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LOADED.get_or_init(|| {
        let name = c"libtorch_cuda.so";
        // SAFETY: dlopen with a valid C string; the handle is kept for the
        // life of the process (libtorch's backends are never unloaded).
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        !handle.is_null() && tch::Cuda::is_available()
    })
}

/// Applies `HFARM_TORCH_THREADS` (libtorch's CPU threads in this process),
/// if set; an unparsable value is refused.
pub fn apply_thread_cap() -> Result<(), LearnError> {
    if let Ok(n) = std::env::var("HFARM_TORCH_THREADS") {
        let n: i32 = n
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| LearnError::Input(format!("HFARM_TORCH_THREADS={n}: expected a positive integer")))?;
        tch::set_num_threads(n);
    }
    Ok(())
}

/// libtorch's CPU threads for each of `slots` concurrent trainings on this
/// machine: its cores shared out, at least one. libtorch's default is every
/// core for every training, so a worker with two slots on two cores ran four
/// OpenMP threads whose spin-waits starve each other: one NLM step took 3.3 s
/// instead of 0.39 s with a thread each (`hfarm bench nlm --objects 9 --batch
/// 64`, 2 cores at load 10).
pub fn threads_per_slot(slots: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / slots.max(1)).max(1)
}

/// The device a job should use: CUDA when available unless
/// `HFARM_DEVICE=cpu`; `HFARM_DEVICE=cuda` insists on it.
///
/// `HFARM_TORCH_THREADS=N` caps libtorch's CPU threads (per process; `hfarm
/// worker` sets cores / slots where it is unset: [`threads_per_slot`]).
pub fn device() -> Result<tch::Device, LearnError> {
    apply_thread_cap()?;
    if std::env::var("HFARM_DEVICE").as_deref() != Ok("cpu") {
        load_cuda_backend();
    }
    match std::env::var("HFARM_DEVICE").ok().as_deref() {
        Some("cpu") => Ok(tch::Device::Cpu),
        Some("cuda") if tch::Cuda::is_available() => Ok(tch::Device::Cuda(0)),
        Some("cuda") => Err(LearnError::Input("HFARM_DEVICE=cuda but libtorch sees no CUDA device".into())),
        Some(other) if !other.is_empty() => {
            Err(LearnError::Input(format!("HFARM_DEVICE={other}: expected cpu or cuda")))
        }
        _ => Ok(tch::Device::cuda_if_available()),
    }
}
