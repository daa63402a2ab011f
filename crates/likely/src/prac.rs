//! GenerateTaskPrac (Algorithm 3) and LearnHeuristicPrac (Algorithm 4) of
//! the notes' sections 1.4-1.5, as a resumable state machine: a
//! [`Learner`] holds everything an outer iteration changes (networks with
//! their optimiser state, buffer, y^q, alpha, beta, UpdateBeta, the
//! iteration count), is serde-serialisable (a checkpoint), and
//! [`Learner::iteration`] runs one outer iteration.
//!
//! Where the paper's code differs from the pseudocode, the code is
//! followed (each place says so). Randomness: iteration n draws from
//! stream n + 1 of the run's seed (initialisation from stream 0), so a run
//! resumed from a checkpoint draws exactly what an uninterrupted one does,
//! and equal seeds and settings give equal learners when the searches are
//! limited by nodes (a time limit makes the plans depend on the machine).

use std::time::Instant;

use puzzles::domain::replay;
use puzzles::search::{ida_star, Limits, Status};
use puzzles::walk::random_walk_with;
use puzzles::{Domain, State};
use serde::{Deserialize, Serialize};

use crate::buffer::MemoryBuffer;
use crate::features::Features;
use crate::heuristic::{LearnedHeuristic, Rule, TARGET_SCALE};
use crate::nn::{Epistemic, Ffnn, Outputs, Wunn};
use crate::rng::Stream;
use crate::settings::{Model, Settings, TaskSource};
use crate::LikelyError;

/// A task GenerateTaskPrac (or a random walk) produced.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedTask {
    pub start: State,
    /// Moves walked from the goal.
    pub steps: u32,
    /// The largest sigma_e among the states walked to (None: no WUNN).
    pub sigma_e: Option<f32>,
}

/// Algorithm 3 as the code runs it (`SearchDomain.Generate(maxUncert,
/// nn, maxSteps)`): a backward walk from the goal that never undoes its
/// last move; at each step every child's sigma_e is estimated from `K`
/// WUNN samples and the next state is drawn from the softmax over the
/// children's sigma_e (the standard deviations, not variances). The walk
/// ends on the first state with sigma_e >= sqrt(epsilon) (sigma_e^2 >=
/// epsilon), or when the step counter reaches MaxSteps (the code returns
/// the current state then, after MaxSteps - 1 moves; the pseudocode says
/// nothing).
pub fn generate_task_prac<D: Domain, F: Features>(
    d: &D,
    features: &mut F,
    wunn: &Wunn,
    settings: &Settings,
    rng: &mut Stream,
) -> GeneratedTask {
    let threshold = settings.epsilon.sqrt() as f32;
    let n_in = features.inputs();
    let mut state = *d.goal();
    let mut undo: Option<D::Op> = None;
    let (mut count, mut steps, mut uncert) = (0u32, 0u32, 0.0f32);
    let mut children: Vec<(State, D::Op)> = Vec::new();
    let mut x: Vec<f32> = Vec::new();
    let mut sig: Vec<Epistemic> = Vec::new();
    let mut weights: Vec<f64> = Vec::new();
    while uncert < threshold {
        count += 1;
        if count >= settings.max_steps {
            break;
        }
        children.clear();
        for op in d.ops(&state) {
            if Some(op) == undo {
                continue;
            }
            let mut c = state;
            let back = d.apply(&mut c, op);
            children.push((c, back));
        }
        if children.is_empty() {
            break;
        }
        x.clear();
        x.resize(children.len() * n_in, 0.0);
        for ((c, _), row) in children.iter().zip(x.chunks_exact_mut(n_in)) {
            features.encode(c, row);
        }
        sig.clear();
        wunn.epistemic(&x, settings.k_samples, rng, &mut sig);
        // Softmax over sigma_e, shifted by the largest for overflow.
        let top = sig.iter().map(|e| e.sigma).fold(f32::NEG_INFINITY, f32::max);
        weights.clear();
        weights.extend(sig.iter().map(|e| ((e.sigma - top) as f64).exp()));
        let total = weights.iter().sum();
        let i = rng.weighted(&weights, total);
        state = children[i].0;
        undo = Some(children[i].1);
        uncert = uncert.max(sig[i].sigma);
        steps += 1;
    }
    GeneratedTask { start: state, steps, sigma_e: Some(uncert) }
}

