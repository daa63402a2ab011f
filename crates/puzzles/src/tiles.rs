//! Sliding-tile puzzles (8-, 15-, 24-puzzle and any W x H board up to 32
//! cells), in Korf's convention: `cells[pos] = tile`, 0 is the blank, the
//! goal is `0 1 2 ...` (blank top left), rows in order.
//!
//! An operator is the cell the blank moves to; its reverse is the cell it
//! came from (the paper's code's `Op` and parent pruning). Operators are
//! listed up, left, right, down, as the paper's code's table lists them.
//! The state's `aux` byte caches the blank's cell.

use crate::domain::Domain;
use crate::heuristic::{Heuristic, Zero};
use crate::pdb::artifact::{Abstraction, Table};
use crate::registry::{is_pdb, pdb_heuristic, unknown_heuristic, FamilyInfo, HeuristicVisitor, PdbSource, Registered};
use crate::state::{check_permutation, State, MAX_CELLS};
use crate::PuzzleError;

/// The sliding-tile family in the registry.
pub static FAMILY: FamilyInfo = FamilyInfo {
    family: "sliding-tile",
    names: "N-puzzle (N + 1 a square: 8-puzzle, 15-puzzle, 24-puzzle) or WxH-puzzle (3x4-puzzle), at most 32 cells",
    description: "sliding tiles, Korf's convention: cells[pos] = tile, 0 the blank, goal 0 1 2 ... (blank top left)",
    examples: &["8-puzzle", "15-puzzle", "24-puzzle"],
    heuristics: &[
        ("manhattan", "Manhattan distance (admissible, consistent; updated per move)"),
        (
            "pdb",
            "additive pattern databases: the domain's default set (pdb:SET for another, pdb:1,2,3/4,5,6 for your own)",
        ),
        ("zero", "h = 0"),
    ],
    // The domain's default PDBs: 7-8 on the 15-puzzle, 6-6-6-6 on the 24-puzzle.
    optimal_heuristic: "pdb",
    open: |name| SlidingTile::from_name(name).map(crate::registry::boxed),
};

/// A W x H sliding-tile puzzle.
#[derive(Debug, Clone)]
pub struct SlidingTile {
    name: String,
    width: u8,
    height: u8,
    /// `moves[cell]`: the cells the blank can move to from `cell`.
    moves: [TileMoves; MAX_CELLS],
    /// `md[tile][cell]`: Manhattan distance of `tile` at `cell` from its
    /// goal cell (0 for the blank).
    md: [[u8; MAX_CELLS]; MAX_CELLS],
    goal: State,
}

impl SlidingTile {
    /// A `width` x `height` board (each at least 2, at most 32 cells).
    pub fn new(width: usize, height: usize) -> Result<SlidingTile, PuzzleError> {
        if width < 2 || height < 2 || width * height > MAX_CELLS {
            return Err(PuzzleError::BadDomain(format!(
                "a sliding-tile board needs at least 2 x 2 and at most {MAX_CELLS} cells, not {width} x {height}"
            )));
        }
        let n = width * height;
        let name = if width == height { format!("{}-puzzle", n - 1) } else { format!("{width}x{height}-puzzle") };
        let mut moves = [TileMoves::default(); MAX_CELLS];
        for (cell, m) in moves.iter_mut().enumerate().take(n) {
            // The paper's code's order: up, left, right, down.
            if cell >= width {
                m.push((cell - width) as u8);
            }
            if cell % width > 0 {
                m.push((cell - 1) as u8);
            }
            if cell % width < width - 1 {
                m.push((cell + 1) as u8);
            }
            if cell + width < n {
                m.push((cell + width) as u8);
            }
        }
        let mut md = [[0u8; MAX_CELLS]; MAX_CELLS];
        for (tile, row) in md.iter_mut().enumerate().take(n).skip(1) {
            for (cell, d) in row.iter_mut().enumerate().take(n) {
                *d = ((tile / width).abs_diff(cell / width) + (tile % width).abs_diff(cell % width)) as u8;
            }
        }
        Ok(SlidingTile { name, width: width as u8, height: height as u8, moves, md, goal: State::identity(n) })
    }

