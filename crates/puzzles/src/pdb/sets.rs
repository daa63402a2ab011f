//! Named pattern sets: which PDBs make a heuristic, and how they combine.
//!
//! A set is a list of groups; the PDBs of a group have disjoint patterns
//! and add up; the heuristic is the largest group sum (and, with
//! `reflect`, the larger of that on the state and on its mirror image).
//! Blocksworld PDBs are not additive: each is a group of its own.
//!
//! Sources:
//! - Korf & Felner, "Disjoint pattern database heuristics", Artificial
//!   Intelligence 134 (2002) 9-22: the 15-puzzle's 7-8 partition (tiles
//!   1-7, the top two rows; tiles 8-15, the bottom two) and the 24-puzzle's
//!   6-6-6-6 partition (1 2 5 6 7 12 | 3 4 8 9 13 14 | 10 11 15 16 20 21 |
//!   17 18 19 22 23 24: the centre tile with the top-left block, the other
//!   three 2x3 blocks rotations of one another), each also looked up on the
//!   reflection about the main diagonal (their "+r").
//! - Marom & Rosman, ICAPS 2020, supplement section 2 (and their code's
//!   file names): the 24-puzzle's two 5-5-5-5-4 sets (the supplement's set
//!   1 omits tile 19 from its last pattern, a typo the code does not have),
//!   the 24-pancake's two location-based 5-5-5-5-4 sets (the supplement
//!   numbers pancakes from 1, the code and we from 0), the 15-blocksworld's
//!   twelve 4-block patterns.

use super::artifact::Abstraction;
use crate::PuzzleError;

/// A named combination of PDBs for one domain.
#[derive(Debug)]
pub struct PatternSet {
    pub name: &'static str,
    pub domain: &'static str,
    pub description: &'static str,
    pub abstraction: Abstraction,
    pub groups: &'static [&'static [&'static [u8]]],
    /// Also look up the mirror image (square sliding-tile boards).
    pub reflect: bool,
}

impl PatternSet {
    /// Every distinct pattern, in first-use order.
    pub fn patterns(&self) -> Vec<&'static [u8]> {
        let mut out: Vec<&'static [u8]> = Vec::new();
        for p in self.groups.iter().flat_map(|g| g.iter()) {
            if !out.contains(p) {
                out.push(p);
            }
        }
        out
    }
}

const KF_7_8: &[&[&[u8]]] = &[&[&[1, 2, 3, 4, 5, 6, 7], &[8, 9, 10, 11, 12, 13, 14, 15]]];
const KF_6_6_6_6: &[&[&[u8]]] =
    &[&[&[1, 2, 5, 6, 7, 12], &[3, 4, 8, 9, 13, 14], &[10, 11, 15, 16, 20, 21], &[17, 18, 19, 22, 23, 24]]];

/// Every named set; the first listed for a domain is its default (`pdb`).
pub static SETS: &[&PatternSet] = &[
    &PatternSet {
        name: "4-4",
        domain: "8-puzzle",
        description: "tiles 1-4 and 5-8 (small, for tests and demonstrations)",
        abstraction: Abstraction::TilesAdditive,
        groups: &[&[&[1, 2, 3, 4], &[5, 6, 7, 8]]],
        reflect: false,
    },
    &PatternSet {
        name: "korf-felner-7-8",
        domain: "15-puzzle",
        description: "Korf & Felner (2002): tiles 1-7 and 8-15, additive",
        abstraction: Abstraction::TilesAdditive,
        groups: KF_7_8,
        reflect: false,
    },
    &PatternSet {
        name: "korf-felner-7-8+r",
        domain: "15-puzzle",
        description: "Korf & Felner (2002): the 7-8 partition and its reflection about the main diagonal (max)",
        abstraction: Abstraction::TilesAdditive,
        groups: KF_7_8,
        reflect: true,
    },
    &PatternSet {
        name: "korf-felner-6-6-6-6",
        domain: "24-puzzle",
        description: "Korf & Felner (2002): four 6-tile patterns, additive",
        abstraction: Abstraction::TilesAdditive,
        groups: KF_6_6_6_6,
        reflect: false,
    },
    &PatternSet {
        name: "korf-felner-6-6-6-6+r",
        domain: "24-puzzle",
        description: "Korf & Felner (2002): the 6-6-6-6 partition and its reflection (max)",
        abstraction: Abstraction::TilesAdditive,
        groups: KF_6_6_6_6,
        reflect: true,
    },
    &PatternSet {
        name: "marom-rosman",
        domain: "24-puzzle",
        description: "Marom & Rosman (2020) supplement 2.1: two 5-5-5-5-4 partitions (max of the two sums)",
        abstraction: Abstraction::TilesAdditive,
        groups: &[
            &[&[1, 2, 5, 6, 7], &[3, 4, 8, 9, 14], &[10, 15, 16, 20, 21], &[11, 12, 17, 22], &[13, 18, 19, 23, 24]],
            &[&[1, 2, 3, 7, 8], &[5, 6, 10, 11, 12], &[15, 16, 17, 20, 21], &[4, 9, 13, 14], &[18, 19, 22, 23, 24]],
        ],
        reflect: false,
    },
    &PatternSet {
        name: "marom-rosman",
        domain: "24-pancake",
        description: "Marom & Rosman (2020) supplement 2.2: two location-based 5-5-5-5-4 partitions (max of the sums)",
        abstraction: Abstraction::PancakeLocation,
        groups: &[
            &[&[0, 1, 2, 3, 4], &[5, 6, 7, 8, 9], &[10, 11, 12, 13, 14], &[15, 16, 17, 18, 19], &[20, 21, 22, 23]],
            &[&[0, 1, 2, 18], &[3, 4, 5, 6, 7], &[8, 9, 10, 11, 12], &[13, 14, 15, 16, 17], &[19, 20, 21, 22, 23]],
        ],
        reflect: false,
    },
    &PatternSet {
        name: "marom-rosman",
        domain: "15-blocksworld",
        description: "Marom & Rosman (2020) supplement 2.3: twelve 4-block PDBs, every move costing 1 (max)",
        abstraction: Abstraction::BlocksShape,
        groups: &[
            &[&[1, 2, 3, 4]],
            &[&[5, 6, 7, 8]],
            &[&[9, 10, 11, 12]],
            &[&[12, 13, 14, 15]],
            &[&[3, 4, 5, 6]],
            &[&[7, 8, 9, 10]],
            &[&[11, 12, 13, 14]],
            &[&[1, 2, 14, 15]],
            &[&[2, 3, 4, 5]],
            &[&[6, 7, 8, 9]],
            &[&[10, 11, 12, 13]],
            &[&[1, 13, 14, 15]],
        ],
        reflect: false,
    },
];