/// A uniform random walk without immediate reversal (the code's
/// `Generate(steps)`): the task before the WUNN is first trained (one
/// step), and the efficiency baselines' tasks.
pub fn random_walk_task<D: Domain>(d: &D, steps: u32, rng: &mut Stream) -> GeneratedTask {
    GeneratedTask { start: random_walk_with(d, steps, rng.rng()), steps, sigma_e: None }
}

/// One training task of an iteration.
#[derive(Debug, Clone, Serialize)]
pub struct TaskReport {
    pub walk_steps: u32,
    pub sigma_e: Option<f32>,
    pub status: Status,
    pub cost: Option<u32>,
    pub initial_h: u32,
    pub generated: u64,
    pub expanded: u64,
    pub seconds: f64,
}

/// What one outer iteration did.
#[derive(Debug, Clone, Serialize)]
pub struct IterationReport {
    /// 1 for the first iteration.
    pub iteration: u32,
    pub tasks: Vec<TaskReport>,
    pub solved: usize,
    /// alpha the tasks were planned with, and after the adjustment.
    pub alpha_used: f64,
    pub alpha: f64,
    /// beta after the iteration, and whether it decayed in it.
    pub beta: f64,
    pub beta_decayed: bool,
    pub update_beta: bool,
    pub buffer_len: usize,
    pub buffer_added: usize,
    /// y^q after the iteration.
    pub y_q: Option<f64>,
    /// FFNN steps and its final max |10 yhat - y| over the buffer.
    pub ffnn_steps: u32,
    pub ffnn_max_error: Option<f32>,
    /// WUNN rounds trained and the largest sigma_e at the last check.
    pub wunn_rounds: u32,
    pub wunn_max_sigma: Option<f32>,
    pub seconds_tasks: f64,
    pub seconds_ffnn: f64,
    pub seconds_wunn: f64,
}

/// LearnHeuristicPrac's state between outer iterations: a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Learner {
    pub seed: u64,
    /// Outer iterations completed.
    pub iteration: u32,
    pub ffnn: Ffnn,
    /// Present when tasks come from GenerateTaskPrac.
    pub wunn: Option<Wunn>,
    pub buffer: MemoryBuffer,
    /// y^q in moves; None is the initial -inf.
    pub y_q: Option<f64>,
    pub alpha: f64,
    pub beta: f64,
    pub update_beta: bool,
    /// Whether the networks have been trained once (the code's
    /// `IsTrained`): before, tasks are 1-step walks and the WUNN's first
    /// training has no early stop.
    pub trained: bool,
}

/// Stream number of the initialisation; iteration n uses n + 1.
const INIT_STREAM: u64 = 0;

impl Learner {
    /// Algorithm 4's initialisation for networks of `inputs` inputs.
    pub fn new(settings: &Settings, inputs: usize, seed: u64) -> Result<Learner, LikelyError> {
        settings.validate()?;
        let mut rng = Stream::new(seed, INIT_STREAM);
        let outputs = match settings.model {
            Model::Mean => Outputs::Mean,
            Model::Quantile => Outputs::MeanSigma,
        };
        let ffnn = Ffnn::new(inputs, settings.hidden, outputs, settings.dropout, settings.ffnn_lr, &mut rng)?;
        let wunn = if settings.uses_wunn() {
            Some(Wunn::new(
                inputs,
                settings.hidden,
                settings.prior_variance,
                settings.wunn_samples,
                settings.wunn_lr,
                &mut rng,
            )?)
        } else {
            None
        };
        Ok(Learner {
            seed,
            iteration: 0,
            ffnn,
            wunn,
            buffer: MemoryBuffer::new(),
            y_q: None,
            alpha: settings.alpha0,
            beta: settings.beta0,
            update_beta: true,
            trained: false,
        })
    }

    /// The rule IDA* plans training tasks with (Algorithm 4, line 14).
    pub fn training_rule(&self, settings: &Settings) -> Rule {
        match settings.model {
            Model::Mean => Rule::Mean,
            Model::Quantile => Rule::training(self.alpha, self.y_q, settings.epsilon),
        }
    }