    /// A name the registry knows: `N-puzzle` with N + 1 a square (`8-puzzle`,
    /// `15-puzzle`, `24-puzzle`), or `WxH-puzzle` (`3x4-puzzle`).
    pub fn from_name(name: &str) -> Option<Result<SlidingTile, PuzzleError>> {
        let stem = name.strip_suffix("-puzzle")?;
        if let Some((w, h)) = stem.split_once('x') {
            let (Ok(w), Ok(h)) = (w.parse::<usize>(), h.parse::<usize>()) else { return None };
            return Some(SlidingTile::new(w, h));
        }
        let tiles: usize = stem.parse().ok()?;
        let side = (1..=6).find(|s| s * s == tiles + 1);
        Some(match side {
            Some(s) => SlidingTile::new(s, s),
            None => Err(PuzzleError::BadDomain(format!(
                "{name}: N-puzzle needs N + 1 to be a square (8, 15, 24); use WxH-puzzle for other boards"
            ))),
        })
    }

    pub fn width(&self) -> usize {
        self.width as usize
    }

    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// The cells adjacent to `cell`, in operator order.
    pub fn neighbours(&self, cell: usize) -> Vec<u8> {
        self.moves[cell].collect()
    }

    /// Manhattan distance of `tile` standing at `cell` from its goal cell.
    #[inline]
    pub fn tile_distance(&self, tile: u8, cell: u8) -> u8 {
        self.md[tile as usize & (MAX_CELLS - 1)][cell as usize & (MAX_CELLS - 1)]
    }

    /// The blank's cell.
    #[inline]
    pub fn blank(&self, s: &State) -> usize {
        s.aux() as usize
    }

    /// Whether the state can reach the goal. Moving the blank sideways keeps
    /// the number of inversions (pairs of tiles out of order, blank
    /// ignored); moving it vertically jumps one tile over width - 1 others.
    /// So with an odd width the inversions' parity is invariant, with an even
    /// width the parity of inversions + the blank's row is; the goal has 0
    /// of both.
    pub fn is_solvable(&self, s: &State) -> bool {
        let tiles: Vec<u8> = s.cells().iter().copied().filter(|&t| t != 0).collect();
        let mut inversions = 0usize;
        for i in 0..tiles.len() {
            inversions += tiles[i + 1..].iter().filter(|&&t| t < tiles[i]).count();
        }
        let w = self.width();
        if w % 2 == 1 {
            inversions.is_multiple_of(2)
        } else {
            (inversions + self.blank(s) / w).is_multiple_of(2)
        }
    }

    /// The state mirrored about the main diagonal (square boards only): cell
    /// (r, c) holds what (c, r) held, with each tile renamed to its mirror
    /// tile. The mirror maps the goal to itself and moves to moves, so
    /// distances are equal: a PDB looked up on both sides gives two
    /// admissible values (Korf & Felner's reflection).
    pub fn reflect(&self, s: &State) -> State {
        debug_assert_eq!(self.width, self.height);
        let w = self.width();
        let n = self.size();
        let mirror = |x: usize| (x % w) * w + x / w;
        let mut cells = [0u8; MAX_CELLS];
        for (cell, &tile) in s.cells().iter().enumerate() {
            cells[mirror(cell)] = mirror(tile as usize) as u8;
        }
        State::from_cells_unchecked(&cells[..n], mirror(self.blank(s)) as u8)
    }
}

impl Domain for SlidingTile {
    type Op = u8;
    type Ops = TileMoves;

    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> usize {
        self.width as usize * self.height as usize
    }

    fn operators(&self) -> String {
        "move the blank up, left, right or down (a tile slides into it)".into()
    }

    fn goal(&self) -> &State {
        &self.goal
    }

    /// The full comparison, as the paper's code does it, after the one byte
    /// that rules out nearly every node: the goal has the blank on cell 0.
    #[inline]
    fn is_goal(&self, s: &State) -> bool {
        s.aux() == 0 && s == &self.goal
    }

    fn state_from_cells(&self, cells: &[u8]) -> Result<State, PuzzleError> {
        let n = self.size();
        if cells.len() != n {
            return Err(PuzzleError::BadState(format!("the {} has {n} cells, got {}", self.name, cells.len())));
        }
        check_permutation(cells)?;
        let blank = cells.iter().position(|&t| t == 0).unwrap_or(0);
        let s = State::from_cells_unchecked(cells, blank as u8);
        if !self.is_solvable(&s) {
            return Err(PuzzleError::BadState(format!(
                "this {} state cannot reach the goal (wrong permutation parity)",
                self.name
            )));
        }
        Ok(s)
    }

