//! grids/quick.toml (the README's demo) end to end through the real Redis
//! and PostgreSQL on a CPU-only farm (neither worker advertises CUDA, whatever
//! this machine has): every cell of its report tables filled, and no slot
//! idle while a job of a lane it serves is queued.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::spec::Lane;
use jobs::{JobKind, Resource};
use queue::Queue;
use schema::reports::{self as report, Cell, Filter, Report, Table};
use schema::testing::TestDatabase;
use schema::JobStatus;
use worker::run::run_worker_advertising;
use worker::{TrainGroups, WorkerConfig};

/// Per sample: slots with no running job while a job of a lane their
/// worker serves is queued. Slots are `{worker}/{i}` for i < slots.
async fn idle_with_work(db: &TestDatabase, workers: &[(&str, Resource, usize)]) -> Vec<String> {
    let busy: Vec<(String,)> =
        sqlx::query_as("SELECT DISTINCT worker FROM jobs WHERE status = 'running'").fetch_all(&db.pool).await.unwrap();
    let queued = schema::lifecycle::queued_by_lane(&db.pool).await.unwrap();
    let mut out = vec![];
    for &(name, class, slots) in workers {
        let served = Lane::served(class, false, false);
        let waiting = queued.iter().any(|(lane, n)| *n > 0 && served.contains(lane));
        for i in 0..slots {
            let slot = format!("{name}/{i}");
            if waiting && !busy.iter().any(|(w,)| *w == slot) {
                out.push(slot);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_quick_grid_runs_to_completion_and_fills_its_report() {
    let db = TestDatabase::create().await;
    let redis = support::servers::redis_url();
    let keys = support::servers::TestKeys::new(&db.name);
    let queue = Queue::connect(&redis, &keys).await.expect("tests need Redis");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/quick.toml")).unwrap();
    let submitted =
        coordinator::submit(Some(&db.pool), &text, "quick.toml", false, &coordinator::cost::CostModel::defaults())
            .await
            .unwrap();
    let experiment = submitted.experiment.unwrap();
    let total: i64 = submitted.jobs.values().map(|&n| n as i64).sum();

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));
    let cpu = WorkerConfig { lease_s: 60.0, ..WorkerConfig::in_process("cpu", "cpu") };
    // Trains compatible runs as stacked groups, as `hfarm worker` does on CUDA.
    let gpu = WorkerConfig {
        lease_s: 60.0,
        train_group: TrainGroups::all(8),
        plan_group: 16,
        ..WorkerConfig::in_process("gpu", "gpu")
    };
    // As `hfarm worker` does: each training slot its share of the cores
    // unless HFARM_TORCH_THREADS says otherwise (the only test in this
    // binary, so no other thread reads the environment).
    if std::env::var_os("HFARM_TORCH_THREADS").is_none() {
        std::env::set_var("HFARM_TORCH_THREADS", learner::threads_per_slot(gpu.concurrency).to_string());
    }
    let workers = [("cpu", Resource::Cpu, cpu.concurrency), ("gpu", Resource::Gpu, gpu.concurrency)];
    let w1 = tokio::spawn(run_worker_advertising(db.pool.clone(), queue.clone(), cpu, false, stop.clone()));
    let w2 = tokio::spawn(run_worker_advertising(db.pool.clone(), queue.clone(), gpu, false, stop.clone()));
    let started = Instant::now();
    // A slot counts as idle with work when it stays so for a whole second
    // (a slot between two jobs, or a job just announced, is not).
    const SAMPLE: Duration = Duration::from_millis(100);
    let mut idle_since: HashMap<String, Instant> = HashMap::new();
    let mut worst: Vec<(String, f64)> = vec![];
    loop {
        let st = coordinator::status(&db.pool, experiment).await.unwrap();
        if st.jobs.active() == 0 {
            // Every job ran but the plan jobs of the test slot each domain
            // did not draw into its planning sample (3 of 4).
            let skipped = st.by_kind.get(&JobKind::Plan).map_or(0, |k| k[JobStatus::Skipped]);
            assert_eq!(
                (st.jobs[JobStatus::Succeeded] + skipped, st.jobs[JobStatus::Skipped]),
                (total, skipped),
                "{st:?}"
            );
            assert!(skipped > 0, "{st:?}");
            break;
        }
        assert_eq!(st.jobs[JobStatus::Dead], 0, "{st:?}");
        assert!(started.elapsed() < Duration::from_secs(1800), "not done in 30 minutes: {st:?}");
        let now = Instant::now();
        let idle = idle_with_work(&db, &workers).await;
        idle_since.retain(|slot, _| idle.contains(slot));
        for slot in idle {
            let since = *idle_since.entry(slot.clone()).or_insert(now);
            if now.duration_since(since) >= Duration::from_secs(1) {
                worst.push((slot, now.duration_since(since).as_secs_f64()));
            }
        }
        tokio::time::sleep(SAMPLE).await;
    }
    println!("quick grid on a CPU-only farm: {total} jobs in {:.0} s", started.elapsed().as_secs_f64());
    // Where the demo's minutes go (issue 31): job time summed per kind and
    // model, shown with `--nocapture` (or when the test fails); nothing
    // asserted on it.
    let by_kind: Vec<(String, String, i64, f64, f64)> = sqlx::query_as(
        "SELECT kind, coalesce(spec->>'model', spec->'heuristic'->>'model', spec->'heuristic'->>'name', ''), count(*),
                sum(extract(epoch FROM finished_at - started_at))::float8,
                max(extract(epoch FROM finished_at - started_at))::float8
         FROM jobs WHERE started_at IS NOT NULL AND finished_at IS NOT NULL GROUP BY 1, 2 ORDER BY 4 DESC",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    for (kind, model, n, sum, max) in by_kind {
        println!("  {kind:<9} {model:<7} {n:>4} jobs {sum:>7.1} s of job time (longest {max:.1} s)");
    }
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, w1, w2);
    assert!(worst.is_empty(), "slots idle for a second or more while a job they may take was queued: {worst:?}");

    // The relational models' learned plan jobs (GPU-preferring) ran on both
    // workers' slots, the CPU worker's included; training stayed with the
    // GPU-class worker.
    let by_worker: Vec<(String, i64)> = sqlx::query_as(
        "SELECT split_part(worker, '/', 1), count(*) FROM jobs WHERE kind = 'plan' AND resource = 'gpu' AND worker IS NOT NULL
         GROUP BY 1",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert!(
        by_worker.iter().any(|(w, n)| w == "cpu" && *n > 0),
        "no learned plan job ran on a CPU slot: {by_worker:?}"
    );
    let (trained_off_gpu,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM jobs WHERE kind = 'train' AND worker NOT LIKE 'gpu/%'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(trained_off_gpu, 0);

    // Compatible train jobs (same domain and model) trained as stacked
    // groups: one slot held several at once.
    let (grouped,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM jobs a JOIN jobs b ON a.worker = b.worker AND a.key < b.key
         WHERE a.kind = 'train' AND b.kind = 'train' AND a.started_at < b.finished_at AND b.started_at < a.finished_at",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert!(grouped > 0, "no train jobs shared a group");

    // Learned plan jobs of one model searched at once (the NLM's and HGN's
    // that the GPU-class worker took: its slots take up to 16): grouped runs
    // record no forward passes of their own. Each equals the one-search
    // path on the same model and instance.
    let rows: Vec<(String, String, String, String, Option<i32>, i64)> = sqlx::query_as(
        "SELECT j.key, p.model, p.instance, p.status, p.cost, p.evaluations
         FROM plan_runs p JOIN jobs j ON j.key = p.job
         WHERE p.model IS NOT NULL AND p.forward_passes IS NULL AND j.resource = 'gpu'
         ORDER BY j.key",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert!(rows.len() >= 2, "no learned plan jobs were searched as a group");
    let limits = jobs::grid::PlanLimits::default();
    for (key, model, instance, status, cost, evaluations) in rows.iter().take(6) {
        let (config, weights) =
            worker::learned::checkpoint(&db.pool, model, schema::training::Tag::BestMse).await.unwrap();
        let inst = schema::results::instance(&db.pool, instance).await.unwrap().unwrap();
        let spec: (serde_json::Value,) =
            sqlx::query_as("SELECT spec FROM jobs WHERE key = $1").bind(key).fetch_one(&db.pool).await.unwrap();
        let clip =
            spec.0.pointer("/heuristic/clip").and_then(|c| c.as_str()).map(|b| jobs::grid::Bound::new(b).unwrap());
        let limits = serde_json::from_value(spec.0["limits"].clone()).unwrap_or(limits);
        let (alone, _) = worker::compute::plan_learned(
            config,
            &weights,
            &inst.domain_pddl,
            &inst.problem_pddl,
            clip,
            &limits,
            Default::default(),
        )
        .unwrap();
        assert_eq!(
            (alone.status.as_str(), alone.cost.map(|c| c as i32), alone.evaluations as i64),
            (status.as_str(), *cost, *evaluations),
            "{key}: searched alone vs in a group"
        );
    }

    let filled = |c: &Cell| match c {
        Cell::Num(v) => v.is_some_and(f64::is_finite),
        Cell::Int(_) => true,
        Cell::Text(t) => t.is_some(),
    };
    // Accuracy: 2 domains x 3 models x {N, TN}, 2 seeds each, every cell filled.
    let acc = report::table(&db.pool, experiment, Table::Accuracy, &Filter::default()).await.unwrap();
    assert_eq!(acc.rows.len(), 12);
    for row in &acc.rows {
        assert!(row.iter().all(filled), "{:?}\n{row:?}", acc.columns);
        assert_eq!(row[acc.columns.iter().position(|c| c == "seeds").unwrap()], Cell::Int(2));
    }
    // Planning: per domain, 3 models x {N, N+clip, TN} and the hFF baseline. Configuration
    // cells are empty only where they do not apply (a baseline has no model; N has no bound).
    let plan = report::table(&db.pool, experiment, Table::Planning, &Filter::default()).await.unwrap();
    assert_eq!(plan.rows.len(), 2 * (3 * 3 + 1));
    let stats = plan.columns.iter().position(|c| c == "seeds").unwrap();
    for row in &plan.rows {
        assert!(row[stats..].iter().all(filled), "{:?}\n{row:?}", plan.columns);
    }
    // Per instance: every configuration of Table 2 on every planned
    // instance, its means over seeds averaging back to Table 2's (each seed
    // planned the same instances), and hFF's figures beside it.
    let per = report::table(&db.pool, experiment, Table::Instances, &Filter::default()).await.unwrap();
    let col = |r: &Report, name: &str| r.columns.iter().position(|c| c == name).unwrap();
    let num = |c: &Cell| match c {
        Cell::Num(Some(v)) => *v,
        other => panic!("not a number: {other:?}"),
    };
    let config = |r: &Report, row: &[Cell]| -> Vec<Cell> {
        ["domain", "model", "distribution", "sigma", "residual", "bound", "estimate"]
            .iter()
            .map(|c| row[col(r, c)].clone())
            .collect()
    };
    for row in &plan.rows {
        let key = config(&plan, row);
        let mine: Vec<&Vec<Cell>> = per.rows.iter().filter(|r| config(&per, r) == key).collect();
        assert_eq!(Cell::Int(mine.len() as i64), row[col(&plan, "instances")], "{key:?}");
        let mean = mine.iter().map(|r| num(&r[col(&per, "evaluations")])).sum::<f64>() / mine.len() as f64;
        let table2 = num(&row[col(&plan, "evaluations_mean")]);
        assert!((mean - table2).abs() <= 1e-6 * table2.max(1.0), "{key:?}: {mean} vs Table 2's {table2}");
    }
    let ff_rows: Vec<&Vec<Cell>> =
        per.rows.iter().filter(|r| r[col(&per, "estimate")] == Cell::Text(Some("ff".into()))).collect();
    assert!(!ff_rows.is_empty());
    for r in &per.rows {
        let ff = ff_rows.iter().find(|b| b[col(&per, "instance")] == r[col(&per, "instance")]).expect("hFF planned it");
        assert_eq!(r[col(&per, "ff_evaluations")], ff[col(&per, "evaluations")]);
    }

    let curves = report::table(&db.pool, experiment, Table::Curves, &Filter::default()).await.unwrap();
    assert!(curves.rows.len() >= 12 * 30, "{} curve points", curves.rows.len());
    support::assert_priced_from_measurements(&db.pool, "grids/quick.toml").await;
}