    /// The heuristic of the current FFNN under `rule`.
    pub fn heuristic<F: Features>(&self, features: F, rule: Rule) -> Result<LearnedHeuristic<'_, F>, LikelyError> {
        LearnedHeuristic::new(&self.ffnn, features, rule)
    }

    /// One outer iteration of LearnHeuristicPrac: generate and solve
    /// NumTasksPerIter tasks, adjust alpha and UpdateBeta, then (the code's
    /// `NNBayesHeuristic.Update`) add the plans to the buffer, train the
    /// FFNN, train the WUNN, update y^q.
    pub fn iteration<D: Domain, F: Features>(
        &mut self,
        d: &D,
        features: &mut F,
        settings: &Settings,
        limits: &Limits,
    ) -> Result<IterationReport, LikelyError> {
        settings.validate()?;
        if features.inputs() != self.ffnn.inputs()
            || self.wunn.as_ref().is_some_and(|w| w.inputs() != features.inputs())
        {
            return Err(LikelyError::Shape(format!(
                "{} features for networks of {} inputs",
                features.inputs(),
                self.ffnn.inputs()
            )));
        }
        if settings.uses_wunn() != self.wunn.is_some() {
            return Err(LikelyError::Settings("the task source does not match the learner's WUNN".into()));
        }
        let mut rng = Stream::new(self.seed, INIT_STREAM + 1 + self.iteration as u64);
        let rule = self.training_rule(settings);
        let alpha_used = self.alpha;

        // 1-2: tasks, solved with IDA* under h(alpha).
        let t0 = Instant::now();
        let mut tasks = Vec::with_capacity(settings.num_tasks_per_iter);
        let mut plans: Vec<Vec<State>> = Vec::new();
        for _ in 0..settings.num_tasks_per_iter {
            let task = match (settings.tasks, &self.wunn) {
                (TaskSource::Uncertainty, Some(w)) if self.trained => {
                    generate_task_prac(d, features, w, settings, &mut rng)
                }
                (TaskSource::RandomWalk { length_inc }, _) => {
                    random_walk_task(d, length_inc.saturating_mul(self.iteration + 1), &mut rng)
                }
                // Before the WUNN is trained: a 1-step walk (`new
                // DomainContainer(heuristic, 1)`).
                _ => random_walk_task(d, 1, &mut rng),
            };
            let mut h = LearnedHeuristic::new(&self.ffnn, &mut *features, rule)?;
            let r = ida_star(d, &task.start, &mut h, limits);
            if r.status == Status::Solved {
                plans.push(replay(d, &task.start, &r.plan));
            }
            tasks.push(TaskReport {
                walk_steps: task.steps,
                sigma_e: task.sigma_e,
                status: r.status,
                cost: r.cost,
                initial_h: r.initial_h,
                generated: r.generated,
                expanded: r.expanded,
                seconds: r.elapsed.as_secs_f64(),
            });
        }
        let seconds_tasks = t0.elapsed().as_secs_f64();
        let solved = plans.len();

        // Alpha and UpdateBeta (`Program.Train`, before `Update`).
        if solved < settings.num_tasks_per_iter_thresh {
            self.update_beta = false;
            if settings.model == Model::Quantile {
                self.alpha = (self.alpha - settings.alpha_delta).max(settings.alpha_min);
            }
        } else {
            self.update_beta = true;
        }

        // The buffer.
        let mut added = 0;
        for p in &plans {
            added += self.buffer.add_plan(p, settings.include_goal);
        }
        self.buffer.trim(settings.buffer_max);
        let mut report = IterationReport {
            iteration: self.iteration + 1,
            tasks,
            solved,
            alpha_used,
            alpha: self.alpha,
            beta: self.beta,
            beta_decayed: false,
            update_beta: self.update_beta,
            buffer_len: self.buffer.len(),
            buffer_added: added,
            y_q: self.y_q,
            ffnn_steps: 0,
            ffnn_max_error: None,
            wunn_rounds: 0,
            wunn_max_sigma: None,
            seconds_tasks,
            seconds_ffnn: 0.0,
            seconds_wunn: 0.0,
        };
        // The code returns from `Update` on an empty buffer: nothing is
        // trained and the networks stay untrained.
        if self.buffer.is_empty() {
            self.iteration += 1;
            return Ok(report);
        }
        let states = self.buffer.states(d)?;
        let n_in = features.inputs();
        let mut x = vec![0.0f32; states.len() * n_in];
        for (s, row) in states.iter().zip(x.chunks_exact_mut(n_in)) {
            features.encode(s, row);
        }
        let ys = self.buffer.targets();

        let t1 = Instant::now();
        let (steps, max_error) = self.train_ffnn(&x, &ys, settings, &mut rng)?;
        report.ffnn_steps = steps;
        report.ffnn_max_error = Some(max_error);
        report.seconds_ffnn = t1.elapsed().as_secs_f64();

        let t2 = Instant::now();
        if self.wunn.is_some() {
            let (rounds, max_sigma, decayed) = self.train_wunn(&x, &ys, settings, &mut rng)?;
            report.wunn_rounds = rounds;
            report.wunn_max_sigma = Some(max_sigma);
            report.beta_decayed = decayed;
            report.beta = self.beta;
        }
        report.seconds_wunn = t2.elapsed().as_secs_f64();

        self.y_q = self.buffer.quantile(settings.q);
        report.y_q = self.y_q;
        self.trained = true;
        self.iteration += 1;
        Ok(report)
    }

    /// The FFNN on the whole buffer (`NNBayesHeuristic.Update`): up to
    /// TrainIter full-batch steps on the buffer cycled to MemoryBuffer-
    /// MaxRecords rows (as row weights, [`cycle_weights`]), targets y/10;
    /// after each step the largest |10 yhat - y| over the buffer, stopping
    /// below 0.5 once more than two steps ran (`i > 1`). Returns the steps
    /// and the last largest error.
    fn train_ffnn(
        &mut self,
        x: &[f32],
        ys: &[u32],
        settings: &Settings,
        rng: &mut Stream,
    ) -> Result<(u32, f32), LikelyError> {
        let n = ys.len();
        let targets: Vec<f32> = ys.iter().map(|&y| y as f32 / TARGET_SCALE).collect();
        let weights = cycle_weights(n, settings.buffer_max);
        let mut hidden = vec![0.0f32; self.ffnn.hidden()];
        let n_in = self.ffnn.inputs();
        let (mut steps, mut max_error) = (0, f32::INFINITY);
        for i in 0..settings.train_iter {
            self.ffnn.train_step(x, &targets, &weights, rng)?;
            steps += 1;
            max_error = x
                .chunks_exact(n_in)
                .zip(ys)
                .map(|(row, &y)| (self.ffnn.predict(row, &mut hidden).mean * TARGET_SCALE - y as f32).abs())
                .fold(0.0, f32::max);
            if i > 1 && max_error < settings.train_stop_error {
                break;
            }
        }
        Ok((steps, max_error))
    }

    /// The WUNN (`NNBayesHeuristic.Update`): rounds of [sigma_e of every
    /// record from K samples; stop if trained before and every sigma_e <
    /// sqrt(kappa epsilon) (the code's 0.8 epsilon on the deviation);
    /// otherwise `wunn_steps_per_round` minibatch steps] up to
    /// `wunn_rounds` rounds (the code's `count > 100` allows 101; the
    /// paper's MaxTrainIter is 100 x 50). When all rounds ran, beta decays
    /// by gamma if the net was trained before and UpdateBeta holds.
    /// Minibatches are drawn with weights softmax(sigma_e), records with
    /// sigma_e at or below the threshold counting as -1, without
    /// replacement when the buffer holds more than a minibatch and with
    /// replacement otherwise, as the code's `SampleFromMemoryBuffer`. (The
    /// code renormalises by 1 - the last weight removed instead of by what
    /// remains, which biases later draws towards the last record; the
    /// draws here are exact.) Targets are y in moves.
    fn train_wunn(
        &mut self,
        x: &[f32],
        ys: &[u32],
        settings: &Settings,
        rng: &mut Stream,
    ) -> Result<(u32, f32, bool), LikelyError> {
        let Some(wunn) = self.wunn.as_mut() else { return Ok((0, 0.0, false)) };
        let n = ys.len();
        let n_in = wunn.inputs();
        let threshold = (settings.kappa * settings.epsilon).sqrt() as f32;
        let targets: Vec<f32> = ys.iter().map(|&y| y as f32).collect();
        let mut sig: Vec<Epistemic> = Vec::with_capacity(n);
        let mut weights = vec![0.0f64; n];
        let mut draw = vec![0.0f64; n];
        let batch = settings.minibatch;
        let mut bx = vec![0.0f32; batch * n_in];
        let mut by = vec![0.0f32; batch];
        let (mut rounds, mut max_sigma, mut decayed) = (0u32, 0.0f32, false);
        loop {
            if rounds >= settings.wunn_rounds {
                if self.trained && self.update_beta {
                    self.beta *= settings.gamma();
                    decayed = true;
                }
                break;
            }
            sig.clear();
            wunn.epistemic(x, settings.k_samples, rng, &mut sig);
            max_sigma = sig.iter().map(|e| e.sigma).fold(0.0, f32::max);
            if self.trained && max_sigma < threshold {
                break;
            }
            let logit = |s: f32| if s > threshold { s as f64 } else { -1.0 };
            let top = sig.iter().map(|e| logit(e.sigma)).fold(f64::NEG_INFINITY, f64::max);
            for (w, e) in weights.iter_mut().zip(&sig) {
                *w = (logit(e.sigma) - top).exp();
            }
            let total: f64 = weights.iter().sum();
            for _ in 0..settings.wunn_steps_per_round {
                draw.copy_from_slice(&weights);
                let mut left = total;
                for b in 0..batch {
                    let i = rng.weighted(&draw, left);
                    if n > batch {
                        left -= draw[i];
                        draw[i] = 0.0;
                        if left <= 0.0 {
                            // Rounding ate the remaining mass: renormalise.
                            left = draw.iter().sum();
                        }
                    }
                    bx[b * n_in..(b + 1) * n_in].copy_from_slice(&x[i * n_in..(i + 1) * n_in]);
                    by[b] = targets[i];
                }
                wunn.train_step(&bx, &by, self.beta as f32, rng)?;
            }
            rounds += 1;
        }
        Ok((rounds, max_sigma, decayed))
    }
}