/// The named sets of a domain, its default first.
pub fn for_domain(domain: &str) -> impl Iterator<Item = &'static PatternSet> + '_ {
    SETS.iter().copied().filter(move |s| s.domain == domain)
}

/// A domain's set by name, or an error listing its sets.
pub fn by_name(domain: &str, name: &str) -> Result<&'static PatternSet, PuzzleError> {
    for_domain(domain).find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = for_domain(domain).map(|s| s.name).collect();
        PuzzleError::Unknown(if known.is_empty() {
            format!("pattern set {name:?}: the {domain} has no named sets (give patterns, e.g. pdb:1,2,3/4,5,6)")
        } else {
            format!("pattern set {name:?} for the {domain}: known are {}", known.join(", "))
        })
    })
}

/// Groups from text: patterns separated by `/` add up, groups separated by
/// `|` are maxed, items by `,` (e.g. `1,2,3,4/5,6,7,8`; `1-7/8-15` for
/// ranges).
pub fn parse_groups(text: &str) -> Result<Vec<Vec<Vec<u8>>>, PuzzleError> {
    let bad = |why: String| PuzzleError::BadPattern(why);
    let mut groups = Vec::new();
    for g in text.split('|') {
        let mut group = Vec::new();
        for p in g.split('/') {
            group.push(parse_pattern(p).map_err(|e| bad(format!("{p:?}: {e}")))?);
        }
        groups.push(group);
    }
    Ok(groups)
}

/// One pattern: numbers and ranges separated by commas (`1,2,5-7`).
pub fn parse_pattern(text: &str) -> Result<Vec<u8>, PuzzleError> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let num =
            |s: &str| s.trim().parse::<u8>().map_err(|_| PuzzleError::BadPattern(format!("{s:?} is not a number")));
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(PuzzleError::BadPattern(format!("empty range {item}")));
                }
                out.extend(a..=b);
            }
            None => out.push(num(item)?),
        }
    }
    if out.is_empty() {
        return Err(PuzzleError::BadPattern("empty pattern".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covers(set: &PatternSet, items: std::ops::RangeInclusive<u8>) {
        for group in set.groups {
            let mut all: Vec<u8> = group.iter().flat_map(|p| p.iter().copied()).collect();
            all.sort_unstable();
            assert_eq!(all, items.clone().collect::<Vec<_>>(), "{} {}: a partition", set.domain, set.name);
        }
    }

    #[test]
    fn additive_sets_are_partitions() {
        for s in SETS.iter().filter(|s| s.abstraction != Abstraction::BlocksShape) {
            match s.domain {
                "8-puzzle" => covers(s, 1..=8),
                "15-puzzle" => covers(s, 1..=15),
                "24-puzzle" => covers(s, 1..=24),
                "24-pancake" => covers(s, 0..=23),
                other => panic!("unexpected domain {other}"),
            }
        }
        let bw = by_name("15-blocksworld", "marom-rosman").unwrap();
        assert_eq!(bw.patterns().len(), 12);
        assert!(bw.groups.iter().all(|g| g.len() == 1 && g[0].len() == 4));
    }

    #[test]
    fn korf_felner_24_partition_is_a_rotation_family() {
        // The three 2x3 blocks are 90-degree rotations of one another.
        let rot = |t: u8| {
            let (r, c) = (t / 5, t % 5);
            c * 5 + (4 - r)
        };
        let g = KF_6_6_6_6[0];
        let mut a: Vec<u8> = g[1].iter().map(|&t| rot(t)).collect();
        a.sort_unstable();
        assert_eq!(a, g[3]);
        let mut b: Vec<u8> = g[3].iter().map(|&t| rot(t)).collect();
        b.sort_unstable();
        assert_eq!(b, g[2]);
    }

    #[test]
    fn parsing_patterns_and_groups() {
        assert_eq!(parse_pattern("1,2,5-7").unwrap(), vec![1, 2, 5, 6, 7]);
        assert!(parse_pattern("7-5").is_err());
        assert!(parse_pattern("a").is_err());
        let g = parse_groups("1-4/5-8|1,5/2,6").unwrap();
        assert_eq!(g, vec![vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]], vec![vec![1, 5], vec![2, 6]]]);
        assert!(by_name("15-puzzle", "nope").unwrap_err().to_string().contains("korf-felner-7-8"));
    }
}
