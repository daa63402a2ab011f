//! Benchmark sets users expect, as data files under `fixtures/` (sources in
//! their headers).
//!
//! - [`korf100`]: Korf's (1985) 100 15-puzzle instances, with the optimal
//!   costs and Korf's IDA*+Manhattan node counts.
//! - [`korf_felner24`]: Korf & Felner's (2002) fifty 24-puzzle instances,
//!   with their optimal costs.
//! - [`korf_taylor24`]: Korf & Taylor's (1996) ten 24-puzzle instances, the
//!   first ten of Korf & Felner's fifty in another order, with their optimal
//!   costs (kept under its own name and numbering, which users cite; from an
//!   independent transcription, so the tests check the two sources agree).

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

const KORF_FELNER24: &str = include_str!("../fixtures/korf-felner24.txt");

/// Korf & Felner's fifty 24-puzzle instances, in order. Their source gives
/// no node counts: `published_generated` is 0.
pub fn korf_felner24() -> Vec<Instance> {
    parse(KORF_FELNER24, "fixtures/korf-felner24.txt", 25, false)
}

/// A set users name: its name, the domain whose states it holds, its loader.
struct Named {
    name: &'static str,
    domain: &'static str,
    load: fn() -> Vec<Instance>,
}

const SETS: &[Named] = &[
    Named { name: "korf100", domain: "15-puzzle", load: korf100 },
    Named { name: "korf-felner24", domain: "24-puzzle", load: korf_felner24 },
    Named { name: "korf-taylor24", domain: "24-puzzle", load: korf_taylor24 },
];

/// The named set of a spec (`NAME` or `NAME:A-B`), or an error listing them.
fn named(spec: &str) -> Result<&'static Named, String> {
    let name = spec.split_once(':').map_or(spec, |(n, _)| n);
    SETS.iter().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<String> = SETS.iter().map(|s| format!("{} ({})", s.name, s.domain)).collect();
        format!("set `{spec}`: the known sets are {}, optionally NAME:A-B", known.join(", "))
    })
}

/// The domain a set spec is made of: what `hfarm puzzle bench --set` opens.
pub fn set_domain(spec: &str) -> Result<&'static str, String> {
    named(spec).map(|s| s.domain)
}

/// A benchmark set by name, or part of it by ids (1-based, inclusive):
/// `korf100`, `korf-felner24`, `korf-taylor24`, `korf100:1-10`, `korf100:7`;
/// `cells` is the domain's size, which the set must match. Errors say what
/// was expected.
pub fn set(spec: &str, cells: usize) -> Result<Vec<Instance>, String> {
    let (name, range) = spec.split_once(':').map_or((spec, None), |(n, r)| (n, Some(r)));
    let &Named { domain, load, .. } = named(spec)?;
    let all = load();
    if all.first().is_some_and(|x| x.cells.len() != cells) {
        return Err(format!("set `{name}` is a set of {domain} states"));
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

    #[test]
    fn korf_felner24_is_complete_and_consistent() {
        let all = korf_felner24();
        assert_eq!(all.len(), 50);
        check_against_manhattan(&all, 5);
        // The paper's average optimal solution length over the fifty.
        assert_eq!(all.iter().map(|x| x.optimal).sum::<u32>(), 5039);
        assert_eq!(all.iter().map(|x| &x.cells).collect::<std::collections::HashSet<_>>().len(), 50);
    }

    /// Korf & Taylor's ten are Korf & Felner's first ten, from two
    /// independent transcriptions: same states, same costs.
    #[test]
    fn the_two_24_puzzle_sources_agree_on_their_ten() {
        let mut ten: Vec<_> = korf_felner24().into_iter().take(10).map(|x| (x.cells, x.optimal)).collect();
        let mut kt: Vec<_> = korf_taylor24().into_iter().map(|x| (x.cells, x.optimal)).collect();
        ten.sort();
        kt.sort();
        assert_eq!(ten, kt);
    }

    #[test]
    fn sets_by_name_and_range() {
        assert_eq!(set("korf-felner24:11-20", 25).unwrap().len(), 10);
        assert_eq!(set("korf100:7", 16).unwrap()[0].id, 7);
        assert!(set("korf-felner24", 16).unwrap_err().contains("24-puzzle"));
        assert!(set("korf-felner24:51-60", 25).unwrap_err().contains("no instance"));
        assert!(set("felner", 25).unwrap_err().contains("korf-felner24 (24-puzzle)"));
        assert_eq!(set_domain("korf-felner24:3"), Ok("24-puzzle"));
        assert_eq!(set_domain("korf100"), Ok("15-puzzle"));
        assert!(set_domain("nope").unwrap_err().contains("korf100 (15-puzzle)"));
    }
}
