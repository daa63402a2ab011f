//! Job states, as PostgreSQL's `job_status` enum and as counts.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where a job is in its life (ARCHITECTURE.md, "Dispatch design").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, sqlx::Type)]
#[sqlx(type_name = "job_status", rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Pending,
    Queued,
    Running,
    Succeeded,
    Failed,
    Dead,
    Cancelled,
    /// Not run: an input it cannot do without has no result (a slot left
    /// without an instance, or a skipped job).
    Skipped,
}

impl JobStatus {
    pub const ALL: [JobStatus; 8] = [
        JobStatus::Pending,
        JobStatus::Queued,
        JobStatus::Running,
        JobStatus::Succeeded,
        JobStatus::Failed,
        JobStatus::Dead,
        JobStatus::Cancelled,
        JobStatus::Skipped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Succeeded => "succeeded",
            JobStatus::Failed => "failed",
            JobStatus::Dead => "dead",
            JobStatus::Cancelled => "cancelled",
            JobStatus::Skipped => "skipped",
        }
    }

    /// Nothing more will happen to the job unless someone retries it.
    pub fn is_finished(self) -> bool {
        matches!(self, JobStatus::Succeeded | JobStatus::Dead | JobStatus::Cancelled | JobStatus::Skipped)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for JobStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        JobStatus::ALL.into_iter().find(|x| x.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = JobStatus::ALL.iter().map(|x| x.as_str()).collect();
            format!("unknown job status `{s}`; expected one of {}", names.join(", "))
        })
    }
}

/// Number of jobs in each state: every state present, 0 if none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StatusCounts(pub BTreeMap<JobStatus, i64>);

impl Default for StatusCounts {
    fn default() -> Self {
        StatusCounts(JobStatus::ALL.into_iter().map(|s| (s, 0)).collect())
    }
}

impl std::ops::Index<JobStatus> for StatusCounts {
    type Output = i64;
    fn index(&self, s: JobStatus) -> &i64 {
        self.0.get(&s).unwrap_or(&0)
    }
}

impl StatusCounts {
    pub fn add(&mut self, s: JobStatus, n: i64) {
        *self.0.entry(s).or_insert(0) += n;
    }

    pub fn total(&self) -> i64 {
        self.0.values().sum()
    }

    /// Jobs that have ended (succeeded, dead, cancelled or skipped).
    pub fn finished(&self) -> i64 {
        self.0.iter().filter(|(s, _)| s.is_finished()).map(|(_, n)| n).sum()
    }

    /// Jobs that still have something to do.
    pub fn active(&self) -> i64 {
        self.total() - self.finished()
    }

    pub fn iter(&self) -> impl Iterator<Item = (JobStatus, i64)> + '_ {
        self.0.iter().map(|(s, n)| (*s, *n))
    }
}