    #[inline]
    fn ops(&self, s: &State) -> TileMoves {
        self.moves[s.aux() as usize & (MAX_CELLS - 1)]
    }

    #[inline]
    fn apply(&self, s: &mut State, to: u8) -> u8 {
        let from = s.aux();
        let cells = s.cells_mut();
        cells[from as usize & (MAX_CELLS - 1)] = cells[to as usize & (MAX_CELLS - 1)];
        cells[to as usize & (MAX_CELLS - 1)] = 0;
        s.set_aux(to);
        from
    }

    /// The blank went from `from` to `to`: the tile now on `from` goes back
    /// (no need to read where the blank is).
    #[inline]
    fn undo(&self, s: &mut State, to: u8, from: u8) {
        let cells = s.cells_mut();
        cells[to as usize & (MAX_CELLS - 1)] = cells[from as usize & (MAX_CELLS - 1)];
        cells[from as usize & (MAX_CELLS - 1)] = 0;
        s.set_aux(from);
    }

    fn op_label(&self, s: &State, to: u8) -> String {
        s.cells()[to as usize].to_string()
    }
}

impl Registered for SlidingTile {
    const FAMILY: &'static FamilyInfo = &FAMILY;
    const ABSTRACTION: Abstraction = Abstraction::TilesAdditive;

    fn check_pdb_pattern(&self, pattern: &[u8]) -> Result<(), PuzzleError> {
        crate::pdb::tiles::check_pattern(self, pattern)
    }

    fn build_pdb_table(&self, pattern: &[u8], threads: usize) -> Result<Table, PuzzleError> {
        Ok(Table::Dense(crate::pdb::tiles::build(self, pattern, threads)?))
    }

    fn mirror_board(&self) -> Option<SlidingTile> {
        (self.width == self.height).then(|| self.clone())
    }

    fn visit_heuristic<V: HeuristicVisitor<Self>>(
        &self,
        name: &str,
        pdbs: PdbSource,
        v: V,
    ) -> Result<V::Out, PuzzleError> {
        Ok(match name {
            "manhattan" => v.visit(&mut Manhattan::new(self), vec![]),
            "zero" => v.visit(&mut Zero, vec![]),
            h if is_pdb(h) => {
                let (mut ph, uses) = pdb_heuristic(self, h, pdbs)?;
                v.visit(&mut ph, uses)
            }
            h => return Err(unknown_heuristic(self, h)),
        })
    }
}

/// The cells the blank can move to: at most four, packed one per byte of
/// a `u32` (the first in the low byte), so that iterating stays in a
/// register.
#[derive(Debug, Clone, Copy, Default)]
pub struct TileMoves {
    packed: u32,
    len: u8,
}

impl TileMoves {
    fn push(&mut self, cell: u8) {
        self.packed |= (cell as u32) << (8 * self.len);
        self.len += 1;
    }
}

impl Iterator for TileMoves {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let c = self.packed as u8;
        self.packed >>= 8;
        self.len -= 1;
        Some(c)
    }
}

/// Manhattan distance: the sum over tiles of their row and column
/// distances from their goal cells. Updated in O(1) per move along a search.
#[derive(Debug, Clone)]
pub struct Manhattan {
    md: [[u8; MAX_CELLS]; MAX_CELLS],
}

impl Manhattan {
    pub fn new(d: &SlidingTile) -> Manhattan {
        Manhattan { md: d.md }
    }

    /// h(s) from scratch.
    pub fn value(&self, s: &State) -> u32 {
        s.cells().iter().enumerate().map(|(cell, &t)| self.md[t as usize & (MAX_CELLS - 1)][cell] as u32).sum()
    }
}

