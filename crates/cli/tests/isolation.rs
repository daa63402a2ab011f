//! Jobs' heavy computations in child processes (`worker::isolate`): a task
//! past its memory limit is stopped by the kernel, one past its deadline is
//! killed, one that panics fails alone, and the next task runs as usual.

use jobs::grid::{PlanLimits, TimeLimit};
use worker::isolate::{Bounds, Finished, Isolation, Task};

fn isolation() -> Isolation {
    Isolation::children(env!("CARGO_BIN_EXE_hfarm"), &["job-process"])
}

fn probe(allocate_mib: u64, sleep_s: f64, panic: bool) -> Task {
    Task::Probe { allocate_mib, sleep_s, panic }
}

async fn healthy(iso: &Isolation) {
    let r = iso.run::<u64>(probe(8, 0.0, false), Bounds { memory_mib: Some(64), time_s: Some(30.0) }).await;
    assert_eq!(r.unwrap(), Finished::Done(8), "the next task runs");
}

#[tokio::test]
async fn memory_past_the_limit_is_stopped_by_the_kernel_and_the_next_task_runs() {
    let iso = isolation();
    healthy(&iso).await;
    let r = iso.run::<u64>(probe(512, 0.0, false), Bounds { memory_mib: Some(128), time_s: Some(60.0) }).await;
    assert_eq!(r.unwrap(), Finished::MemoryLimit);
    healthy(&iso).await;
    // Within its limit, the same allocation is fine.
    let r = iso.run::<u64>(probe(256, 0.0, false), Bounds { memory_mib: Some(512), time_s: Some(60.0) }).await;
    assert_eq!(r.unwrap(), Finished::Done(256));
}

#[tokio::test]
async fn a_task_past_its_deadline_is_killed_and_the_next_task_runs() {
    let iso = isolation();
    let start = std::time::Instant::now();
    let r = iso.run::<u64>(probe(0, 60.0, false), Bounds { memory_mib: None, time_s: Some(1.0) }).await;
    assert_eq!(r.unwrap(), Finished::TimeLimit);
    assert!(start.elapsed().as_secs_f64() < 30.0, "killed at its deadline, not at the end of its sleep");
    healthy(&iso).await;
}

#[tokio::test]
async fn a_panicking_task_fails_alone() {
    let iso = isolation();
    let err = iso.run::<u64>(probe(1, 0.0, true), Bounds::default()).await.unwrap_err();
    assert!(err.to_string().contains("job panicked: probe asked to panic"), "{err}");
    healthy(&iso).await;
}

/// A grounding that explodes (5 free parameters over 40 objects: 10^8
/// operators) is outside the search's own memory accounting: only the
/// kernel's limit stops it.
#[tokio::test]
async fn a_planning_task_whose_grounding_explodes_ends_as_memory_limit() {
    let domain = "(define (domain blowup) (:requirements :strips)
        (:predicates (p ?a ?b ?c ?d ?e))
        (:action make :parameters (?a ?b ?c ?d ?e) :precondition (and) :effect (p ?a ?b ?c ?d ?e)))";
    let objects: Vec<String> = (0..40).map(|i| format!("o{i}")).collect();
    let problem = format!(
        "(define (problem big) (:domain blowup) (:objects {}) (:init) (:goal (and (p o1 o2 o3 o4 o5) (p o5 o4 o3 o2 o1))))",
        objects.join(" ")
    );
    let limits = PlanLimits { max_evaluations: 10_000, time_s: TimeLimit(Some(120.0)), memory_mib: 256 };
    let task = Task::PlanClassical {
        domain_pddl: domain.into(),
        problem_pddl: problem,
        heuristic: "ff".into(),
        limits,
        planning: Default::default(),
    };
    let r = isolation().run::<serde_json::Value>(task, Bounds::behind(Some(256), Some(120.0))).await;
    assert_eq!(r.unwrap(), Finished::MemoryLimit);
}
