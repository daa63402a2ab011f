//! The sliding-tile board (8-, 15-, 24-puzzle and any W x H board up to 32
//! cells), in Korf's convention: `cells[pos] = tile`, 0 is the blank, the
//! goal is `0 1 2 ...` (blank top left), rows in order.
//!
//! An operator is the cell the blank moves to; its reverse is the cell it
//! came from (the paper's code's `Op` and parent pruning). Operators are
//! listed up, left, right, down, as the paper's code's table lists them.
//! The state's `aux` byte caches the blank's cell.
//!
//! The board is apart from the family (`tiles`: Manhattan distance, its
//! `FAMILY`, its PDBs) because PDB lookups reflect states on it
//! (`pdb::PdbHeuristic`) and the family traits name it
//! (`family::Registered::mirror_board`).

use crate::domain::Domain;
use crate::state::{check_permutation, State, MAX_CELLS};
use crate::PuzzleError;

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
    pub(crate) md: [[u8; MAX_CELLS]; MAX_CELLS],
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
