//! The paper's network inputs F(s) (notes section 2), written into a
//! caller's `&mut [f32]` so that a search allocates nothing per node.
//!
//! - [`OneHotTiles`]: the code's `TwoDim` for sliding tiles: for each tile
//!   value 0..n (blank included) a one-hot column then a one-hot row of
//!   its cell: n (w + h) inputs, 128 for the 15-puzzle.
//! - [`TilePdbFeatures`], [`PancakePdbFeatures`], [`BlocksPdbFeatures`]:
//!   the 24-puzzle's 15, the 24-pancake's 14 and the 15-blocksworld's 14
//!   PDB-based inputs (`Features.cs` and `MultHeuristic*.cs` of each
//!   domain). Their PDB values come from a [`PdbValues`]: real PDBs
//!   ([`PdbLookups`]) or, in tests, any function ([`FnPdbs`]).
//!
//! [`Features::encode`] also answers the *floor*: the largest raw value
//! among the heuristic features (the code's `MultHeuristic.HArr.Max()`),
//! which the planning heuristic never goes below (notes pitfall 5); 0 for
//! one-hot inputs, where the floor is the paper's max(h, 0).

use puzzles::pdb::PdbHeuristic;
use puzzles::tiles::SlidingTile;
use puzzles::{Domain, State};

use crate::LikelyError;

/// A state's input vector.
pub trait Features {
    /// Inputs per state.
    fn inputs(&self) -> usize;

    /// Writes F(s) into `out[..inputs()]` and returns the floor (see the
    /// module docs). `out` must hold [`Features::inputs`] values.
    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32;

    /// Whether the inputs carry PDB values: the paper then uses 8 hidden
    /// units instead of 20 and no dropout.
    fn uses_pdbs(&self) -> bool;

    /// For binary encodings: the positions of the inputs that are 1 (all
    /// others 0) written to `active` (cleared first), and the floor; `None`
    /// (the default) where inputs take other values. Lets a search skip
    /// writing and scanning the input vector.
    fn active(&mut self, s: &State, active: &mut Vec<u32>) -> Option<u32> {
        let _ = (s, active);
        None
    }
}

impl<F: Features + ?Sized> Features for &mut F {
    fn inputs(&self) -> usize {
        (**self).inputs()
    }
    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32 {
        (**self).encode(s, out)
    }
    fn uses_pdbs(&self) -> bool {
        (**self).uses_pdbs()
    }
    fn active(&mut self, s: &State, active: &mut Vec<u32>) -> Option<u32> {
        (**self).active(s, active)
    }
}

/// The code's `TwoDim` encoding of a W x H sliding-tile board.
#[derive(Debug, Clone)]
pub struct OneHotTiles {
    width: usize,
    height: usize,
}

impl OneHotTiles {
    pub fn new(d: &SlidingTile) -> OneHotTiles {
        OneHotTiles { width: d.width(), height: d.height() }
    }
}

impl Features for OneHotTiles {
    fn inputs(&self) -> usize {
        let n = self.width * self.height;
        n * (self.width + self.height)
    }

    /// Tile v's block starts at v (w + h): its column's one-hot (w), then
    /// its row's (h), as `TwoDim.BuildData` writes `count + x - 1` and
    /// `count + dim + y - 1`.
    #[inline]
    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32 {
        let (w, h) = (self.width, self.height);
        let block = w + h;
        let out = &mut out[..s.len() * block];
        out.fill(0.0);
        for (cell, &tile) in s.cells().iter().enumerate() {
            let base = tile as usize * block;
            if let Some(x) = out.get_mut(base + cell % w) {
                *x = 1.0;
            }
            if let Some(x) = out.get_mut(base + w + cell / w) {
                *x = 1.0;
            }
        }
        0
    }

    fn uses_pdbs(&self) -> bool {
        false
    }

    #[inline]
    fn active(&mut self, s: &State, active: &mut Vec<u32>) -> Option<u32> {
        let (w, block) = (self.width, self.width + self.height);
        active.clear();
        for (cell, &tile) in s.cells().iter().enumerate() {
            let base = tile as usize * block;
            active.push((base + cell % w) as u32);
            active.push((base + w + cell / w) as u32);
        }
        Some(0)
    }
}

