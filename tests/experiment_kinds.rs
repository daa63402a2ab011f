//! The other seeds' experiment kinds end to end through the real Redis and
//! PostgreSQL, from the grids users run (`grids/likely-8puzzle.toml`,
//! `grids/graphlearn-blocksworld.toml`): every job succeeds once, the rows
//! are right by an independent check, and the report tables read them.

use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use puzzles::search::{Limits, SearchKind};
use queue::Queue;
use schema::reports::{table, Filter, Table};
use schema::testing::TestDatabase;
use schema::JobStatus;
use support::servers::{redis_url, TestKeys};
use worker::{run_worker, WorkerConfig};

/// Submits `grid` (a file of `grids/`) and runs it to the end with a
/// scheduler and a two-slot worker; returns the experiment.
async fn run_grid(db: &TestDatabase, grid: &str, secs: u64) -> uuid::Uuid {
    let path = format!("{}/../grids/{grid}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    run_grid_text(db, &text, &path, secs).await
}

/// [`run_grid`] for a grid's text (`path` names it in errors).
async fn run_grid_text(db: &TestDatabase, text: &str, path: &str, secs: u64) -> uuid::Uuid {
    let farm =
        Farm::start(db, text, path, WorkerConfig { concurrency: 2, ..WorkerConfig::in_process("w", "cpu") }).await;
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let st = coordinator::status(&db.pool, farm.experiment).await.unwrap();
        if st.jobs[JobStatus::Succeeded] == farm.jobs {
            break;
        }
        let errors: Vec<(String, Option<String>)> =
            sqlx::query_as("SELECT kind, last_error FROM jobs WHERE last_error IS NOT NULL LIMIT 3")
                .fetch_all(&db.pool)
                .await
                .unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(Instant::now() < deadline, "not done in time: {st:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let experiment = farm.experiment;
    farm.stop().await;
    let (again,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM jobs WHERE attempts <> 1").fetch_one(&db.pool).await.unwrap();
    assert_eq!(again, 0, "every job ran exactly once");
    experiment
}

/// A submitted grid with a scheduler and one worker running it.
struct Farm {
    experiment: uuid::Uuid,
    /// Jobs the submission created.
    jobs: i64,
    stop_tx: tokio::sync::watch::Sender<bool>,
    sched: tokio::task::JoinHandle<()>,
    work: tokio::task::JoinHandle<()>,
    /// The farm's Redis keys, deleted once it stopped.
    _keys: TestKeys,
    /// Held while the farm runs: see [`ONE_FARM`].
    _one_farm: tokio::sync::MutexGuard<'static, ()>,
}

/// Farms of this file run one at a time: two at once on a 2-core machine
/// starve each other's leases and the cancel test's timing.
static ONE_FARM: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Farm {
    async fn start(db: &TestDatabase, text: &str, path: &str, wcfg: WorkerConfig) -> Farm {
        let one_farm = ONE_FARM.lock().await;
        let keys = TestKeys::new(&db.name);
        let queue = Queue::connect(&redis_url(), &keys).await.unwrap();
        let model = coordinator::cost::CostModel::defaults();
        let report = coordinator::submit(Some(&db.pool), text, path, false, &model).await.unwrap();
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let cfg = SchedulerConfig { requeue_after_s: 2.0, ..SchedulerConfig::default() };
        let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), cfg, stop.clone()));
        let work = tokio::spawn(run_worker(db.pool.clone(), queue, wcfg, stop));
        let jobs = report.new.unwrap() as i64;
        Farm { experiment: report.experiment.unwrap(), jobs, stop_tx, sched, work, _keys: keys, _one_farm: one_farm }
    }

    /// Stops the scheduler and the worker and waits for both.
    async fn stop(self) {
        self.stop_tx.send(true).unwrap();
        let _ = tokio::join!(self.sched, self.work);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_likely_grid_learns_tests_every_alpha_and_reports_table_7() {
    let db = TestDatabase::create().await;
    let e = run_grid(&db, "likely-8puzzle.toml", 600).await;
    let count = |sql: &'static str| {
        let pool = db.pool.clone();
        async move { sqlx::query_as::<_, (i64,)>(sql).fetch_one(&pool).await.unwrap().0 }
    };
    // One-hot inputs: 2 seeds; PDB inputs (the 4-4 set): 1 seed; 4 iterations each,
    // each written once; a learner is its last checkpoint.
    assert_eq!(count("SELECT count(*) FROM puzzle_iterations").await, 12);
    assert_eq!(count("SELECT count(*) FROM puzzle_learners WHERE iterations = 4 AND resumed_from = 0").await, 3);
    assert_eq!(count("SELECT count(*) FROM checkpoints WHERE tag = 'last' AND step = 4").await, 3);
    // Optimal costs by IDA* with PDBs equal A* with Manhattan distance's (another search, another heuristic).
    let optimal: Vec<(String, i32)> =
        sqlx::query_as("SELECT state, cost FROM puzzle_optimal").fetch_all(&db.pool).await.unwrap();
    assert_eq!(optimal.len(), 8, "the two blocks share their test tasks' solves");
    let d = puzzles::by_name("8-puzzle").unwrap();
    let store = puzzles::pdb::DirStore::new(std::env::temp_dir().join(format!("hfarm-kinds-{}", db.name)));
    for (state, cost) in &optimal {
        let start = d.parse_state(state).unwrap();
        let src = puzzles::registry::PdbSource { store: &store, threads: 1, cache: None };
        let r = d.solve(&start, "manhattan", SearchKind::AStar, &Limits::default(), src).unwrap();
        assert_eq!(r.cost, Some(*cost as u32), "{state}");
    }
    // (2 + 1) learners x 8 tasks x 3 alphas; no plan below the optimal cost.
    assert_eq!(count("SELECT count(*) FROM puzzle_test_runs").await, 72);
    assert_eq!(count("SELECT count(*) FROM puzzle_test_runs WHERE cost < optimal").await, 0);
    assert_eq!(count("SELECT count(*) FROM puzzle_test_runs WHERE (cost IS NULL) <> (status <> 'solved')").await, 0);
    let sub = table(&db.pool, e, Table::Suboptimality, &Filter::default()).await.unwrap();
    let rows: Vec<Vec<String>> = sub.rows.iter().map(|r| r.iter().map(|c| c.text()).collect()).collect();
    let keys: Vec<(&str, &str, &str, &str)> =
        rows.iter().map(|r| (r[2].as_str(), r[4].as_str(), r[5].as_str(), r[6].as_str())).collect();
    assert_eq!(
        keys,
        [
            ("one_hot", "0.95", "2", "16"),
            ("one_hot", "0.5", "2", "16"),
            ("one_hot", "0.05", "2", "16"),
            ("pdb:4-4", "0.95", "1", "8"),
            ("pdb:4-4", "0.5", "1", "8"),
            ("pdb:4-4", "0.05", "1", "8"),
        ],
        "inputs, alpha (most cautious first), seeds, tasks"
    );
    let eff = table(&db.pool, e, Table::Efficiency, &Filter::default()).await.unwrap();
    let rows: Vec<Vec<String>> = eff.rows.iter().map(|r| r.iter().map(|c| c.text()).collect()).collect();
    let counts: Vec<(&str, &str, &str, &str, &str)> =
        rows.iter().map(|r| (r[2].as_str(), r[3].as_str(), r[5].as_str(), r[6].as_str(), r[7].as_str())).collect();
    assert_eq!(
        counts,
        [("one_hot", "uncertainty", "2", "32", "0"), ("pdb:4-4", "uncertainty", "1", "16", "0")],
        "inputs, task source, seeds, training tasks, growing-walk sets (none in this grid)"
    );
    support::assert_priced_from_measurements(&db.pool, "grids/likely-8puzzle.toml").await;
}

/// The efficiency experiment (Table 8) end to end: learners per seed and
/// task source (LengthInc walks and GenerateTaskPrac), each tested on sets
/// of growing walks under a cumulative budget; the report's shares agree
/// with the rows, and the supplement stands beside them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_efficiency_experiment_runs_growing_walks_under_a_budget_and_reports_table_8() {
    let db = TestDatabase::create().await;
    let grid = r#"
name = "efficiency"
[[likely]]
domain = "8-puzzle"
settings = "tiny"
model = "mean"
iterations = 2
seeds = [1, 2]
tasks = ["k2", "uncertainty"]
train_limits = { max_generated = 50000 }
test = { growing = 40, sets = 2, budget_s = 1.0, seed = 3 }
test_limits = { max_generated = 200000 }
"#;
    let e = run_grid_text(&db, grid, "efficiency.toml", 300).await;
    // k2 learners' training walks grow by 2 moves per iteration.
    let walks: Vec<(i32, serde_json::Value)> = sqlx::query_as(
        "SELECT i.iteration, i.report->'tasks' FROM puzzle_iterations i JOIN jobs l ON l.key = i.job
         WHERE l.spec->>'tasks' = 'k2' ORDER BY i.iteration",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(walks.len(), 4, "2 seeds x 2 iterations");
    for (iteration, tasks) in &walks {
        for t in tasks.as_array().unwrap() {
            assert_eq!(t["walk_steps"], 2 * iteration, "iteration {iteration}");
        }
    }
    // 4 learners x 2 sets, each attempted in order until the budget ran out.
    let runs: Vec<(i32, i32, i32, i32, f64, serde_json::Value)> = sqlx::query_as(
        "SELECT tasks, attempted, solved, set, seconds, runs FROM puzzle_efficiency_runs ORDER BY learner, set",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(runs.len(), 8);
    for (tasks, attempted, solved, _, seconds, tasks_run) in &runs {
        let list = tasks_run.as_array().unwrap();
        assert_eq!((*tasks, list.len()), (40, *attempted as usize));
        assert!(*attempted >= 1 && solved <= attempted);
        // Stopped by the budget: the last task started before it ran out.
        if *attempted < 40 {
            assert!(*seconds > 1.0, "{seconds}");
        }
        let walks: Vec<i64> = list.iter().map(|t| t["walk"].as_i64().unwrap()).collect();
        assert_eq!(walks, (1..=*attempted as i64).collect::<Vec<_>>());
        let counted = list.iter().filter(|t| t["cost"].as_i64().is_some_and(|c| c > 0)).count();
        assert_eq!(counted, *solved as usize);
    }
    let eff = table(&db.pool, e, Table::Efficiency, &Filter::default()).await.unwrap();
    let rows: Vec<Vec<String>> = eff.rows.iter().map(|r| r.iter().map(|c| c.text()).collect()).collect();
    let keys: Vec<(&str, &str, &str, &str, &str)> =
        rows.iter().map(|r| (r[3].as_str(), r[4].as_str(), r[5].as_str(), r[7].as_str(), r[8].as_str())).collect();
    assert_eq!(
        keys,
        [("k2", "N/A", "2", "4", "160"), ("uncertainty", "N/A", "2", "4", "160")],
        "source (walks first), alpha, seeds, sets, test tasks"
    );
    // The test share is the mean over runs of each run's mean over its sets.
    let (mean,): (f64,) = sqlx::query_as(
        "SELECT avg(p) FROM (SELECT avg(100 * e.solved::float8 / e.tasks) AS p FROM puzzle_efficiency_runs e
         JOIN jobs l ON l.key = e.learner WHERE l.spec->>'tasks' = 'k2' GROUP BY e.learner) r",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    let col = |name: &str| eff.columns.iter().position(|c| c == name).unwrap();
    let ours = match &eff.rows[0][col("test_solved_mean")] {
        schema::reports::Cell::Num(v) => v.unwrap(),
        c => panic!("{c:?}"),
    };
    assert!((ours - mean).abs() < 1e-9, "{ours} vs {mean}");
    assert!(matches!(eff.rows[0][col("test_solved_std")], schema::reports::Cell::Num(Some(_))), "2 runs: a std");
    // Beside the supplement: Table 8's k2 and GTP rows find ours (other domain: no match here).
    let against = coordinator::published::Against::load("marom-rosman").unwrap();
    let f = Filter { domain: Some("8-puzzle".into()), ..Filter::default() };
    let c = against.compare(&eff, &f, None).unwrap();
    assert!(c.summary().contains("0 of 0 cells"), "{}", c.summary());
}

/// Test tasks from a benchmark set with `optimal = "published"`: the solve
/// jobs record the published optima without a search (no PDB is built or
/// stored), and the tests measure against them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sets_published_optima_are_taken_without_a_search() {
    let db = TestDatabase::create().await;
    let grid = r#"
name = "published-optima"
[[likely]]
domain = "15-puzzle"
settings = "tiny"
iterations = 1
seeds = [1]
train_limits = { max_generated = 100000 }
alphas = [0.5]
test = { set = "korf100:12-13", optimal = "published" }
test_limits = { max_generated = 100000 }
"#;
    run_grid_text(&db, grid, "published.toml", 300).await;
    let optimal: Vec<(i32, i64, String)> =
        sqlx::query_as("SELECT cost, generated, source FROM puzzle_optimal ORDER BY cost")
            .fetch_all(&db.pool)
            .await
            .unwrap();
    // Korf (1985): #12 costs 45, #13 costs 46.
    assert_eq!(optimal, [(45, 0, "published".to_string()), (46, 0, "published".to_string())]);
    let (pdbs,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM artifacts WHERE kind = 'pdb'").fetch_one(&db.pool).await.unwrap();
    assert_eq!(pdbs, 0, "no search, no PDB");
    let runs: Vec<(i32,)> =
        sqlx::query_as("SELECT optimal FROM puzzle_test_runs ORDER BY optimal").fetch_all(&db.pool).await.unwrap();
    assert_eq!(runs, [(45,), (46,)]);
}

/// A puzzle search without limits stops soon after its job is cancelled:
/// the job's heartbeat finds the lease gone and sets the flag its search
/// looks at (no abort reaches a blocking thread). With one slot and two
/// test searches that would each run for hours (a barely trained network on
/// Korf's hardest instances, no limits), cancelling whichever is running
/// must end both: the second runs only once the first search stopped, and
/// the worker stops only once the second did (its grace is longer than the
/// test, so that stopping cannot end the search for it). No wall-clock gap
/// is asserted: a loaded machine may take its time, never hours.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancelling_a_puzzle_job_stops_its_search() {
    let db = TestDatabase::create().await;
    let grid = r#"
name = "cancelled-searches"
[[likely]]
domain = "15-puzzle"
settings = "tiny"
model = "mean"
iterations = 1
seeds = [1]
train_limits = { max_generated = 20000 }
test = { set = "korf100:88-89", optimal = "published" }
"#;
    // A lease of 6 s: heartbeats every 2 s notice the cancellation; a
    // heartbeat that load delays past the lease only requeues the job, which
    // is then claimed (and cancelled) again.
    let wcfg = WorkerConfig { concurrency: 1, lease_s: 6.0, grace_s: 3600.0, ..WorkerConfig::in_process("w", "cpu") };
    let farm = Farm::start(&db, grid, "cancel.toml", wcfg).await;
    // Each search would run for hours: the second cannot start within the
    // deadline unless cancelling the first stopped it.
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut cancelled: Vec<String> = vec![];
    while cancelled.len() < 2 {
        let running: Vec<(String, i64)> = sqlx::query_as(
            "SELECT key, (SELECT count(*) FROM puzzle_test_runs r WHERE r.job = j.key) FROM jobs j
             WHERE kind = 'puzzle_test' AND status = 'running'",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        assert!(running.len() <= 1, "one slot, yet {running:?} run at once");
        for (key, runs) in running {
            assert_eq!(runs, 0, "{key} ended before it was cancelled");
            assert!(!cancelled.contains(&key), "{key} runs again after its cancellation");
            // Let the search get going first.
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert!(schema::lifecycle::cancel(&db.pool, &key).await.unwrap());
            cancelled.push(key);
        }
        let st = coordinator::status(&db.pool, farm.experiment).await.unwrap();
        assert!(Instant::now() < deadline, "cancelled {cancelled:?}, the next search never ran: {st:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The worker ends once its slot's job did, which takes the second
    // search's stopping (the grace outlasts the test).
    let stopped = tokio::time::timeout(Duration::from_secs(600), farm.stop()).await;
    assert!(stopped.is_ok(), "the second search did not stop after its cancellation");
    let (not_cancelled,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM jobs WHERE kind = 'puzzle_test' AND status <> 'cancelled'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(not_cancelled, 0, "both searches were cancelled, none finished");
    let (runs,): (i64,) = sqlx::query_as("SELECT count(*) FROM puzzle_test_runs").fetch_one(&db.pool).await.unwrap();
    assert_eq!(runs, 0, "a cancelled search recorded a result");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_graphlearn_grid_runs_leave_one_out_and_reports_coverage() {
    let db = TestDatabase::create().await;
    let e = run_grid(&db, "graphlearn-blocksworld.toml", 900).await;
    let count = |sql: &'static str| {
        let pool = db.pool.clone();
        async move { sqlx::query_as::<_, (i64,)>(sql).fetch_one(&pool).await.unwrap().0 }
    };
    // 8 configurations x 1 seed, shared samples: one bootstrap each, 6 problems each.
    assert_eq!(count("SELECT count(*) FROM graph_bootstraps WHERE samples > 0").await, 8);
    assert_eq!(count("SELECT count(*) FROM graph_problems").await, 48);
    // A fold's network trained on every sample but its held-out problem's.
    let leaks = "SELECT count(*) FROM graph_runs r JOIN job_inputs i ON i.job = r.job
                 JOIN graph_problems p ON p.job = i.input AND p.name = r.problem
                 WHERE r.learned AND r.samples <> (SELECT sum(jsonb_array_length(q.samples)) FROM graph_problems q
                                                   WHERE q.job = i.input) - jsonb_array_length(p.samples)";
    assert_eq!(count(leaks).await, 0);
    // 8 configurations x 6 folds, each also adjusted (h_min), 2 baselines x 6
    // problems; every solved plan validated.
    assert_eq!(count("SELECT count(*) FROM graph_runs WHERE learned AND configuration NOT LIKE '%:min'").await, 48);
    assert_eq!(count("SELECT count(*) FROM graph_runs WHERE learned AND configuration LIKE '%:min'").await, 48);
    // 2 baselines x 6 problems, and goal count's value adjustment on the
    // first configuration's 6 folds, each state adjusted or a fallback.
    assert_eq!(count("SELECT count(*) FROM graph_runs WHERE NOT learned").await, 18);
    assert_eq!(
        count(
            "SELECT count(*) FROM graph_runs WHERE configuration = 'goalcount:min'
               AND (run->>'adjusted')::bigint + (run->>'fallbacks')::bigint = evaluations"
        )
        .await,
        6
    );
    assert_eq!(
        count("SELECT count(*) FROM graph_runs WHERE solved AND (run->>'plan_valid')::bool IS NOT TRUE").await,
        0
    );
    // Every problem is solved by some configuration, and no plan is below
    // the optimal cost (A*+LM-cut here).
    let costs: Vec<(String, i64)> = sqlx::query_as(
        "SELECT p.pddl, min(r.cost) FROM graph_runs r JOIN graph_problems p ON p.name = r.problem
                        WHERE r.solved GROUP BY p.pddl",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(costs.len(), 6);
    let domain = planner::generate::domain_pddl("blocksworld").unwrap();
    for (pddl, best) in costs {
        let task = planner::label::load(domain, pddl.as_str(), true).unwrap();
        let mut h = planner::heuristics::by_name("lmcut", &task).unwrap();
        let r = planner::search::astar(&task, h.as_mut(), planner::search::Limits::new(None, Some(120.0), None));
        assert!(best >= r.cost.unwrap() as i64, "a plan of {best} below the optimal {:?}", r.cost);
    }
    // Tables 5.1-5.3: alpha 2 from every bootstrap, alpha 3 from the alpha-3 configurations';
    // larger subgraphs tell more states apart: a longer vector, narrower Delta-sets.
    let f = table(&db.pool, e, Table::Features, &Filter::default()).await.unwrap();
    let rows: Vec<Vec<String>> = f.rows.iter().map(|r| r.iter().map(|c| c.text()).collect()).collect();
    assert_eq!(rows.iter().map(|r| (r[1].as_str(), r[2].as_str())).collect::<Vec<_>>(), [("2", "8"), ("3", "4")]);
    let num = |r: &Vec<String>, i: usize| r[i].parse::<f64>().unwrap();
    assert!(num(&rows[1], 4) > num(&rows[0], 4) && num(&rows[0], 4) > 0.0, "{rows:?}");
    assert!(num(&rows[1], 5) <= num(&rows[0], 5), "{rows:?}");
    let cov = table(&db.pool, e, Table::Coverage, &Filter::default()).await.unwrap();
    assert_eq!(cov.rows.len(), 19, "8 configurations, 8 adjusted, goalcount:min and 2 baselines");
    // Trunda's analyses (migration 0022): fallbacks of the 9 adjusted
    // configurations, each network's fit over its 6 folds, the correlation per alpha.
    let adj = table(&db.pool, e, Table::Adjustments, &Filter::default()).await.unwrap();
    assert_eq!(adj.rows.len(), 9);
    assert!(adj.rows.iter().all(|r| r[2].text() == "6"), "6 runs each: {:?}", adj.rows);
    let fit = table(&db.pool, e, Table::Fit, &Filter::default()).await.unwrap();
    assert_eq!(fit.rows.len(), 8);
    assert!(fit.rows.iter().all(|r| r[2].text() == "6"), "6 folds each: {:?}", fit.rows);
    let by_target = table(&db.pool, e, Table::ErrorByTarget, &Filter::default()).await.unwrap();
    // Every fold's every training sample is in one target's row.
    let per_target: i64 = by_target.rows.iter().map(|r| r[3].text().parse::<i64>().unwrap()).sum();
    let fitted = count("SELECT sum((run->'fit'->>'n')::bigint)::bigint FROM graph_runs WHERE run ? 'fit'").await;
    assert!(per_target > 0 && per_target == fitted, "{per_target} samples by target, {fitted} fitted");
    let corr = table(&db.pool, e, Table::Correlation, &Filter::default()).await.unwrap();
    assert_eq!(corr.rows.len(), 2, "alpha 2 and 3");
    for r in &cov.rows {
        assert_eq!(r[4].text(), "6", "problems: {r:?}");
    }
    support::assert_priced_from_measurements(&db.pool, "grids/graphlearn-blocksworld.toml").await;
}
