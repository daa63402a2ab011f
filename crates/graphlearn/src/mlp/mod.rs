//! The thesis's network, hand-written in f32 (section 5): input |F_alpha|
//! (+1 with h_FF as a feature), hidden layers 256-512-128-64-32 with ReLU,
//! Xavier initialisation, dropout, one linear output; Adam; MSE or LogMSE;
//! early stopping on a validation split keeping the best network.
//!
//! - [`net`]: layers, inference (allocation-free), training passes.
//! - [`kernels`]: the inner loops, with an AVX2+FMA path.
//! - [`loss`], [`adam`], [`scaling`] (feature standardisation), [`train`].
//!
//! The thesis shows its three dropout layers only in a figure that did not
//! survive; here they follow the first three hidden layers, at rate 0.1
//! ([`THESIS_DROPOUT`]).

pub mod adam;
pub mod kernels;
pub mod loss;
pub mod net;
pub mod scaling;
pub mod train;

pub use adam::AdamSettings;
pub use loss::Loss;
pub use net::{Mlp, Workspace};
pub use scaling::Scaling;
pub use train::{train, Dataset, TrainReport, TrainSettings};

/// Hidden layer widths of the thesis's network.
pub const THESIS_HIDDEN: [usize; 5] = [256, 512, 128, 64, 32];

/// Dropout after the first three hidden layers at 0.1: our choice, the
/// thesis's figure with the rates and positions is lost.
pub const THESIS_DROPOUT: [f32; 3] = [0.1, 0.1, 0.1];