/// Per-PDB values of a state, for the PDB features.
pub trait PdbValues {
    /// How many consecutive PDBs form each disjoint (additive) group.
    fn groups(&self) -> &[usize];
    /// Each PDB's largest entry (the features' scales), in order.
    fn maxima(&self) -> &[u32];
    /// Each PDB's value on `s`, written to `out` (one per PDB).
    fn values(&mut self, s: &State, out: &mut [u32]);
}

/// Checks that group sizes and maxima agree.
fn check_pdbs(p: &impl PdbValues) -> Result<(), LikelyError> {
    let total: usize = p.groups().iter().sum();
    if total != p.maxima().len() || total == 0 || p.groups().contains(&0) {
        return Err(LikelyError::Shape(format!(
            "PDB groups {:?} do not cover the {} PDBs",
            p.groups(),
            p.maxima().len()
        )));
    }
    Ok(())
}

/// Real pattern databases: [`PdbHeuristic`] with its group sizes (from
/// the pattern set, e.g. the paper's 24-puzzle set: 5 and 5).
#[derive(Debug, Clone)]
pub struct PdbLookups {
    heuristic: PdbHeuristic,
    groups: Vec<usize>,
    maxima: Vec<u32>,
    scratch: Vec<u32>,
}

impl PdbLookups {
    pub fn new(heuristic: PdbHeuristic, groups: Vec<usize>) -> Result<PdbLookups, LikelyError> {
        let maxima = heuristic.maxima();
        let p = PdbLookups { heuristic, groups, scratch: Vec::with_capacity(maxima.len()), maxima };
        check_pdbs(&p)?;
        Ok(p)
    }

    /// The group sizes of a named pattern set.
    pub fn group_sizes(set: &puzzles::pdb::PatternSet) -> Vec<usize> {
        set.groups.iter().map(|g| g.len()).collect()
    }
}

impl PdbValues for PdbLookups {
    fn groups(&self) -> &[usize] {
        &self.groups
    }
    fn maxima(&self) -> &[u32] {
        &self.maxima
    }
    fn values(&mut self, s: &State, out: &mut [u32]) {
        // The scratch keeps its capacity: no allocation after the first.
        self.scratch.clear();
        self.heuristic.values(s, &mut self.scratch);
        out.copy_from_slice(&self.scratch[..out.len()]);
    }
}

/// PDB values from any function (tests, or PDBs held elsewhere).
pub struct FnPdbs<F> {
    groups: Vec<usize>,
    maxima: Vec<u32>,
    f: F,
}

impl<F: FnMut(&State, &mut [u32])> FnPdbs<F> {
    pub fn new(groups: Vec<usize>, maxima: Vec<u32>, f: F) -> Result<FnPdbs<F>, LikelyError> {
        let p = FnPdbs { groups, maxima, f };
        check_pdbs(&p)?;
        Ok(p)
    }
}

impl<F: FnMut(&State, &mut [u32])> PdbValues for FnPdbs<F> {
    fn groups(&self) -> &[usize] {
        &self.groups
    }
    fn maxima(&self) -> &[u32] {
        &self.maxima
    }
    fn values(&mut self, s: &State, out: &mut [u32]) {
        (self.f)(s, out)
    }
}

/// The PDB part shared by the three domains: values and (optionally)
/// group sums, each scaled by its maximum.
struct PdbPart<P> {
    pdbs: P,
    values: Vec<u32>,
    /// 1 / (each PDB's maximum), then 1 / (each group's sum of maxima).
    inv_scales: Vec<f32>,
    with_sums: bool,
}

impl<P: PdbValues> PdbPart<P> {
    fn new(pdbs: P, with_sums: bool) -> Result<PdbPart<P>, LikelyError> {
        check_pdbs(&pdbs)?;
        let inv = |m: u32| 1.0 / m.max(1) as f32;
        let mut inv_scales: Vec<f32> = pdbs.maxima().iter().map(|&m| inv(m)).collect();
        if with_sums {
            let mut start = 0;
            for &g in pdbs.groups() {
                inv_scales.push(inv(pdbs.maxima()[start..start + g].iter().sum()));
                start += g;
            }
        }
        Ok(PdbPart { values: vec![0; pdbs.maxima().len()], pdbs, inv_scales, with_sums })
    }

