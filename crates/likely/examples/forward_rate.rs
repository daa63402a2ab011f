//! Nanoseconds per forward pass of the 15-puzzle networks (128-20-2 FFNN,
//! 128-20-1 WUNN), the cost IDA* pays per node, and IDA*'s node rate with
//! the learned heuristic.
//!
//! `cargo run --release -p likely --example forward_rate`

use std::hint::black_box;
use std::time::Instant;

use likely::features::{Features, OneHotTiles};
use likely::heuristic::{LearnedHeuristic, Rule};
use likely::nn::{Ffnn, Outputs, Wunn};
use likely::rng::Stream;
use puzzles::search::{ida_star, Limits};
use puzzles::tiles::SlidingTile;
use puzzles::walk::random_walk;

/// This thread's time on a CPU (Linux's schedstat), so that a busy shared
/// machine does not inflate the figures; wall time where unavailable.
struct Clock {
    wall: Instant,
    cpu: Option<u64>,
}

fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

impl Clock {
    fn start() -> Clock {
        Clock { wall: Instant::now(), cpu: cpu_ns() }
    }
    /// Nanoseconds on a CPU since `start` (wall time without schedstat).
    fn ns(&self) -> f64 {
        match (self.cpu, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64,
            _ => self.wall.elapsed().as_nanos() as f64,
        }
    }
}

fn main() {
    let d = SlidingTile::new(4, 4).expect("the 15-puzzle");
    let mut f = OneHotTiles::new(&d);
    let mut rng = Stream::new(1, 0);
    let ffnn = Ffnn::new(128, 20, Outputs::MeanSigma, 0.025, 1e-3, &mut rng).expect("FFNN");
    let wunn = Wunn::new(128, 20, 10.0, 5, 0.01, &mut rng).expect("WUNN");
    let states: Vec<_> = (0..1024).map(|i| random_walk(&d, 200, i)).collect();
    let mut xs = vec![0.0f32; states.len() * 128];
    for (s, row) in states.iter().zip(xs.chunks_exact_mut(128)) {
        f.encode(s, row);
    }
    let reps = 2000;
    let n = (reps * states.len()) as f64;
    let mut hidden = [0.0f32; 20];

    let t = Clock::start();
    let mut acc = 0.0f32;
    for _ in 0..reps {
        for row in xs.chunks_exact(128) {
            acc += ffnn.predict(black_box(row), &mut hidden).mean;
        }
    }
    let ffnn_ns = t.ns() / n;
    black_box(acc);

    let mut actives: Vec<Vec<u32>> = Vec::new();
    for s in &states {
        let mut a = Vec::new();
        f.active(s, &mut a);
        actives.push(a);
    }
    let t = Clock::start();
    for _ in 0..reps {
        for a in &actives {
            acc += ffnn.predict_active(black_box(a), &mut hidden).mean;
        }
    }
    let active_ns = t.ns() / n;
    black_box(acc);

    let t = Clock::start();
    for _ in 0..reps {
        for row in xs.chunks_exact(128) {
            acc += wunn.mean_prediction(black_box(row), &mut hidden);
        }
    }
    let wunn_ns = t.ns() / n;
    black_box(acc);

    let mut x = [0.0f32; 128];
    let t = Clock::start();
    for _ in 0..reps {
        for s in &states {
            f.encode(black_box(s), &mut x);
            acc += x[0];
        }
    }
    let encode_ns = t.ns() / n;
    black_box(acc);

    let rule = Rule::test(0.95);
    let mut h = LearnedHeuristic::new(&ffnn, &mut f, rule).expect("heuristic");
    let t = Clock::start();
    let mut sum = 0u64;
    for _ in 0..reps {
        for s in &states {
            sum += h.value(black_box(s)) as u64;
        }
    }
    let h_ns = t.ns() / n;
    black_box(sum);

    let mut out = Vec::new();
    let m = 256;
    let t = Clock::start();
    wunn.epistemic(&xs[..m * 128], 100, &mut rng, &mut out);
    let sigma_us = t.ns() / m as f64 / 1000.0;

    // IDA* with the (untrained) heuristic, node-limited.
    let start = random_walk(&d, 1000, 7);
    let mut h = LearnedHeuristic::new(&ffnn, &mut f, Rule::Mean).expect("heuristic");
    let t = Clock::start();
    let r = ida_star(&d, &start, &mut h, &Limits { generated: Some(5_000_000), ..Limits::default() });
    let seconds = t.ns() / 1e9;
    let rate = r.generated as f64 / seconds;

    println!("15-puzzle, one input, single thread, CPU time:");
    println!("  FFNN 128-20-2 forward:           {ffnn_ns:7.1} ns");
    println!("  FFNN from the 32 active inputs:  {active_ns:7.1} ns");
    println!("  WUNN 128-20-1 mean forward:      {wunn_ns:7.1} ns");
    println!("  one-hot encoding (128 inputs):   {encode_ns:7.1} ns");
    println!("  h(alpha) = encode + FFNN + rule: {h_ns:7.1} ns");
    println!("  WUNN sigma_e, K = 100 samples:   {sigma_us:7.2} us");
    println!("  IDA* with the learned h: {} generated in {:.2} s = {:.2} M nodes/s", r.generated, seconds, rate / 1e6);
}
