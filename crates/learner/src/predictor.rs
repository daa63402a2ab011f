//! A network with its variables and what its outputs mean: delta mu (plus
//! the residual heuristic) and sigma, the distribution of h* they define,
//! and the weights as bytes (what the farm stores).

use std::io::Cursor;

use tch::{nn, Device, Kind, Tensor};

use crate::config::{ModelConfig, SigmaMode};
use crate::distribution::{Dist, FIXED_SIGMA};
use crate::encode::Batch;
use crate::models::Network;
use crate::LearnError;

pub struct Predictor {
    pub config: ModelConfig,
    pub vs: nn::VarStore,
    net: Network,
}

/// Per-sample classical values a prediction needs (f64, [B]).
pub struct Side {
    /// The raw lower bound (NaN where the model has none).
    pub lower: Tensor,
    /// The residual base (0 where the model has none).
    pub residual: Tensor,
}

impl Side {
    pub fn new(lower: &[f64], residual: &[f64], device: Device) -> Side {
        Side { lower: Tensor::from_slice(lower).to(device), residual: Tensor::from_slice(residual).to(device) }
    }
}

impl Predictor {
    /// A network initialised from `seed` (`models::stacked`: per run, no
    /// process-global generator).
    pub fn new(config: ModelConfig, device: Device, seed: u64) -> Result<Predictor, LearnError> {
        let vs = nn::VarStore::new(device);
        let net = Network::new(&vs.root(), &config.shape, outputs(&config), &[seed])?;
        Ok(Predictor { config, vs, net })
    }

    /// A trained network from its stored weights.
    pub fn load(config: ModelConfig, weights: &[u8], device: Device) -> Result<Predictor, LearnError> {
        let mut p = Predictor::new(config, device, 0)?;
        p.set_weights(weights)?;
        Ok(p)
    }

    /// A network from named tensors as stored (a group's run, exported).
    pub fn from_tensors(
        config: ModelConfig,
        named: &[(String, Tensor)],
        device: Device,
    ) -> Result<Predictor, LearnError> {
        let mut p = Predictor::new(config, device, 0)?;
        p.copy_in(named, "")?;
        Ok(p)
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The distribution of h* for each sample of a batch.
    pub fn distribution(&self, batch: &Batch, side: &Side) -> Result<Dist, LearnError> {
        Ok(head(&self.config, &self.net.forward(batch)?, side))
    }

    /// Variables as stored (nn::Linear's layout), sorted by name.
    pub fn named_variables(&self) -> Vec<(String, Tensor)> {
        self.net.export(0)
    }

    /// The weights as bytes (libtorch's multi-tensor format).
    pub fn weights(&self) -> Result<Vec<u8>, LearnError> {
        save_tensors(&self.named_variables())
    }

    pub fn set_weights(&mut self, bytes: &[u8]) -> Result<(), LearnError> {
        let loaded = load_tensors(bytes, self.device())?;
        self.copy_in(&loaded, "")
    }

    /// Copies tensors named `prefix + variable name` into the variables.
    pub fn copy_in(&mut self, loaded: &[(String, Tensor)], prefix: &str) -> Result<(), LearnError> {
        self.net.import(0, loaded, prefix)
    }
}

/// Raw outputs per sample: delta mu, and sigma's when it is learned.
pub fn outputs(config: &ModelConfig) -> i64 {
    if config.sigma == SigmaMode::Learn {
        2
    } else {
        1
    }
}

/// What a network's raw outputs `out` [B, outputs] mean under `config`:
/// the distribution of h* per sample.
pub fn head(config: &ModelConfig, out: &Tensor, side: &Side) -> Dist {
    let out = out.to_kind(Kind::Double);
    let mu = out.select(1, 0) + &side.residual;
    let sigma = match config.sigma {
        // The paper's range for a predicted sigma: (0.1, 10.1).
        SigmaMode::Learn => out.select(1, 1).sigmoid() * 10.0 + 0.1,
        SigmaMode::Fixed => mu.ones_like() * FIXED_SIGMA,
    };
    let upper = side.lower.full_like(f64::NAN);
    Dist::new(config.family, &mu, &sigma, &side.lower, &upper)
}

pub fn save_tensors(named: &[(String, Tensor)]) -> Result<Vec<u8>, LearnError> {
    let mut buf = vec![];
    let cpu: Vec<(String, Tensor)> = named.iter().map(|(n, t)| (n.clone(), t.to(Device::Cpu))).collect();
    Tensor::save_multi_to_stream(&cpu, &mut buf).map_err(|e| LearnError::Internal(e.to_string()))?;
    Ok(buf)
}

pub fn load_tensors(bytes: &[u8], device: Device) -> Result<Vec<(String, Tensor)>, LearnError> {
    Tensor::load_multi_from_stream_with_device(Cursor::new(bytes), device)
        .map_err(|e| LearnError::Input(format!("unreadable weights: {e}")))
}