    fn len(&self) -> usize {
        self.inv_scales.len()
    }

    /// Writes the scaled values (and sums) to `out`, returns the largest
    /// raw value among them.
    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32 {
        self.pdbs.values(s, &mut self.values);
        let mut floor = 0;
        let n = self.values.len();
        for (i, &v) in self.values.iter().enumerate() {
            out[i] = v as f32 * self.inv_scales[i];
            floor = floor.max(v);
        }
        if self.with_sums {
            let mut start = 0;
            for (g, &size) in self.pdbs.groups().iter().enumerate() {
                let sum: u32 = self.values[start..start + size].iter().sum();
                out[n + g] = sum as f32 * self.inv_scales[n + g];
                floor = floor.max(sum);
                start += size;
            }
        }
        floor
    }
}

/// The 24-puzzle's features (`SlidingPuzzle/Representations/Features.cs`
/// with `MultHeuristic24`), for any board: each PDB / its maximum, each
/// group's sum / the group's sum of maxima, Manhattan distance / MD_max,
/// misplaced tiles / n, the blank's cell / n. 15 inputs with the paper's
/// ten PDBs in two groups.
pub struct TilePdbFeatures<P> {
    pdbs: PdbPart<P>,
    width: usize,
    n: usize,
    inv_md_max: f32,
}

impl<P: PdbValues> TilePdbFeatures<P> {
    pub fn new(d: &SlidingTile, pdbs: P) -> Result<TilePdbFeatures<P>, LikelyError> {
        let (w, n) = (d.width(), d.size());
        // The code's MD_max (`MDHeuristic.InitMD`): the n - 1 largest
        // entries of the distance table over every tile value, the blank's
        // included, and every cell.
        let mut all: Vec<usize> = (0..n * n)
            .map(|i| {
                let (t, c) = (i / n, i % n);
                (t / w).abs_diff(c / w) + (t % w).abs_diff(c % w)
            })
            .collect();
        all.sort_unstable_by(|a, b| b.cmp(a));
        let md_max: usize = all[..n - 1].iter().sum();
        Ok(TilePdbFeatures { pdbs: PdbPart::new(pdbs, true)?, width: w, n, inv_md_max: 1.0 / md_max.max(1) as f32 })
    }
}

impl<P: PdbValues> Features for TilePdbFeatures<P> {
    fn inputs(&self) -> usize {
        self.pdbs.len() + 3
    }

    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32 {
        let k = self.pdbs.len();
        let mut floor = self.pdbs.encode(s, out);
        let w = self.width;
        let (mut md, mut misplaced, mut blank) = (0usize, 0usize, 0usize);
        for (cell, &tile) in s.cells().iter().enumerate() {
            let t = tile as usize;
            if t == 0 {
                blank = cell;
                continue;
            }
            md += (t / w).abs_diff(cell / w) + (t % w).abs_diff(cell % w);
            misplaced += (t != cell) as usize;
        }
        out[k] = md as f32 * self.inv_md_max;
        out[k + 1] = misplaced as f32 / self.n as f32;
        out[k + 2] = blank as f32 / self.n as f32;
        floor = floor.max(md as u32).max(misplaced as u32);
        floor
    }

    fn uses_pdbs(&self) -> bool {
        true
    }
}

/// The 24-pancake's features (`PancakePuzzle/Representations/Features.cs`
/// with `MultHeuristic24`): each PDB / its maximum, each group's sum / its
/// sum of maxima, whether the middle pancake (n/2) is in place, the
/// largest out-of-place pancake / n. 14 inputs with the paper's PDBs.
pub struct PancakePdbFeatures<P> {
    pdbs: PdbPart<P>,
    n: usize,
}

impl<P: PdbValues> PancakePdbFeatures<P> {
    pub fn new(n: usize, pdbs: P) -> Result<PancakePdbFeatures<P>, LikelyError> {
        if n < 2 {
            return Err(LikelyError::Shape(format!("a {n}-pancake stack")));
        }
        Ok(PancakePdbFeatures { pdbs: PdbPart::new(pdbs, true)?, n })
    }
}

