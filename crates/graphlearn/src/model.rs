//! A trained model: settings, the frozen feature vocabulary, the input
//! scaling and the network, stored together (serde) so that a model read
//! back turns states into exactly the inputs it was trained on.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use subgraphs::{DomainSymbols, Vocabulary};

use crate::features::{input_row, StateFeatures};
use crate::mlp::{train, Dataset, Loss, Mlp, Scaling, TrainReport, TrainSettings, Workspace};
use crate::mlp::{THESIS_DROPOUT, THESIS_HIDDEN};
use crate::Error;

/// What a model is: the feature size alpha, the loss, whether h_FF is an
/// input, and the network's hidden widths and dropout rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSettings {
    pub alpha: usize,
    pub loss: Loss,
    /// h_FF as one more input (thesis: "with h_FF as a feature").
    pub ff_input: bool,
    pub hidden: Vec<usize>,
    /// Dropout rate after each hidden layer, in order (shorter: none after the rest).
    pub dropout: Vec<f32>,
}

impl ModelSettings {
    /// The thesis's network (256-512-128-64-32, dropout 0.1 after the first three).
    pub fn thesis(alpha: usize, loss: Loss, ff_input: bool) -> ModelSettings {
        ModelSettings { alpha, loss, ff_input, hidden: THESIS_HIDDEN.to_vec(), dropout: THESIS_DROPOUT.to_vec() }
    }

    /// The configuration's name in rows and tables: `a3-logmse+ff`, `a2-mse`.
    pub fn name(&self) -> String {
        format!("a{}-{}{}", self.alpha, self.loss, if self.ff_input { "+ff" } else { "" })
    }
}

/// One training example: a state's features and its label.
#[derive(Debug, Clone, Copy)]
pub struct Example<'a> {
    pub features: &'a StateFeatures,
    pub h_star: f64,
}

/// A trained network with everything needed to read states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Stored")]
pub struct Model {
    pub settings: ModelSettings,
    pub vocabulary: Vocabulary,
    pub scaling: Scaling,
    pub net: Mlp,
    pub report: TrainReport,
}

#[derive(Deserialize)]
struct Stored {
    settings: ModelSettings,
    vocabulary: Vocabulary,
    scaling: Scaling,
    net: Mlp,
    report: TrainReport,
}

impl TryFrom<Stored> for Model {
    type Error = Error;
    fn try_from(s: Stored) -> Result<Model, Error> {
        let width = s.vocabulary.len() + usize::from(s.settings.ff_input);
        if s.net.inputs() != width || s.scaling.width() != width {
            return Err(Error::Model(format!(
                "the network reads {} inputs and the scaling has {}, but the vocabulary and h_FF make {width}",
                s.net.inputs(),
                s.scaling.width()
            )));
        }
        if s.vocabulary.alpha() != s.settings.alpha {
            return Err(Error::Model(format!(
                "vocabulary of alpha {} in a model of alpha {}",
                s.vocabulary.alpha(),
                s.settings.alpha
            )));
        }
        Ok(Model { settings: s.settings, vocabulary: s.vocabulary, scaling: s.scaling, net: s.net, report: s.report })
    }
}

impl Model {
    /// Trains a model on `examples` (features of states of one domain,
    /// counted up to at least `settings.alpha`): the vocabulary is the
    /// graphs the examples contain, the scaling their mean and deviation.
    ///
    /// The output bias starts at the targets' mean (for LogMSE, the mean
    /// in log space): h* runs to tens while a fresh network outputs about
    /// 0, and Adam's small steps would spend many epochs only on that
    /// offset. (Our choice; the thesis does not say.)
    pub fn fit(
        settings: &ModelSettings,
        train_settings: &TrainSettings,
        symbols: DomainSymbols,
        examples: &[Example],
        seed: u64,
    ) -> Result<Model, Error> {
        if examples.is_empty() {
            return Err(Error::Input("no training examples".into()));
        }
        if let Some(e) = examples.iter().find(|e| !(e.h_star.is_finite() && e.h_star >= 0.0)) {
            return Err(Error::Input(format!("label {} is not a finite cost", e.h_star)));
        }
        let vocabulary = Vocabulary::build(symbols, settings.alpha, examples.iter().map(|e| &e.features.counts))?;
        let width = vocabulary.len() + usize::from(settings.ff_input);
        if width == 0 {
            return Err(Error::Input("the examples contain no feature graph".into()));
        }
        let mut data = Dataset { width, x: Vec::with_capacity(examples.len() * width), y: vec![] };
        let mut row = vec![];
        for e in examples {
            input_row(&vocabulary, e.features, settings.ff_input, &mut row)?;
            data.x.extend_from_slice(&row);
            data.y.push(e.h_star as f32);
        }
        let scaling = Scaling::fit(&data.x, width);
        scaling.apply(&mut data.x);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut net = Mlp::new(width, &settings.hidden, &settings.dropout, &mut rng)?;
        let n = data.y.len() as f64;
        let start = match settings.loss {
            Loss::Mse => data.y.iter().map(|&y| y as f64).sum::<f64>() / n,
            Loss::LogMse => (data.y.iter().map(|&y| (1.0 + y as f64).ln()).sum::<f64>() / n).exp() - 1.0,
        };
        if let Some(last) = net.layers_mut().last_mut() {
            last.bias[0] = start as f32;
        }
        let report = train(&mut net, &data, settings.loss, train_settings, &mut rng)?;
        Ok(Model { settings: settings.clone(), vocabulary, scaling, net, report })
    }

    /// Inputs per state.
    pub fn input_width(&self) -> usize {
        self.net.inputs()
    }

    /// The estimate for one state (clipped at 0) and the occurrences of
    /// graphs its vocabulary lacks. Allocates: for tests and tools; search
    /// goes through [`crate::heuristic::LearnedHeuristic`].
    pub fn predict(&self, f: &StateFeatures) -> Result<(f64, usize), Error> {
        let mut row = vec![];
        let unknown = input_row(&self.vocabulary, f, self.settings.ff_input, &mut row)?;
        self.scaling.apply(&mut row);
        let y = self.net.infer(&row, &mut Workspace::default());
        Ok(((y as f64).max(0.0), unknown))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model serialises")
    }

    pub fn from_json(text: &str) -> Result<Model, Error> {
        serde_json::from_str(text).map_err(|e| Error::Model(e.to_string()))
    }
}
