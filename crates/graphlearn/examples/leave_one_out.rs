//! The thesis's leave-one-out protocol on a directory of problems of one
//! domain (or on generated blocksworld problems), printing every run, the
//! IPC score table and the coverage of the best learned configuration
//! against A* with h_FF.
//!
//! ```text
//! cargo run --release -p graphlearn --example leave_one_out -- [DIR] [options]
//!   DIR                 domain.pddl and problem files (*.pddl); default: generated blocksworld
//!   --blocks 6,7,...    sizes of the generated problems (default 6..=13)
//!   --alphas 2,3        feature sizes (default 2,3; the thesis: 2,3,4)
//!   --network thesis|W,W,...   hidden widths (default thesis: 256,512,128,64,32)
//!   --epochs N --patience P --train-seconds S   training per network (default 200, 15, 20)
//!   --time S --evals N  limits of each held-out search (default 10 s, 200000)
//!   --walks N           random-walk starts labelled per problem (default 20)
//!   --solver NAME       labeller (default: the domain's registered solver, else A*+LM-cut)
//!   --json FILE         write the rows and scores as JSON
//! ```
//!
//! Samples are the states along labelled plans from each problem's initial
//! state and from the ends of random walks ([`plan_samples`]), shared by the
//! folds (a fold never trains on its held-out problem's samples).

use std::path::PathBuf;
use std::time::Instant;

use graphlearn::ipc::format_scores;
use graphlearn::labels::LabellerSettings;
use graphlearn::mlp::{TrainSettings, THESIS_DROPOUT, THESIS_HIDDEN};
use graphlearn::protocol::{grid, leave_one_out, plan_samples, ProtocolSettings, SampleSource};
use graphlearn::Problem;

struct Args {
    dir: Option<PathBuf>,
    blocks: Vec<u32>,
    alphas: Vec<usize>,
    hidden: Vec<usize>,
    epochs: usize,
    patience: usize,
    train_seconds: f64,
    time: f64,
    evals: u64,
    walks: usize,
    solver: Option<String>,
    json: Option<PathBuf>,
}

fn list<T: std::str::FromStr>(s: &str, what: &str) -> Result<Vec<T>, String> {
    s.split(',').map(|x| x.trim().parse().map_err(|_| format!("{what}: cannot read `{x}`"))).collect()
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        dir: None,
        blocks: (6..=13).collect(),
        alphas: vec![2, 3],
        hidden: THESIS_HIDDEN.to_vec(),
        epochs: 200,
        patience: 15,
        train_seconds: 20.0,
        time: 10.0,
        evals: 200_000,
        walks: 20,
        solver: None,
        json: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--blocks" => a.blocks = list(&value()?, "--blocks")?,
            "--alphas" => a.alphas = list(&value()?, "--alphas")?,
            "--network" => {
                let v = value()?;
                a.hidden = if v == "thesis" { THESIS_HIDDEN.to_vec() } else { list(&v, "--network")? }
            }
            "--epochs" => a.epochs = list(&value()?, "--epochs")?[0],
            "--patience" => a.patience = list(&value()?, "--patience")?[0],
            "--train-seconds" => a.train_seconds = list(&value()?, "--train-seconds")?[0],
            "--time" => a.time = list(&value()?, "--time")?[0],
            "--evals" => a.evals = list(&value()?, "--evals")?[0],
            "--walks" => a.walks = list(&value()?, "--walks")?[0],
            "--solver" => a.solver = Some(value()?),
            "--json" => a.json = Some(value()?.into()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => a.dir = Some(s.into()),
        }
    }
    Ok(a)
}

