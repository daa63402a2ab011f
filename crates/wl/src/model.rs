//! A trained WL model: the colour dictionary, the iterations it was built
//! with, which linear model it is (ridge regression of h*, or a pairwise
//! ranker) and its weights. Stored as JSON.

use serde::{Deserialize, Serialize};

use crate::refine::Dictionary;

/// The file format's name and version; a file of another format is refused.
pub const FORMAT: &str = "hfarm-wl-linear-1";

/// Which linear model the weights are. Both score a state by the same dot
/// product; they differ in what training asked of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Ridge regression of h* (`crate::ridge`). Files written before the
    /// ranker existed have no `kind` and are this.
    #[default]
    Ridge,
    /// Pairwise ranking along optimal plans (`crate::rank`): values are an
    /// order for GBFS, not estimates of h*.
    Rank,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Ridge, Kind::Rank];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Ridge => "ridge",
            Kind::Rank => "rank",
        }
    }

    pub fn parse(name: &str) -> Result<Kind, String> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| format!("unknown WL model kind {name:?}: expected ridge or rank"))
    }
}

/// What training saw and cost, stored with the model. Fields added later
/// default when absent, so older files still load.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TrainSummary {
    pub problems: usize,
    /// Problems A*+LM-cut solved within the limit (only these give states).
    pub solved: usize,
    pub states: usize,
    pub colours: usize,
    pub plan_seconds: f64,
    pub feature_seconds: f64,
    pub fit_seconds: f64,
    /// Mean squared error of the fit on its training states (ridge only:
    /// a ranker's values are not estimates of h*).
    pub train_mse: Option<f64>,
    pub cg_iterations: usize,
    /// Ranker: (good, bad) pairs asked (before deduplication); of the
    /// distinct ones, those of equal features (left out of the fit) and
    /// those ordered wrongly or tied after it; Newton steps.
    pub pairs: usize,
    pub tied_pairs: usize,
    pub violated_pairs: usize,
    pub newton_iterations: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ModelFile {
    format: String,
    #[serde(default)]
    kind: Kind,
    domain: String,
    iterations: usize,
    lambda: f64,
    /// Per iteration, (key, colour) sorted by key.
    colours: Vec<Vec<(u64, u32)>>,
    weights: Vec<f64>,
    bias: f64,
    summary: TrainSummary,
}

#[derive(Debug, Clone)]
pub struct Model {
    pub kind: Kind,
    /// The PDDL domain's name: a model is refused on tasks of another domain.
    pub domain: String,
    pub lambda: f64,
    pub dictionary: Dictionary,
    /// One per colour of the dictionary.
    pub weights: Vec<f64>,
    pub bias: f64,
    pub summary: TrainSummary,
}

impl Model {
    pub fn iterations(&self) -> usize {
        self.dictionary.iterations()
    }

    pub fn to_json(&self) -> String {
        let f = ModelFile {
            format: FORMAT.into(),
            kind: self.kind,
            domain: self.domain.clone(),
            iterations: self.iterations(),
            lambda: self.lambda,
            colours: self.dictionary.entries(),
            weights: self.weights.clone(),
            bias: self.bias,
            summary: self.summary.clone(),
        };
        serde_json::to_string(&f).expect("a model of plain numbers and strings serialises")
    }

    /// Reads a model file's text; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Model, String> {
        let f: ModelFile = serde_json::from_str(text).map_err(|e| format!("{file}: not a WL model file: {e}"))?;
        if f.format != FORMAT {
            return Err(format!("{file}: format {:?}, expected {FORMAT:?}", f.format));
        }
        if f.colours.len() != f.iterations + 1 {
            return Err(format!(
                "{file}: {} colour tables for {} iterations (expected {})",
                f.colours.len(),
                f.iterations,
                f.iterations + 1
            ));
        }
        let dictionary = Dictionary::from_entries(f.colours).map_err(|e| format!("{file}: {e}"))?;
        if dictionary.len() != f.weights.len() {
            return Err(format!("{file}: {} colours but {} weights", dictionary.len(), f.weights.len()));
        }
        if let Some(w) = f.weights.iter().chain([&f.bias]).find(|w| !w.is_finite()) {
            return Err(format!("{file}: weight {w} is not finite"));
        }
        Ok(Model {
            kind: f.kind,
            domain: f.domain,
            lambda: f.lambda,
            dictionary,
            weights: f.weights,
            bias: f.bias,
            summary: f.summary,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        let mut d = Dictionary::new(1);
        d.insert(0, 11);
        d.insert(1, 12);
        Model {
            kind: Kind::Rank,
            domain: "bw".into(),
            lambda: 0.5,
            dictionary: d,
            weights: vec![1.5, -2.0],
            bias: 0.25,
            summary: TrainSummary { states: 3, ..Default::default() },
        }
    }

    #[test]
    fn round_trips_and_refuses_inconsistent_files() {
        let m = model();
        let back = Model::from_json(&m.to_json(), "m.json").unwrap();
        assert_eq!(back.dictionary, m.dictionary);
        assert_eq!(back.weights, m.weights);
        assert_eq!(back.summary, m.summary);
        assert_eq!(back.kind, Kind::Rank);
        assert_eq!(back.bias, m.bias);
        // A file from before the ranker (no kind, no ranking fields, a plain
        // number for the MSE) is a ridge model.
        let old = m.to_json().replace("\"kind\":\"rank\",", "").replace("\"train_mse\":null", "\"train_mse\":0.5");
        assert!(!old.contains("kind"), "{old}");
        let back = Model::from_json(&old, "m.json").unwrap();
        assert_eq!(back.kind, Kind::Ridge);
        assert_eq!(back.summary.train_mse, Some(0.5));
        let text = m.to_json().replace("\"rank\"", "\"lasso\"");
        assert!(Model::from_json(&text, "m.json").unwrap_err().contains("lasso"));
        assert_eq!(Kind::parse("rank"), Ok(Kind::Rank));
        assert!(Kind::parse("svm").unwrap_err().contains("ridge or rank"));
        let text = m.to_json().replace("[1.5,-2.0]", "[1.5]");
        assert!(Model::from_json(&text, "m.json").unwrap_err().contains("2 colours but 1 weights"));
        let text = m.to_json().replace(FORMAT, "other");
        assert!(Model::from_json(&text, "m.json").unwrap_err().contains("expected"));
        assert!(Model::from_json("{", "m.json").unwrap_err().starts_with("m.json: not a WL model"));
    }
}
