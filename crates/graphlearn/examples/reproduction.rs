//! Writes `docs/reproduction-graphlearn.md`: Trunda's blocks experiment at
//! economy settings on one machine, beside the thesis's numbers.
//!
//! ```text
//! cargo run --release -p graphlearn --example reproduction [-- --time S --walks N --out FILE --hfarm PATH]
//! ```
//!
//! With `--hfarm PATH` (the `hfarm` binary) the page also holds `hfarm
//! submit --dry-run` of the thesis-faithful grid and its economy variant:
//! their jobs and projected cost.
//!
//! What it runs (the library code the farm's `graph_*` jobs run):
//! - the first 27 IPC 2000 blocks problems (`benchmarks/ipc/blocks`, by size);
//! - samples: every state of the GoodTower plans from each initial state and
//!   from the ends of N seeded random walks of 20 steps (the thesis
//!   bootstrapped 31 M states with IDA*; this is the economy cut);
//! - Tables 5.1-5.3 and the correlation of 5.3.1 over those samples;
//! - leave-one-out with a3-mse+ff and a3-logmse+ff (64-32 network, at most
//!   300 epochs, patience 20, 5 s of training), A* with hFF and goal count,
//!   and the adjustment experiment (goal count and hFF by value Delta-sets),
//!   every search capped at S seconds and 2 M evaluations.

use std::fmt::Write as _;
use std::time::Instant;

use graphlearn::adjust::{feature_delta_stats, Adjustment};
use graphlearn::fit::FitStats;
use graphlearn::ipc::{scores, RunRow};
use graphlearn::labels::LabellerSettings;
use graphlearn::mlp::{Loss, TrainSettings};
use graphlearn::protocol::{plan_samples, run_fold, Configuration, ProtocolSettings, SampleSource, ValueAdjustment};
use graphlearn::Problem;