impl Heuristic<SlidingTile> for Manhattan {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        self.value(s)
    }

    /// The blank moves from its cell to `to`: the tile on `to` slides onto
    /// the blank's cell, and only its distance changes.
    #[inline]
    fn h_move(&mut self, parent: &State, to: u8, parent_h: u32) -> Option<u32> {
        let from = parent.aux() as usize & (MAX_CELLS - 1);
        let to = to as usize & (MAX_CELLS - 1);
        let row = &self.md[parent.raw()[to] as usize & (MAX_CELLS - 1)];
        Some(parent_h + row[from] as u32 - row[to] as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p15() -> SlidingTile {
        SlidingTile::new(4, 4).unwrap()
    }

    #[test]
    fn names_and_sizes() {
        assert_eq!(SlidingTile::from_name("15-puzzle").unwrap().unwrap().size(), 16);
        assert_eq!(SlidingTile::from_name("8-puzzle").unwrap().unwrap().name(), "8-puzzle");
        let r = SlidingTile::from_name("3x4-puzzle").unwrap().unwrap();
        assert_eq!((r.width(), r.height(), r.name()), (3, 4, "3x4-puzzle"));
        assert!(SlidingTile::from_name("14-puzzle").unwrap().is_err());
        assert!(SlidingTile::from_name("35-puzzle").unwrap().is_err(), "36 cells is over MAX_CELLS");
        assert!(SlidingTile::from_name("24-pancake").is_none());
    }

    #[test]
    fn operator_order_is_up_left_right_down() {
        let d = p15();
        assert_eq!(d.neighbours(5), &[1, 4, 6, 9]);
        assert_eq!(d.neighbours(0), &[1, 4]);
        assert_eq!(d.neighbours(15), &[11, 14]);
    }

    #[test]
    fn apply_then_reverse_restores() {
        let d = p15();
        let mut s = *d.goal();
        let back = d.apply(&mut s, 1);
        assert_eq!(s.cells()[..2], [1, 0]);
        assert_eq!(d.blank(&s), 1);
        assert_eq!(back, 0);
        d.apply(&mut s, back);
        assert_eq!(&s, d.goal());
    }

    #[test]
    fn manhattan_on_korf_instance_one() {
        // Korf (1985) instance 1; its Manhattan distance is 41.
        let d = p15();
        let s = d.parse_state("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").unwrap();
        assert_eq!(Manhattan::new(&d).value(&s), 41);
        assert_eq!(Manhattan::new(&d).value(d.goal()), 0);
    }

    #[test]
    fn incremental_manhattan_matches_recomputation() {
        let d = p15();
        let mut m = Manhattan::new(&d);
        let mut s = d.parse_state("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").unwrap();
        let mut h = m.h(&s);
        for step in 0..200usize {
            let ops: Vec<u8> = d.ops(&s).collect();
            let op = ops[step * 7 % ops.len()];
            h = m.h_move(&s, op, h).unwrap();
            d.apply(&mut s, op);
            assert_eq!(h, m.value(&s));
        }
    }

    #[test]
    fn bad_states_are_refused_with_reasons() {
        let d = p15();
        let e = |t: &str| d.parse_state(t).unwrap_err().to_string();
        assert!(e("1 2 3").contains("expected 16 numbers, got 3"));
        assert!(e("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 14").contains("14 appears twice"));
        assert!(e("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16").contains("out of range"));
        // Two tiles swapped: the other parity class.
        assert!(e("0 2 1 3 4 5 6 7 8 9 10 11 12 13 14 15").contains("cannot reach the goal"));
    }

    #[test]
    fn solvability_matches_parity_on_odd_and_even_widths() {
        let d8 = SlidingTile::new(3, 3).unwrap();
        assert!(d8.parse_state("1 0 2 3 4 5 6 7 8").is_ok());
        assert!(d8.parse_state("0 2 1 3 4 5 6 7 8").is_err());
        // Blank one row down in an even-width board: reachable only with an
        // odd number of inversions.
        let d = p15();
        assert!(d.parse_state("4 1 2 3 0 5 6 7 8 9 10 11 12 13 14 15").is_ok());
    }

    #[test]
    fn reflection_keeps_the_goal_and_manhattan() {
        let d = p15();
        assert_eq!(&d.reflect(d.goal()), d.goal());
        let s = d.parse_state("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").unwrap();
        let r = d.reflect(&s);
        assert!(d.is_solvable(&r));
        assert_eq!(Manhattan::new(&d).value(&r), Manhattan::new(&d).value(&s));
        assert_eq!(d.reflect(&r), s);
    }
}
