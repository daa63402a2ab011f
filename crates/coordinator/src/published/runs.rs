//! The authors' per-run results (`reports/published/pddlsl-runs-test.csv` and
//! `pddlsl-runs-test2.csv`, embedded here): one row per training run of
//! IBM/pddlsl, a configuration and a seed, with the test MSE and NLL of its
//! best-validation-MSE and best-validation-NLL checkpoints. Written by
//! `tools/reference/pddlsl_runs.py` from sheet `results` of
//! `experiments/results_training.ods` (split `test`) and
//! `results_training2.ods` (split `test2`); the names are theirs, and
//! [`super::mapping`] puts them onto ours.

use serde::Serialize;

/// The name `--against` knows them by.
pub const NAME: &str = "pddlsl-runs";

/// The sheets: split, fixture file, its text.
pub const SHEETS: [(&str, &str, &str); 2] = [
    ("test", "pddlsl-runs-test.csv", include_str!("../../../../reports/published/pddlsl-runs-test.csv")),
    ("test2", "pddlsl-runs-test2.csv", include_str!("../../../../reports/published/pddlsl-runs-test2.csv")),
];

/// The columns of a fixture, in order (the sheets' names).
pub const HEADER: [&str; 16] = [
    "model",
    "domain",
    "dist",
    "sigma",
    "res",
    "l",
    "train_size",
    "decay",
    "exclude_self",
    "num_recursion_steps",
    "seed",
    "last_step",
    "best_mse_T_mse",
    "best_mse_T_nll",
    "best_nll_T_mse",
    "best_nll_T_nll",
];

/// The metrics of each checkpoint, in our report's names.
pub const METRICS: [&str; 2] = ["mse", "nll"];

const MODELS: [&str; 3] = ["RR", "NLM", "HGN"];
const DISTS: [&str; 2] = ["gaussian", "truncated"];
const SIGMAS: [&str; 2] = ["learn", "fixed"];

/// Which checkpoint of a run a metric was measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Checkpoint {
    /// Best validation MSE (`best_mse_T_*`).
    BestMse,
    /// Best validation NLL (`best_nll_T_*`).
    BestNll,
}

impl Checkpoint {
    pub const ALL: [Checkpoint; 2] = [Checkpoint::BestMse, Checkpoint::BestNll];

    pub fn as_str(self) -> &'static str {
        match self {
            Checkpoint::BestMse => "best_mse",
            Checkpoint::BestNll => "best_nll",
        }
    }

    /// The checkpoint [`Checkpoint::as_str`] names (as our `evaluations.checkpoint` does).
    pub fn parse(name: &str) -> Option<Checkpoint> {
        Checkpoint::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// A configuration as the sheets name it: every column that tells two of
/// their configurations apart (the others are constant per model; the script
/// checks it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct RunConfig {
    /// RR (the linear model), NLM or HGN.
    pub model: String,
    pub domain: String,
    /// gaussian or truncated.
    pub dist: String,
    /// learn or fixed.
    pub sigma: String,
    /// The residual: zero (none), ff, lmcut.
    pub res: String,
    /// The lower bound: lmcut, hmax, blind.
    pub l: String,
    /// Training instances: 400, or 100 (an unpublished block).
    pub train_size: u32,
    /// Weight decay as written: "0" or "0.01".
    pub decay: String,
    /// NLM only: "True" or "False".
    pub exclude_self: Option<String>,
    /// HGN only: 4, or 3 (an unpublished block).
    pub recursion_steps: Option<u32>,
}

/// One training run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    pub config: RunConfig,
    pub seed: u32,
    /// The step it trained to (40000 or 100000; one logistics HGN run stopped at 510).
    pub last_step: u64,
    /// Test values by checkpoint, then metric: best-MSE MSE, NLL; best-NLL MSE, NLL.
    pub values: [f64; 4],
}

impl Run {
    pub fn value(&self, checkpoint: Checkpoint, metric: &str) -> Option<f64> {
        let m = METRICS.iter().position(|m| *m == metric)?;
        Some(self.values[2 * (checkpoint as usize) + m])
    }
}

/// The runs of one sheet.
#[derive(Debug, Clone, Serialize)]
pub struct Sheet {
    /// test or test2.
    pub split: String,
    /// The fixture's file name.
    pub file: String,
    /// Its first comment line: repository, commit, file, sheet.
    pub source: String,
    pub runs: Vec<Run>,
}

