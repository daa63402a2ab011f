//! Benchmark sets users expect, as data files under `fixtures/` (sources in
//! their headers).
//!
//! - [`korf100`]: Korf's (1985) 100 15-puzzle instances, with the optimal
//!   costs and Korf's IDA*+Manhattan node counts.
//! - [`korf_taylor24`]: Korf & Taylor's (1996) ten 24-puzzle instances, the
//!   first ten of Korf & Felner's (2002) fifty, with their optimal costs.
//!
//! The other forty of Korf & Felner's fifty are not here: no source we could
//! cite reliably was at hand, and their optimal costs (hours to days each
//! with the 6-6-6-6 PDBs) could not be checked here.

/// One benchmark instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The number in its source (Korf's 1..=100).
    pub id: u32,
    /// Cells, in the domain's convention.
    pub cells: Vec<u8>,
    /// The optimal cost as published.
    pub optimal: u32,
    /// Nodes generated in the source's own run (Korf: IDA* + Manhattan).
    pub published_generated: u64,
}

const KORF100: &str = include_str!("../fixtures/korf100.txt");

/// Korf's 100 15-puzzle instances, in order.
pub fn korf100() -> Vec<Instance> {
    parse(KORF100, "fixtures/korf100.txt", 16, true)
}

const KORF_TAYLOR24: &str = include_str!("../fixtures/korf-taylor24.txt");

/// Korf & Taylor's ten 24-puzzle instances, in order. Their source gives no
/// node counts of its own: `published_generated` is 0.
pub fn korf_taylor24() -> Vec<Instance> {
    parse(KORF_TAYLOR24, "fixtures/korf-taylor24.txt", 25, false)
}

/// A benchmark set by name, or part of it by ids (1-based, inclusive):
/// `korf100`, `korf-taylor24`, `korf100:1-10`, `korf100:7`; `cells` is the
/// domain's size, which the set must match. Errors say what was expected.
pub fn set(spec: &str, cells: usize) -> Result<Vec<Instance>, String> {
    let (name, range) = spec.split_once(':').map_or((spec, None), |(n, r)| (n, Some(r)));
    let (all, size) = match name {
        "korf100" => (korf100(), 16),
        "korf-taylor24" => (korf_taylor24(), 25),
        _ => {
            return Err(format!(
            "set `{spec}`: the known sets are korf100 (15-puzzle) and korf-taylor24 (24-puzzle), optionally NAME:A-B"
        ))
        }
    };
    if cells != size {
        return Err(format!("set `{name}` is a set of {}-puzzle states", size - 1));
    }
    let (lo, hi) = match range {
        None => (1, u32::MAX),
        Some(r) => {
            let (lo, hi) = r.split_once('-').unwrap_or((r, r));
            let n = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("set `{spec}`: expected {name}:A-B"));
            (n(lo)?, n(hi)?)
        }
    };
    let chosen: Vec<Instance> = all.into_iter().filter(|i| (lo..=hi).contains(&i.id)).collect();
    if chosen.is_empty() {
        return Err(format!("set `{spec}`: no instance has an id in {lo}-{hi}"));
    }
    Ok(chosen)
}

/// A fixture's lines: id, optimal cost, (nodes generated,) then the cells.
/// The fixtures are part of the crate and tested, so a malformed line is a
/// bug here, not user input.
fn parse(text: &str, file: &str, cells: usize, with_generated: bool) -> Vec<Instance> {
    let head = if with_generated { 3 } else { 2 };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let v: Vec<u64> = l.split_whitespace().map(|w| w.parse().expect("a number in a fixture")).collect();
            assert_eq!(v.len(), head + cells, "{file}: {head} numbers and {cells} cells per line");
            Instance {
                id: v[0] as u32,
                optimal: v[1] as u32,
                published_generated: if with_generated { v[2] } else { 0 },
                cells: v[head..].iter().map(|&c| c as u8).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Domain;
    use crate::tiles::{Manhattan, SlidingTile};

    /// Ids 1..n in order; every state a solvable state of the side x side
    /// puzzle; every optimal cost at least its Manhattan distance and of
    /// its parity (every move changes Manhattan distance by one: a typo in a
    /// cell or a cost shows up as a parity mismatch).
    fn check_against_manhattan(all: &[Instance], side: usize) {
        assert!(all.iter().enumerate().all(|(i, x)| x.id == i as u32 + 1));
        let d = SlidingTile::new(side, side).unwrap();
        for x in all {
            let s = d.state_from_cells(&x.cells).unwrap_or_else(|e| panic!("instance {}: {e}", x.id));
            let h = Manhattan::new(&d).value(&s);
            assert!(
                h <= x.optimal && (x.optimal - h).is_multiple_of(2),
                "instance {}: Manhattan {h} vs {}",
                x.id,
                x.optimal
            );
        }
    }

    #[test]
    fn korf100_is_complete_and_valid() {
        let all = korf100();
        assert_eq!(all.len(), 100);
        check_against_manhattan(&all, 4);
        assert_eq!(all.iter().map(|x| x.optimal).sum::<u32>(), 5305);
        assert_eq!(all[0].optimal, 57);
        assert_eq!(all[87].optimal, 65);
    }

    #[test]
    fn korf_taylor24_is_complete_and_consistent() {
        let all = korf_taylor24();
        assert_eq!(all.len(), 10);
        check_against_manhattan(&all, 5);
        assert_eq!(all.iter().map(|x| x.optimal).collect::<Vec<_>>(), [100, 95, 108, 98, 101, 96, 104, 97, 113, 114]);
    }
}