/// The thesis's blocks numbers (reports/published/trunda.csv).
const THESIS_LEN: [usize; 4] = [11, 26, 57, 139];
const THESIS_RANGE: [f64; 4] = [24.74, 24.53, 10.74, 3.64];
const THESIS_STD: [f64; 4] = [2.96, 2.94, 2.31, 1.02];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut time, mut walks, mut out) = (5.0f64, 5usize, "docs/reproduction-graphlearn.md".to_string());
    let mut hfarm: Option<String> = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let v = it.next().ok_or(format!("{a} needs a value"))?;
        match a.as_str() {
            "--time" => time = v.parse()?,
            "--walks" => walks = v.parse()?,
            "--out" => out = v,
            "--hfarm" => hfarm = Some(v),
            _ => return Err(format!("unknown option {a}").into()),
        }
    }
    let started = Instant::now();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let dir = format!("{root}/benchmarks/ipc/blocks");
    let domain = std::fs::read_to_string(format!("{dir}/domain.pddl"))?;
    let mut problems = vec![];
    for n in 4..=13 {
        for i in 0..3 {
            if let Ok(text) = std::fs::read_to_string(format!("{dir}/probBLOCKS-{n}-{i}.pddl")) {
                problems.push(Problem::from_text(&format!("probBLOCKS-{n}-{i}"), &domain, &text)?);
            }
        }
    }
    problems.truncate(27);
    let labeller = LabellerSettings::solver("blocksworld-goodtower")?;
    let mut samples = vec![];
    for (i, p) in problems.iter().enumerate() {
        samples.push(plan_samples(p, &labeller, walks, 20, i as u64)?);
    }
    let n_samples: usize = samples.iter().map(Vec::len).sum();
    let max_target = samples.iter().flatten().map(|l| l.h_star).max().unwrap_or(0);
    eprintln!("{} problems, {n_samples} samples", problems.len());

    let mut doc = String::new();
    writeln!(doc, "# Trunda's blocks experiment at economy settings, beside the thesis\n")?;
    writeln!(
        doc,
        "Made by `cargo run --release -p graphlearn --example reproduction -- {}` \
         (`crates/graphlearn/examples/reproduction.rs`), which runs the library code that the farm's \
         `graph_*` jobs run, on one machine. Numbers of the thesis: `reports/published/trunda.csv` \
         (chapter 5, with the line of each in the seed text). Everything below was measured by that \
         command.\n",
        std::env::args().skip(1).collect::<Vec<_>>().join(" ")
    )?;
    writeln!(doc, "## Settings, and what each costs the comparison\n")?;
    writeln!(
        doc,
        "| | thesis | here | what the difference costs |\n|---|---|---|---|\n\
         | problems | first 27 of IPC 2000 blocks | the same 27 (4-0 .. 13-0) | — |\n\
         | samples | 31,434,617 states expanded by IDA* bootstraps, near-optimal GoodTower labels | {n_samples} states: GoodTower plans from each initial state and from {walks} random-walk ends (20 steps) per problem, targets up to {max_target} | far fewer and easier states (plans, not search frontiers): the networks see little of what A* expands, Delta-set statistics are over another distribution |\n\
         | network | 256-512-128-64-32, patience 1000 | 64-32, patience 20, at most 300 epochs and 5 s | a weaker fit |\n\
         | configurations | 12 (alpha 2..4 x MSE/LogMSE x hFF input) | a3-mse+ff and a3-logmse+ff | alpha 4 untested here |\n\
         | search | A*, 30 min (adjustment experiment: 30 min and 5 M nodes) | A*, {time} s and 2 M evaluations | the larger problems go unsolved by every heuristic |\n"
    )?;

    // Tables 5.1-5.3 and the correlation.
    writeln!(doc, "## Tables 5.1-5.3 and the correlation of 5.3.1 (over the samples)\n")?;
    writeln!(
        doc,
        "| alpha | graphs | \\|F\\| (Table 5.1's definition) | thesis | mean range | thesis | mean std | thesis | r (L1) | r (L2) | r (Linf) |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for (i, alpha) in (2..=5).enumerate() {
        let s = feature_delta_stats(&problems, &samples, alpha)?;
        let c = s.correlation.clone();
        let r = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.3}"));
        writeln!(
            doc,
            "| {alpha} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} |",
            s.feature_len,
            s.feature_len_thesis.unwrap_or(0),
            THESIS_LEN[i],
            s.mean_range,
            THESIS_RANGE[i],
            s.mean_std,
            THESIS_STD[i],
            r(c.as_ref().and_then(|c| c.l1)),
            r(c.as_ref().and_then(|c| c.l2)),
            r(c.as_ref().and_then(|c| c.linf)),
        )?;
    }
    writeln!(
        doc,
        "\n\"graphs\" counts every feature graph the samples contain; Table 5.1 leaves out the five \
         predicate symbols' single-vertex graphs (each counts 1 in every state), and then ours equal the \
         thesis's (`crates/graphlearn/tests/table51.rs`). The thesis prints correlations only in a figure \
         (\"high in all cases\", slightly lower for alpha > 3).\n"
    )?;

    // Leave-one-out with the adjustment experiment.
    let modes = [Adjustment::Min, Adjustment::Avg, Adjustment::Shift];
    let settings = ProtocolSettings {
        configurations: vec![
            Configuration { alpha: 3, loss: Loss::Mse, ff_input: true },
            Configuration { alpha: 3, loss: Loss::LogMse, ff_input: true },
        ],
        hidden: vec![64, 32],
        dropout: vec![0.1],
        train: TrainSettings { patience: 20, max_epochs: 300, max_seconds: Some(5.0), ..TrainSettings::default() },
        time_s: Some(time),
        max_evaluations: Some(2_000_000),
        baselines: vec!["ff".into(), "goalcount".into()],
        seed: 1,
        adjustments: vec![],
        value_adjustments: ["goalcount", "ff"]
            .iter()
            .flat_map(|h| modes.map(|mode| ValueAdjustment { heuristic: h.to_string(), mode }))
            .collect(),
    };
    let source = SampleSource::Given(samples);
    let mut rows: Vec<RunRow> = vec![];
    let mut fits: Vec<(String, FitStats)> = vec![];
    let loo = Instant::now();
    for held_out in 0..problems.len() {
        let fold = run_fold(&problems, &source, held_out, &settings)?;
        eprintln!("{} done ({:.0} s)", fold.held_out, loo.elapsed().as_secs_f64());
        rows.extend(fold.rows);
        fits.extend(fold.fits);
    }
    let loo_s = loo.elapsed().as_secs_f64();
    writeln!(doc, "## Coverage and IPC scores (leave-one-out, 27 problems)\n")?;
    writeln!(
        doc,
        "| configuration | solved | IPC time | IPC length | IPC expansions | states adjusted | fell back to plain h |\n|---|---|---|---|---|---|---|"
    )?;
    for s in scores(&rows) {
        let mine: Vec<&RunRow> = rows.iter().filter(|r| r.configuration == s.configuration).collect();
        let (adj, fb): (u64, u64) = mine.iter().fold((0, 0), |(a, f), r| (a + r.adjusted, f + r.fallbacks));
        let share =
            if adj + fb > 0 { format!("{fb} ({:.1}%)", 100.0 * fb as f64 / (adj + fb) as f64) } else { "—".into() };
        writeln!(
            doc,
            "| {} | {}/{} | {:.2} | {:.2} | {:.2} | {} | {share} |",
            s.configuration,
            s.coverage,
            s.problems,
            s.time,
            s.length,
            s.expansions,
            if adj + fb > 0 { adj.to_string() } else { "—".into() }
        )?;
    }
    writeln!(
        doc,
        "\nThesis (5.4.4, blocks, 30 minutes): a4-logmse+ff solved 26 of 27, A* with hFF 8; on Figures \
         5.10/5.11 (numbers not in the text) goal count's h_min = h_shift beat goal count in everything but \
         plan length, and hFF's adjustments changed little. Here A* with hFF solves far more than the \
         thesis's 8 of 27 (in {time} s, against 30 minutes), so the learned heuristics' lead over hFF is a \
         problem or two, not the thesis's 18; the thesis does not say how its hFF or A* broke ties, so the \
         cause is not established. Searches cut by the time limit depend on the machine's load: solved \
         counts moved by one between two runs of this command on the shared cores. \"States adjusted\" and \
         \"fell back\" count evaluated states whose value's Delta-set the other problems' samples held, \
         and those whose it did not (plain h kept).\n"
    )?;

    writeln!(doc, "## Fit to the training samples (5.4.3), mean over the 27 folds\n")?;
    writeln!(doc, "| configuration | MAE | 80% quantile of abs. error | least error | greatest error | mean ratio | greatest ratio |\n|---|---|---|---|---|---|---|")?;
    for name in ["a3-mse+ff", "a3-logmse+ff"] {
        let f: Vec<&FitStats> = fits.iter().filter(|(n, _)| n == name).map(|(_, f)| f).collect();
        if f.is_empty() {
            continue;
        }
        let mean = |g: fn(&FitStats) -> f64| f.iter().map(|x| g(x)).sum::<f64>() / f.len() as f64;
        let lo = f.iter().map(|x| x.min_diff).fold(f64::INFINITY, f64::min);
        let hi = f.iter().map(|x| x.max_diff).fold(f64::NEG_INFINITY, f64::max);
        let rmax = f.iter().map(|x| x.ratio_max).fold(1.0, f64::max);
        writeln!(
            doc,
            "| {name} | {:.2} | {:.2} | {lo:.1} | {hi:.1} | {:.2} | {rmax:.2} |",
            mean(|x| x.mae),
            mean(|x| x.p80_abs),
            mean(|x| x.ratio_mean)
        )?;
    }
    writeln!(doc, "| thesis a4-logmse+ff | 0.75 | 1.19 | -21.6 | 18.6 | 1.05 | 5.62 |\n")?;

    writeln!(doc, "## Error by target, MSE against LogMSE (5.5), over every fold's training samples\n")?;
    writeln!(
        doc,
        "| target | n | MAE, MSE | MAE, LogMSE | mean output, MSE | mean output, LogMSE |\n|---|---|---|---|---|---|"
    )?;
    let by_target = |name: &str| {
        let mut m: std::collections::BTreeMap<u64, (u64, f64, f64)> = Default::default();
        for (_, f) in fits.iter().filter(|(n, _)| n == name) {
            for t in &f.by_target {
                let e = m.entry(t.target as u64).or_default();
                e.0 += t.n;
                e.1 += t.mae * t.n as f64;
                e.2 += t.mean_output * t.n as f64;
            }
        }
        m
    };
    let (mse, log) = (by_target("a3-mse+ff"), by_target("a3-logmse+ff"));
    for (target, (n, mae, out)) in &mse {
        if let Some((n2, mae2, out2)) = log.get(target) {
            let n_f = *n as f64;
            let n2_f = *n2 as f64;
            if target % 5 == 0 || *target <= 5 {
                writeln!(
                    doc,
                    "| {target} | {n} | {:.2} | {:.2} | {:.2} | {:.2} |",
                    mae / n_f,
                    mae2 / n2_f,
                    out / n_f,
                    out2 / n2_f
                )?;
            }
        }
    }
    writeln!(
        doc,
        "\n(Targets 0-5 and every fifth.) The thesis (5.5, figures only): MSE errs about ±1-2 across targets; \
         LogMSE is more accurate on small targets, which matter most near the goal.\n"
    )?;
    writeln!(
        doc,
        "## Cost\n\nThis page: {:.0} s in all ({loo_s:.0} s of leave-one-out), on the development machine \
         (2 shared cores).\n",
        started.elapsed().as_secs_f64()
    )?;
    writeln!(doc, "## The thesis-faithful grid on the farm, and its economy variant\n")?;
    // The cost model prices graph jobs from defaults that do not read the
    // grid's limits, so the faithful grid's bound is worked out here.
    let (folds, searches) = (12 * 27, 12 * 27 + 27 * 6 + 2 * 27);
    writeln!(
        doc,
        "`grids/graphlearn-ipc-blocks-thesis.toml` is the thesis's experiment (27 problems, 12 configurations, \
         the thesis's network with patience 1000, 30-minute A*, the adjustment experiment); \
         `grids/graphlearn-ipc-blocks-thesis-economy.toml` keeps its problems, configurations and adjustment \
         experiment and cuts samples, network and search time. The dry-run projections below price graph jobs \
         from the cost model's defaults, which do not read a grid's limits, so for the faithful grid they are \
         far too low. Its bound: {folds} folds each training a 256-512-128-64-32 network to patience 1000 (the \
         thesis: 175 GPU-hours for blocks, about 0.5 per network) and {searches} searches (a network's per \
         fold, 6 value-adjusted and 2 baselines per problem) of up to 30 minutes, {:.0} CPU-hours at most; and \
         12 bootstraps (one per configuration, over all 27 problems) of up to 10 rounds of IDA* for L minutes per problem, {:.0} CPU-hours at most.\n",
        searches as f64 * 0.5,
        12.0 * 27.0 * 55.0 / 60.0
    )?;
    match &hfarm {
        Some(bin) => {
            for grid in ["graphlearn-ipc-blocks-thesis", "graphlearn-ipc-blocks-thesis-economy"] {
                let o = std::process::Command::new(bin)
                    .args(["submit", "--dry-run", &format!("grids/{grid}.toml")])
                    .current_dir(root)
                    .output()?;
                // The dry run prints its table on stderr.
                let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
                writeln!(doc, "`hfarm submit --dry-run grids/{grid}.toml`:\n\n```text\n{}\n```\n", text.trim_end())?;
            }
        }
        None => writeln!(doc, "(Run with `--hfarm PATH` for `hfarm submit --dry-run` of both grids.)\n")?,
    }
    std::fs::write(format!("{root}/{out}"), &doc)?;
    eprintln!("wrote {out}");
    Ok(())
}