/// Every sheet.
#[derive(Debug, Clone, Serialize)]
pub struct Runs {
    pub sheets: Vec<Sheet>,
}

/// Mean, sample std and count of one configuration's values over its seeds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stat {
    pub mean: f64,
    /// None with fewer than two values; exactly 0 when every value is the same.
    pub std: Option<f64>,
    pub n: usize,
}

impl Stat {
    pub fn of(values: &[f64]) -> Stat {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let std = match n {
            0 | 1 => None,
            _ if values.iter().all(|v| *v == values[0]) => Some(0.0),
            _ => Some((values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()),
        };
        Stat { mean, std, n }
    }
}

impl Sheet {
    /// The configurations in the order the fixture lists them, each with its runs.
    pub fn configurations(&self) -> Vec<(&RunConfig, Vec<&Run>)> {
        let mut out: Vec<(&RunConfig, Vec<&Run>)> = vec![];
        for r in &self.runs {
            match out.iter_mut().find(|(c, _)| **c == r.config) {
                Some((_, runs)) => runs.push(r),
                None => out.push((&r.config, vec![r])),
            }
        }
        out
    }
}

/// Reads one fixture: `#` comment lines, the header ([`HEADER`]), then one
/// run per line. Errors name the file, the line and the column.
pub fn parse_sheet(file: &str, split: &str, text: &str) -> Result<Sheet, String> {
    let mut source = None;
    let mut header_seen = false;
    let mut runs = vec![];
    for (i, line) in text.lines().enumerate() {
        let at = |e: String| format!("{file}:{}: {e}", i + 1);
        if let Some(comment) = line.strip_prefix('#') {
            if header_seen {
                return Err(at("a comment after the header".into()));
            }
            source.get_or_insert_with(|| comment.trim().to_string());
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        if !header_seen {
            if fields != HEADER {
                return Err(at(format!("expected the header {}", HEADER.join(","))));
            }
            header_seen = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if fields.len() != HEADER.len() {
            return Err(at(format!("{} fields, expected {}", fields.len(), HEADER.len())));
        }
        let get = |name: &str| fields[HEADER.iter().position(|h| *h == name).unwrap_or(0)];
        let bad = |name: &str, expected: &str| at(format!("{name} {:?}: expected {expected}", get(name)));
        let one_of = |name: &str, allowed: &[&str]| -> Result<String, String> {
            let v = get(name);
            if allowed.contains(&v) {
                Ok(v.to_string())
            } else {
                Err(bad(name, &format!("one of {}", allowed.join(", "))))
            }
        };
        let word = |name: &str| -> Result<String, String> {
            let v = get(name);
            if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                return Err(bad(name, "a name"));
            }
            Ok(v.to_string())
        };
        let int = |name: &str| get(name).parse::<u64>().map_err(|_| bad(name, "a whole number"));
        let optional = |name: &str| -> Option<&str> { Some(get(name)).filter(|v| !v.is_empty()) };
        let exclude_self = match optional("exclude_self") {
            None => None,
            Some(_) => Some(one_of("exclude_self", &["True", "False"])?),
        };
        let recursion_steps = match optional("num_recursion_steps") {
            None => None,
            Some(_) => Some(int("num_recursion_steps")? as u32),
        };
        if get("decay").parse::<f64>().is_err() {
            return Err(bad("decay", "a number"));
        }
        let config = RunConfig {
            model: one_of("model", &MODELS)?,
            domain: word("domain")?,
            dist: one_of("dist", &DISTS)?,
            sigma: one_of("sigma", &SIGMAS)?,
            res: word("res")?,
            l: word("l")?,
            train_size: int("train_size")? as u32,
            decay: get("decay").to_string(),
            exclude_self,
            recursion_steps,
        };
        let mut values = [0.0; 4];
        for (k, name) in HEADER[12..].iter().enumerate() {
            values[k] = get(name).parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad(name, "a number"))?;
        }
        let seed = int("seed")?;
        let seed = u32::try_from(seed).map_err(|_| bad("seed", "a seed below 2^32"))?;
        runs.push(Run { config, seed, last_step: int("last_step")?, values });
    }
    if !header_seen {
        return Err(format!("{file}: no header line ({})", HEADER.join(",")));
    }
    Ok(Sheet { split: split.to_string(), file: file.to_string(), source: source.unwrap_or_default(), runs })
}

/// The built-in sheets.
pub fn load() -> Result<Runs, String> {
    let sheets = SHEETS
        .iter()
        .map(|(split, file, text)| parse_sheet(file, split, text).map_err(|e| format!("built-in {NAME}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Runs { sheets })
}

/// Whether `split` names one of the sheets (None: any is fine).
pub fn check_split(runs: &Runs, split: Option<&str>) -> Result<(), String> {
    match split {
        Some(s) if !runs.sheets.iter().any(|sh| sh.split == s) => {
            let names: Vec<&str> = runs.sheets.iter().map(|sh| sh.split.as_str()).collect();
            Err(format!("{NAME} has no split {s}: {} (--published-table names their split)", names.join(", ")))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn the_fixtures_hold_every_run_five_seeds_per_configuration() {
        let runs = load().unwrap();
        let splits: Vec<(&str, usize)> = runs.sheets.iter().map(|s| (s.split.as_str(), s.runs.len())).collect();
        assert_eq!(splits, [("test", 2400), ("test2", 1920)]);
        for s in &runs.sheets {
            assert!(
                s.source.starts_with("IBM/pddlsl at b4c807ad2ed7f52443c590dc31bd0ed347a21e0c, experiments/"),
                "{}",
                s.source
            );
            assert!(s.source.ends_with(&format!("split {}.", s.split)), "{}", s.source);
            for (c, rs) in s.configurations() {
                let mut seeds: Vec<u32> = rs.iter().map(|r| r.seed).collect();
                seeds.sort();
                assert_eq!(seeds, [42, 100, 200, 300, 400], "{} {c:?}", s.split);
            }
        }
        // Runs per (domain, model), as the script prints them.
        let count = |s: &Sheet| {
            let mut m: BTreeMap<(String, String), usize> = BTreeMap::new();
            for r in &s.runs {
                *m.entry((r.config.domain.clone(), r.config.model.clone())).or_default() += 1;
            }
            m
        };
        let test = count(&runs.sheets[0]);
        let test2 = count(&runs.sheets[1]);
        for d in ["blocksworld", "ferry", "gripper", "visitall"] {
            let at = |m: &BTreeMap<(String, String), usize>, model: &str| m[&(d.to_string(), model.to_string())];
            assert_eq!((at(&test, "RR"), at(&test, "NLM"), at(&test, "HGN")), (80, 320, 120), "test {d}");
            assert_eq!((at(&test2, "RR"), at(&test2, "NLM"), at(&test2, "HGN")), (80, 320, 80), "test2 {d}");
        }
        // The small test split also has satellite and logistics, linear and HGN.
        for d in ["satellite", "logistics"] {
            assert_eq!(test[&(d.to_string(), "RR".to_string())], 80);
            assert_eq!(test[&(d.to_string(), "HGN".to_string())], 80);
        }
        assert_eq!((test.len(), test2.len()), (16, 12));
        assert_eq!(runs.sheets[0].configurations().len(), 480);
        assert_eq!(runs.sheets[1].configurations().len(), 384);
        let short: Vec<&Run> = runs.sheets.iter().flat_map(|s| &s.runs).filter(|r| r.last_step == 510).collect();
        assert_eq!(short.len(), 1);
        assert_eq!(short[0].config.domain, "logistics");
    }

    /// Their Table 1 is test2, NLM, decay 0.01, exclude_self False, best-MSE:
    /// the runs give its cells back (docs/pddlsl-code-vs-paper.md, section 1).
    #[test]
    fn the_runs_give_table_1_back() {
        let runs = load().unwrap();
        let test2 = &runs.sheets[1];
        let cell = |domain: &str, dist: &str, sigma: &str, res: &str, metric: &str| {
            let values: Vec<f64> = test2
                .runs
                .iter()
                .filter(|r| {
                    let c = &r.config;
                    (c.model.as_str(), c.domain.as_str(), c.dist.as_str(), c.sigma.as_str(), c.res.as_str())
                        == ("NLM", domain, dist, sigma, res)
                        && c.l == "lmcut"
                        && c.train_size == 400
                        && c.decay == "0.01"
                        && c.exclude_self.as_deref() == Some("False")
                })
                .map(|r| r.value(Checkpoint::BestMse, metric).unwrap())
                .collect();
            assert_eq!(values.len(), 5);
            Stat::of(&values)
        };
        // As printed: mean and std to their last digit (mean_unit, std_unit).
        let near = |s: Stat, mean: f64, mean_unit: f64, std: f64, std_unit: f64| {
            (s.mean - mean).abs() <= mean_unit / 2.0 && (s.std.unwrap() - std).abs() <= std_unit / 2.0
        };
        let s = cell("blocksworld", "gaussian", "learn", "ff", "mse");
        assert!(near(s, 0.76, 0.01, 0.1, 0.1), "blocks learn/hFF N .76±.1: {s:?}");
        let s = cell("ferry", "gaussian", "learn", "zero", "mse");
        assert!(near(s, 141.05, 0.01, 29.4, 0.1), "ferry learn/none N 141.05±29.4: {s:?}");
        let s = cell("gripper", "truncated", "fixed", "zero", "mse");
        assert!(near(s, 11.97, 0.01, 2.2, 0.1), "gripper fixed/none TN 11.97±2.2: {s:?}");
        // A fixed σ = √2 Gaussian: NLL = MSE/4 + ln(2√π) on each run.
        for r in test2.runs.iter().filter(|r| r.config.dist == "gaussian" && r.config.sigma == "fixed") {
            let (mse, nll) = (r.values[0], r.values[1]);
            let want = mse / 4.0 + (2.0 * std::f64::consts::PI.sqrt()).ln();
            assert!((nll - want).abs() <= 1e-5 * want.max(1.0), "{r:?}");
        }
    }

    #[test]
    fn stats_are_sample_std_and_an_equal_run_has_std_zero() {
        let s = Stat::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!((s.mean, s.n), (3.0, 5));
        assert!((s.std.unwrap() - 2.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(Stat::of(&[0.1, 0.1, 0.1]).std, Some(0.0));
        assert_eq!(Stat::of(&[0.7]).std, None);
    }

    #[test]
    fn bad_fixtures_are_refused_with_file_line_and_column() {
        let header = HEADER.join(",");
        let run = "NLM,gripper,gaussian,learn,ff,lmcut,400,0.01,False,,42,100000,1.5,2.5,1.6,2.4";
        let ok = format!("# source\n{header}\n{run}\n");
        let s = parse_sheet("f.csv", "test2", &ok).unwrap();
        assert_eq!(s.runs.len(), 1);
        assert_eq!(s.source, "source");
        assert_eq!(s.runs[0].value(Checkpoint::BestNll, "nll"), Some(2.4));
        assert_eq!(s.runs[0].config.exclude_self.as_deref(), Some("False"));
        for (from, to, why) in [
            ("NLM,", "MLP,", "f.csv:3: model \"MLP\": expected one of RR, NLM, HGN"),
            ("gaussian", "normal", "f.csv:3: dist \"normal\""),
            (",400,", ",4x0,", "f.csv:3: train_size \"4x0\": expected a whole number"),
            (",1.5,", ",nan,", "f.csv:3: best_mse_T_mse \"nan\": expected a number"),
            (",2.4", "", "f.csv:3: 15 fields, expected 16"),
            ("False,", "maybe,", "exclude_self \"maybe\""),
            ("# source\n", "", ""),
        ] {
            let text = ok.replacen(from, to, 1);
            match parse_sheet("f.csv", "test2", &text) {
                Err(e) => assert!(e.contains(why), "{from} -> {to}: {e}"),
                Ok(s) => assert!(why.is_empty() && s.source.is_empty(), "{from} -> {to} parsed"),
            }
        }
        let err = parse_sheet("f.csv", "test2", &ok.replacen("model,", "modell,", 1)).unwrap_err();
        assert!(err.starts_with("f.csv:2: expected the header model,domain"), "{err}");
        assert!(parse_sheet("f.csv", "t", "# only\n").unwrap_err().contains("no header"));
        let runs = load().unwrap();
        assert!(check_split(&runs, Some("test3")).unwrap_err().contains("test, test2"));
        assert!(check_split(&runs, Some("test")).is_ok());
    }
}