impl<P: PdbValues> Features for PancakePdbFeatures<P> {
    fn inputs(&self) -> usize {
        self.pdbs.len() + 2
    }

    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32 {
        let k = self.pdbs.len();
        let floor = self.pdbs.encode(s, out);
        let cells = s.cells();
        let mid = self.n / 2;
        let max_out = cells.iter().enumerate().filter(|&(i, &v)| v as usize != i).map(|(_, &v)| v).max().unwrap_or(0);
        out[k] = (cells.get(mid).copied() == Some(mid as u8)) as u8 as f32;
        out[k + 1] = max_out as f32 / self.n as f32;
        floor
    }

    fn uses_pdbs(&self) -> bool {
        true
    }
}

/// The 15-blocksworld's features (`BlocksWorld/Representations/
/// Features.cs` with `MultHeuristic15`): each PDB / its maximum (the PDBs
/// are not additive: no sums), blocks not on their goal support / n,
/// blocks on the table / n. 14 inputs with the paper's twelve PDBs.
pub struct BlocksPdbFeatures<P> {
    pdbs: PdbPart<P>,
    n: usize,
}

impl<P: PdbValues> BlocksPdbFeatures<P> {
    pub fn new(n: usize, pdbs: P) -> Result<BlocksPdbFeatures<P>, LikelyError> {
        if n < 2 {
            return Err(LikelyError::Shape(format!("a {n}-block world")));
        }
        Ok(BlocksPdbFeatures { pdbs: PdbPart::new(pdbs, false)?, n })
    }
}

impl<P: PdbValues> Features for BlocksPdbFeatures<P> {
    fn inputs(&self) -> usize {
        self.pdbs.len() + 2
    }

    fn encode(&mut self, s: &State, out: &mut [f32]) -> u32 {
        let k = self.pdbs.len();
        let floor = self.pdbs.encode(s, out);
        let cells = s.cells();
        let misplaced = cells.iter().enumerate().filter(|&(i, &v)| v as usize != i).count();
        let on_table = cells.iter().filter(|&&v| v == 0).count();
        out[k] = misplaced as f32 / self.n as f32;
        out[k + 1] = on_table as f32 / self.n as f32;
        floor.max(misplaced as u32)
    }