fn load(a: &Args) -> Result<Vec<Problem>, Box<dyn std::error::Error>> {
    match &a.dir {
        Some(dir) => {
            let domain = dir.join("domain.pddl");
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "pddl") && p.file_name() != Some("domain.pddl".as_ref()))
                .collect();
            files.sort();
            Ok(files.iter().map(|f| Problem::from_files(&domain, f)).collect::<Result<_, _>>()?)
        }
        None => {
            let domain = planner::generate::domain_pddl("blocksworld").ok_or("no blocksworld domain")?;
            let mut out = vec![];
            for (i, &n) in a.blocks.iter().enumerate() {
                let text =
                    planner::generate::generate(&planner::generate::Params::Blocksworld { blocks: n }, 100 + i as u64)?;
                out.push(Problem::from_text(&format!("blocks-{n:02}-{}", 100 + i), domain, &text)?);
            }
            Ok(out)
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = parse()?;
    let problems = load(&a)?;
    let domain = problems.first().ok_or("no problems")?.graphs().symbols().domain.clone();
    let labeller = match &a.solver {
        Some(s) => LabellerSettings::solver(s)?,
        None => LabellerSettings::for_domain(&domain, 500_000),
    };
    println!("{} problems of {domain}; labels: {}", problems.len(), labeller.source());
    let t = Instant::now();
    let mut samples = vec![];
    for (i, p) in problems.iter().enumerate() {
        let steps = 2 * p.task().objects.len();
        samples.push(plan_samples(p, &labeller, a.walks, steps, i as u64)?);
    }
    println!(
        "{} labelled states in {:.1} s ({} per problem on average)",
        samples.iter().map(Vec::len).sum::<usize>(),
        t.elapsed().as_secs_f64(),
        samples.iter().map(Vec::len).sum::<usize>() / problems.len()
    );
    let settings = ProtocolSettings {
        configurations: grid(&a.alphas),
        hidden: a.hidden.clone(),
        dropout: THESIS_DROPOUT.iter().copied().take(a.hidden.len()).collect(),
        train: TrainSettings {
            max_epochs: a.epochs,
            patience: a.patience,
            max_seconds: Some(a.train_seconds),
            ..TrainSettings::default()
        },
        time_s: Some(a.time),
        max_evaluations: Some(a.evals),
        baselines: vec!["ff".into(), "goalcount".into()],
        seed: 1,
        adjustments: vec![],
        value_adjustments: vec![],
    };
    let t = Instant::now();
    let result = leave_one_out(&problems, &SampleSource::Given(samples), &settings)?;
    println!("leave-one-out in {:.0} s\n", t.elapsed().as_secs_f64());
    println!(
        "{:<16} {:<14} {:>16} {:>6} {:>10} {:>8} {:>8}",
        "problem", "configuration", "status", "cost", "expansions", "time", "unknown"
    );
    for r in &result.rows {
        println!(
            "{:<16} {:<14} {:>16} {:>6} {:>10} {:>8.2} {:>8}",
            r.problem,
            r.configuration,
            if r.plan_valid == Some(false) { "INVALID PLAN" } else { &r.status },
            r.cost.map_or("-".into(), |c| c.to_string()),
            r.expansions,
            r.time_s,
            r.states_with_unknown
        );
    }
    println!("\n{}", format_scores(&result.scores));
    let baselines = &settings.baselines;
    let best = result
        .scores
        .iter()
        .filter(|s| !baselines.contains(&s.configuration))
        .max_by(|x, y| (x.coverage, x.length).partial_cmp(&(y.coverage, y.length)).expect("finite scores"))
        .ok_or("no learned configuration")?;
    let ff = result.scores.iter().find(|s| s.configuration == "ff").ok_or("no ff row")?;
    println!(
        "best learned configuration {}: coverage {}/{}; A* with h_FF: {}/{}",
        best.configuration, best.coverage, best.problems, ff.coverage, ff.problems
    );
    if let Some(path) = &a.json {
        let out = serde_json::json!({ "rows": result.rows, "scores": result.scores, "folds": result.folds });
        std::fs::write(path, serde_json::to_string_pretty(&out)?)?;
    }
    Ok(())
}
