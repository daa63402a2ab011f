//! blocksworld-4ops: `blocksworld.sh 4ops BLOCKS SEED` runs
//! `2pddl -d <(bwstates -s 2 -n BLOCKS -r SEED) -n BLOCKS`
//! (`pddl_generators/__blocksworld/blocksworld.sh:18`): bwstates draws two
//! states uniformly at random, the first is the initial state and the second
//! the goal (`4ops/2pddl/2pddl.c:74-82`).
//!
//! bwstates (`bwstates.1/bwstates.c`, Slaney & Thiébaux) mixes float and
//! double arithmetic, and which one is used where decides which block goes
//! where; each step below says which, as the C code does (x86-64, SSE: a
//! float expression is computed in single precision).

use super::drand48::Drand48;

/// `SIZE = 200` in bwstates.1/Makefile (`-DSZ=$(SIZE)`); bwstates refuses more
/// (`bwstates.c:98`), and 2pddl then waits forever for its input.
pub const MAX_BLOCKS: u32 = 200;

pub fn generate(blocks: u32, seed: u64) -> Result<String, String> {
    if blocks > MAX_BLOCKS {
        return Err(format!(
            "pddl-generators' bwstates is built for at most {MAX_BLOCKS} blocks (its Makefile's SIZE), got {blocks}"
        ));
    }
    let n = blocks as usize;
    let ratio = make_ratio(n);
    // bwstates reads `-r` as a long (`bwstates.c:93`) and seeds after the table.
    let mut rng = Drand48::srand48(seed as i64);
    let initial = make_state(n, &ratio, &mut rng)?;
    let goal = make_state(n, &ratio, &mut rng)?;
    Ok(to_pddl(&initial, &goal))
}

/// `pos` (`bwstates.c:114`): row x of the half-size table of ratios.
fn pos(n: usize, x: usize, y: usize) -> usize {
    x * (n + 2 - x) + y
}

/// `make_ratio` (`bwstates.c:159`): g(n, k+1)/g(n, k) in doubles, stored as
/// floats for even n only.
fn make_ratio(n: usize) -> Vec<f32> {
    let mut ratio = vec![0f32; pos(n, n / 2, n) + 2];
    let mut temp = vec![1f64; n + 2];
    for m in 0..=n {
        for k in 0..=n - m {
            if m == 0 {
                ratio[pos(n, 0, k)] = 1.0;
            } else {
                let (mf, kf) = (m as f64, k as f64);
                temp[k] = (temp[k] * (temp[k + 1] + mf + kf)) / (temp[k] + mf + kf - 1.0);
                if m % 2 == 0 {
                    ratio[pos(n, m / 2, k)] = temp[k] as f32;
                }
            }
        }
    }
    ratio
}

/// `Ratio` (`bwstates.c:130`), all in floats: odd rows from the even row below.
fn ratio_at(ratio: &[f32], n: usize, x: usize, y: usize) -> f32 {
    let z = pos(n, x / 2, y);
    if x % 2 == 1 {
        (ratio[z + 1] + x as f32 + y as f32) / (((1.0 / ratio[z]) * (x + y - 1) as f32) + 1.0)
    } else {
        ratio[z]
    }
}

/// A tower by its top and bottom blocks.
#[derive(Clone, Copy)]
struct Tower {
    top: i32,
    bottom: i32,
}

/// `make_state` (`bwstates.c:186`): each block's support (-1: the table).
fn make_state(n: usize, ratio: &[f32], rng: &mut Drand48) -> Result<Vec<i32>, String> {
    let mut on = vec![-1i32; n];
    let mut rooted = vec![Tower { top: -1, bottom: -1 }; n];
    let mut floating: Vec<Tower> = (0..n as i32).map(|x| Tower { top: x, bottom: x }).collect();
    let mut nrt = 0usize;
    // `while (sigma->nft--)`: the last floating tower goes somewhere.
    for nft in (0..n).rev() {
        let r = rng.drand48() as f32; // stored in a float
        let choice = nft + nrt;
        let rat = ratio_at(ratio, n, nft, nrt);
        let p = rat / (rat + choice as f32);
        let moving = floating[nft];
        if r <= p {
            rooted[nrt] = moving;
            nrt += 1;
        } else {
            // (r - p) is a float; (1.0 - p) / choice a double.
            let b = (((r - p) as f64) / ((1.0 - p as f64) / choice as f64)).floor() as i64;
            let to = usize::try_from(b).ok().filter(|&b| b <= choice);
            let Some(b) = to else { return Err(format!("bwstates drew destination {b} of {choice}")) };
            let target = if b < nrt { &mut rooted[b] } else { &mut floating[b - nrt] };
            on[moving.bottom as usize] = target.top;
            target.top = moving.top;
        }
    }
    Ok(on)
}

/// 2pddl's problem text (`4ops/2pddl/2pddl.c:91-122`); blocks are b1..bN and
/// bwstates prints a support as its index + 1 (0: the table).
fn to_pddl(initial: &[i32], goal: &[i32]) -> String {
    let n = initial.len();
    let mut s = format!("\n\n(define (problem BW-rand-{n})\n(:domain blocksworld-4ops)\n(:objects ");
    for i in 1..=n {
        s.push_str(&format!("b{i} "));
    }
    s.push_str(")\n(:init\n(arm-empty)");
    for (i, &under) in initial.iter().enumerate() {
        match under {
            -1 => s.push_str(&format!("\n(on-table b{})", i + 1)),
            u => s.push_str(&format!("\n(on b{} b{})", i + 1, u + 1)),
        }
    }
    // Clear: no other block on it (2pddl skips j == i).
    for i in 0..n {
        if !initial.iter().enumerate().any(|(j, &u)| j != i && u == i as i32) {
            s.push_str(&format!("\n(clear b{})", i + 1));
        }
    }
    s.push_str("\n)\n(:goal\n(and");
    for (i, &under) in goal.iter().enumerate() {
        if under != -1 {
            s.push_str(&format!("\n(on b{} b{})", i + 1, under + 1));
        }
    }
    s.push_str(")\n)\n)\n\n\n");
    s
}