    fn uses_pdbs(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use puzzles::blocks::Blocksworld;
    use puzzles::pancake::Pancake;
    use puzzles::registry::Registered;
    use puzzles::walk::random_walk;

    use super::*;

    #[test]
    fn one_hot_tiles_match_the_codes_two_dim() {
        let d = SlidingTile::new(4, 4).unwrap();
        let mut f = OneHotTiles::new(&d);
        assert_eq!(f.inputs(), 128);
        let mut x = vec![9.0; 128];
        assert_eq!(f.encode(d.goal(), &mut x), 0);
        // Goal: tile v at cell v, column v % 4, row v / 4.
        for v in 0..16 {
            let block = &x[v * 8..(v + 1) * 8];
            let mut expected = [0.0; 8];
            expected[v % 4] = 1.0;
            expected[4 + v / 4] = 1.0;
            assert_eq!(block, expected, "tile {v}");
        }
        // Korf's instance 12: tile 14 at cell 0 (column 0, row 0), the
        // blank at cell 11 (column 3, row 2).
        let s = d.parse_state("14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15").unwrap();
        f.encode(&s, &mut x);
        assert_eq!(&x[14 * 8..15 * 8], &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(&x[0..8], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
        assert_eq!(x.iter().sum::<f32>(), 32.0);
        // The active positions are the ones of the vector.
        let mut active = Vec::new();
        assert_eq!(f.active(&s, &mut active), Some(0));
        let ones: Vec<u32> = (0..128u32).filter(|&i| x[i as usize] == 1.0).collect();
        active.sort_unstable();
        assert_eq!(active, ones);
        // Non-square boards: columns then rows.
        let d = SlidingTile::new(3, 2).unwrap();
        let mut f = OneHotTiles::new(&d);
        assert_eq!(f.inputs(), 6 * 5);
        let mut x = vec![0.0; 30];
        f.encode(d.goal(), &mut x);
        assert_eq!(&x[5 * 5..6 * 5], &[0.0, 0.0, 1.0, 0.0, 1.0]);
    }

    #[test]
    fn tile_pdb_features_on_the_8_puzzle() {
        let d = SlidingTile::new(3, 3).unwrap();
        let pdb = |p: &[u8]| Arc::new(d.build_pdb(p, 1).unwrap());
        let groups = vec![vec![pdb(&[1, 2, 3, 4]), pdb(&[5, 6, 7, 8])], vec![pdb(&[1, 3, 5, 7]), pdb(&[2, 4, 6, 8])]];
        let h = PdbHeuristic::new(groups, None);
        let maxima = h.maxima();
        let mut f = TilePdbFeatures::new(&d, PdbLookups::new(h.clone(), vec![2, 2]).unwrap()).unwrap();
        assert_eq!(f.inputs(), 4 + 2 + 3);
        let mut x = vec![0.0; 9];
        assert_eq!(f.encode(d.goal(), &mut x), 0);
        assert!(x.iter().all(|&v| v == 0.0));
        for seed in 0..20 {
            let s = random_walk(&d, 30, seed);
            let floor = f.encode(&s, &mut x);
            let mut v = Vec::new();
            h.values(&s, &mut v);
            for i in 0..4 {
                assert!((x[i] - v[i] as f32 / maxima[i] as f32).abs() < 1e-6);
            }
            let md = puzzles::tiles::Manhattan::new(&d).value(&s);
            let misplaced = s.cells().iter().enumerate().filter(|&(c, &t)| t != 0 && t as usize != c).count();
            // MD_max of the 8-puzzle: four 4s and four 3s.
            assert!((x[6] * 28.0 - md as f32).abs() < 1e-4);
            assert!((x[7] * 9.0 - misplaced as f32).abs() < 1e-5);
            assert!((x[8] * 9.0 - d.blank(&s) as f32).abs() < 1e-5);
            // The floor is the largest of the PDB values, sums, MD and
            // misplaced tiles: MD dominates the PDB sums here.
            assert_eq!(floor, md.max(h.value(&s)));
            assert!(floor >= h.value(&s));
        }
    }

    #[test]
    fn pancake_and_blocks_features() {
        let d = Pancake::new(6).unwrap();
        let pdbs = FnPdbs::new(vec![2, 1], vec![4, 5, 10], |s: &State, out: &mut [u32]| {
            out.copy_from_slice(&[s.cells()[0] as u32, s.cells()[1] as u32, 7]);
        })
        .unwrap();
        let mut f = PancakePdbFeatures::new(6, pdbs).unwrap();
        assert_eq!(f.inputs(), 3 + 2 + 2);
        let s = d.parse_state("2 1 0 3 5 4").unwrap();
        let mut x = vec![0.0; 7];
        let floor = f.encode(&s, &mut x);
        assert_eq!(floor, 7);
        let expected = [2.0 / 4.0, 1.0 / 5.0, 7.0 / 10.0, 3.0 / 9.0, 7.0 / 10.0, 1.0, 5.0 / 6.0];
        for (a, b) in x.iter().zip(expected) {
            assert!((a - b).abs() < 1e-6, "{x:?}");
        }
        let b = Blocksworld::new(4).unwrap();
        // Block 1 on the table, 2 on the table, 3 on 1, 4 on 3.
        let s = b.state_from_cells(&[0, 0, 1, 3]).unwrap();
        let pdbs = FnPdbs::new(vec![1, 1], vec![3, 6], |_: &State, out: &mut [u32]| out.copy_from_slice(&[1, 2]));
        let mut f = BlocksPdbFeatures::new(4, pdbs.unwrap()).unwrap();
        let mut x = vec![0.0; 4];
        // Misplaced: blocks 2 and 3 are not on block b - 1; the floor is
        // the larger of that and the PDB values.
        assert_eq!(f.encode(&s, &mut x), 2);
        assert_eq!(x, vec![1.0 / 3.0, 2.0 / 6.0, 2.0 / 4.0, 2.0 / 4.0]);
    }

    #[test]
    fn bad_pdb_groups_are_errors() {
        assert!(FnPdbs::new(vec![2, 2], vec![1, 2, 3], |_: &State, _: &mut [u32]| ()).is_err());
        assert!(FnPdbs::new(vec![], vec![], |_: &State, _: &mut [u32]| ()).is_err());
    }
}