/// The code's full batch is the buffer repeated (`GetRecords`) to exactly
/// `rows` rows; the mean gradient over it weighs record i by its copies /
/// `rows`: floor(rows / n), one more for the first rows mod n records.
pub fn cycle_weights(n: usize, rows: usize) -> Vec<f32> {
    if n == 0 {
        return Vec::new();
    }
    let rows = rows.max(n);
    let (base, extra) = (rows / n, rows % n);
    (0..n).map(|i| (base + (i < extra) as usize) as f32 / rows as f32).collect()
}

#[cfg(test)]
mod tests {
    use puzzles::tiles::SlidingTile;

    use super::*;
    use crate::features::OneHotTiles;

    #[test]
    fn cycled_rows_as_weights() {
        let w = cycle_weights(3, 10);
        assert_eq!(w, vec![0.4, 0.3, 0.3]);
        assert!((cycle_weights(7, 25_000).iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(cycle_weights(5, 2), vec![0.2; 5]);
    }

    #[test]
    fn generated_tasks_walk_until_uncertain() {
        let d = SlidingTile::new(3, 3).unwrap();
        let mut f = OneHotTiles::new(&d);
        let settings = Settings { max_steps: 30, ..Settings::tiny(Model::Quantile) };
        let mut rng = Stream::new(1, 0);
        let mut wunn = Wunn::new(f.inputs(), 8, 10.0, 5, 0.01, &mut rng).unwrap();
        // Posterior sigmas near zero: sigma_e ~ 0, the walk runs to
        // MaxSteps (MaxSteps - 1 moves, as the code counts).
        let p = wunn.params().len() / 2;
        for r in &mut wunn.params_mut()[p..] {
            *r = -30.0;
        }
        let t = generate_task_prac(&d, &mut f, &wunn, &settings, &mut rng);
        assert_eq!(t.steps, 29);
        assert!(t.sigma_e.unwrap() < 1e-3);
        // Huge sigmas: the first step is uncertain enough.
        for r in &mut wunn.params_mut()[p..] {
            *r = 3.0;
        }
        let t = generate_task_prac(&d, &mut f, &wunn, &settings, &mut rng);
        assert_eq!(t.steps, 1);
        assert!(t.sigma_e.unwrap() >= 1.0);
        assert_ne!(&t.start, d.goal());
        // Reproducible from the stream.
        let a = generate_task_prac(&d, &mut f, &wunn, &settings, &mut Stream::new(5, 5));
        let b = generate_task_prac(&d, &mut f, &wunn, &settings, &mut Stream::new(5, 5));
        assert_eq!(a, b);
    }
}
