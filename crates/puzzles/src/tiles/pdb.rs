//! Additive sliding-tile PDBs (Korf & Felner 2002), built by a correct 0-1
//! breadth-first search.
//!
//! The abstract state is (where the k pattern tiles are, where the blank
//! is); the other tiles are indistinguishable. Moving the blank into a cell
//! of a non-pattern tile costs 0, swapping it with a pattern tile costs 1:
//! every real move is charged to at most one pattern of a partition, so the
//! entries of disjoint patterns add up to an admissible heuristic. The
//! stored entry of a placement is the least cost over the blank's cells.
//!
//! The search runs level by level (cost d = 0, 1, 2, ...), with a bitmask of
//! blank cells per placement (ranked by [`PartialPerm`]):
//!
//! - `seen[p]`: blank cells reached at cost <= d so far;
//! - `cur[p]`: blank cells reached at cost exactly d, not yet expanded;
//! - `next[p]`: blank cells reached at cost d + 1.
//!
//! Expanding `cur[p]` first closes it under 0-cost moves (a flood fill of
//! the free cells from those cells: the blank's whole region, all at cost
//! d), then swaps the blank with each pattern tile next to the region into
//! `next`. A state is *settled* when its region is flooded, never when it is
//! queued, so a state first queued through a cost-1 move and later reached
//! at cost 0 gets the lower cost (the paper's code marks states visited
//! when it pushes them and keeps the first, higher, cost). The first level
//! at which any region of a placement is settled is its entry.
//!
//! Memory: per placement one u8 entry and three masks (u16 up to 16 cells,
//! u32 above): 7 bytes per placement for the 15-puzzle (3.6 GB for 8 tiles),
//! 13 for the 24-puzzle. Levels run on `threads` threads, sharing the
//! placements in chunks; masks are atomics, so a thread may add a bit to any
//! placement's `next` while another reads it.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::thread;

use super::SlidingTile;
use crate::domain::Domain;
use crate::pdb::rank::{select, PartialPerm};
use crate::pdb::UNREACHED;
use crate::PuzzleError;

/// Checks a pattern: tiles 1..n, distinct, at least one.
pub fn check_pattern(d: &SlidingTile, pattern: &[u8]) -> Result<(), PuzzleError> {
    let n = d.size();
    if pattern.is_empty() {
        return Err(PuzzleError::BadPattern("a pattern needs at least one tile".into()));
    }
    let mut seen = 0u64;
    for &t in pattern {
        if t == 0 || t as usize >= n {
            return Err(PuzzleError::BadPattern(format!(
                "tile {t} is not a tile of the {} (1 to {}; the blank is never in a pattern)",
                d.name(),
                n - 1
            )));
        }
        if seen & (1 << t) != 0 {
            return Err(PuzzleError::BadPattern(format!("tile {t} appears twice in the pattern")));
        }
        seen |= 1 << t;
    }
    Ok(())
}

/// The table of `pattern` (ranked in the pattern's order), and statistics.
pub fn build(d: &SlidingTile, pattern: &[u8], threads: usize) -> Result<Vec<u8>, PuzzleError> {
    check_pattern(d, pattern)?;
    if d.size() <= 16 {
        Builder::<AtomicU16>::new(d, pattern, threads).run()
    } else {
        Builder::<AtomicU32>::new(d, pattern, threads).run()
    }
}

/// A blank-cell mask stored atomically (u16 or u32).
trait Mask: Send + Sync {
    fn zero() -> Self;
    fn get(&self) -> u32;
    /// Only by the thread that owns the placement in this level.
    fn set(&self, v: u32);
    fn or(&self, v: u32);
}

impl Mask for AtomicU16 {
    fn zero() -> Self {
        AtomicU16::new(0)
    }
    #[inline]
    fn get(&self) -> u32 {
        self.load(Relaxed) as u32
    }
    #[inline]
    fn set(&self, v: u32) {
        self.store(v as u16, Relaxed)
    }
    #[inline]
    fn or(&self, v: u32) {
        self.fetch_or(v as u16, Relaxed);
    }
}

impl Mask for AtomicU32 {
    fn zero() -> Self {
        AtomicU32::new(0)
    }
    #[inline]
    fn get(&self) -> u32 {
        self.load(Relaxed)
    }
    #[inline]
    fn set(&self, v: u32) {
        self.store(v, Relaxed)
    }
    #[inline]
    fn or(&self, v: u32) {
        self.fetch_or(v, Relaxed);
    }
}

/// Placements handed to a thread at a time (in units of blocks).
const CHUNK: usize = 2048;

struct Builder<M> {
    n: usize,
    width: usize,
    k: usize,
    pattern: Vec<u8>,
    pp: PartialPerm,
    /// Ranks the first k - inner tiles (a block's prefix).
    prefix_pp: PartialPerm,
    inner: usize,
    /// Placements that share a prefix: the last `inner` digits.
    block: usize,
    adjacent: [u64; 32],
    /// Cells outside the first column, outside the last column (where a
    /// shift by one may land).
    not_first_col: u64,
    not_last_col: u64,
    threads: usize,
    entries: Vec<AtomicU8>,
    seen: Vec<M>,
    cur: Vec<M>,
    next: Vec<M>,
}

impl<M: Mask> Builder<M> {
    fn new(d: &SlidingTile, pattern: &[u8], threads: usize) -> Builder<M> {
        let (n, k) = (d.size(), pattern.len());
        let pp = PartialPerm::new(n, k);
        let size = pp.size() as usize;
        let inner = k.min(2);
        let block = (k - inner..k).map(|i| n - i).product();
        let mut adjacent = [0u64; 32];
        for (cell, adj) in adjacent.iter_mut().enumerate().take(n) {
            *adj = d.neighbours(cell).iter().fold(0, |m, &c| m | 1 << c);
        }
        let fill = |len| (0..len).map(|_| M::zero()).collect::<Vec<M>>();
        let column = |c: usize| (0..n).filter(|x| x % d.width() == c).fold(0u64, |m, x| m | 1 << x);
        Builder {
            n,
            width: d.width(),
            k,
            pattern: pattern.to_vec(),
            pp,
            prefix_pp: PartialPerm::new(n, k - inner),
            inner,
            block,
            adjacent,
            not_first_col: !column(0),
            not_last_col: !column(d.width() - 1),
            threads: threads.max(1),
            entries: (0..size).map(|_| AtomicU8::new(UNREACHED)).collect(),
            seen: fill(size),
            cur: fill(size),
            next: fill(size),
        }
    }

    fn run(mut self) -> Result<Vec<u8>, PuzzleError> {
        // The goal: tile t on cell t, the blank on cell 0.
        let goal = self.pp.rank(&self.pattern) as usize;
        self.cur[goal].set(1);
        for level in 0u8.. {
            if level == UNREACHED {
                return Err(PuzzleError::TooLarge("abstract distances above 254".into()));
            }
            if !self.level(level) {
                break;
            }
            std::mem::swap(&mut self.cur, &mut self.next);
        }
        Ok(self.entries.into_iter().map(AtomicU8::into_inner).collect())
    }

    /// Settles every state at cost `level`; whether it queued any at the next.
    fn level(&self, level: u8) -> bool {
        let prefixes = self.pp.size() as usize / self.block;
        let counter = AtomicUsize::new(0);
        let pushed = AtomicBool::new(false);
        thread::scope(|scope| {
            for _ in 0..self.threads {
                scope.spawn(|| {
                    let mut local = Worker { pushed: false };
                    let popcnt = has_popcnt();
                    loop {
                        let start = counter.fetch_add(1, Relaxed) * CHUNK;
                        if start >= prefixes {
                            break;
                        }
                        let end = (start + CHUNK).min(prefixes);
                        if popcnt {
                            // SAFETY: the CPU has the instruction (checked at run time).
                            unsafe { self.expand_chunk_popcnt(start..end, level, &mut local) }
                        } else {
                            self.expand_chunk(start..end, level, &mut local)
                        }
                    }
                    if local.pushed {
                        pushed.store(true, Relaxed);
                    }
                });
            }
        });
        pushed.load(Relaxed)
    }

    fn expand_chunk(&self, prefixes: std::ops::Range<usize>, level: u8, w: &mut Worker) {
        for prefix in prefixes {
            self.expand_block(prefix, level, w);
        }
    }

    /// [`Builder::expand_chunk`] compiled for CPUs with a population-count
    /// instruction: ranking counts the cells below each tile's (the
    /// portable build counts bits in a dozen instructions; this one in one),
    /// about a third of the build's time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn expand_chunk_popcnt(&self, prefixes: std::ops::Range<usize>, level: u8, w: &mut Worker) {
        for prefix in prefixes {
            self.expand_block(prefix, level, w);
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn expand_chunk_popcnt(&self, prefixes: std::ops::Range<usize>, level: u8, w: &mut Worker) {
        self.expand_chunk(prefixes, level, w)
    }

    /// Expands the queued states of the placements sharing `prefix`.
    #[inline(always)]
    fn expand_block(&self, prefix: usize, level: u8, w: &mut Worker) {
        let base = prefix * self.block;
        let row = &self.cur[base..base + self.block];
        if row.iter().all(|m| m.get() == 0) {
            return;
        }
        let (k, inner) = (self.k, self.inner);
        let mut cells = [0u8; 32];
        self.prefix_pp.unrank(prefix as u64, &mut cells[..k - inner]);
        let used = cells[..k - inner].iter().fold(0u64, |m, &c| m | 1 << c);
        let all = (1u64 << self.n) - 1;
        let last_radix = self.n - k + 1;
        for (e, m) in row.iter().enumerate() {
            let queued = m.get();
            if queued == 0 {
                continue;
            }
            m.set(0);
            // The last `inner` tiles' cells from the offset in the block.
            let mut occupied = used;
            if inner == 2 {
                let c = select(all & !occupied, (e / last_radix) as u32);
                cells[k - 2] = c as u8;
                occupied |= 1 << c;
                let c = select(all & !occupied, (e % last_radix) as u32);
                cells[k - 1] = c as u8;
                occupied |= 1 << c;
            } else {
                let c = select(all & !occupied, e as u32);
                cells[k - 1] = c as u8;
                occupied |= 1 << c;
            }
            let rank = base + e;
            let seen = self.seen[rank].get();
            let start = queued as u64 & !(seen as u64);
            if start == 0 {
                continue;
            }
            let region = self.flood(start, all & !occupied);
            self.seen[rank].set(seen | region as u32);
            if self.entries[rank].load(Relaxed) == UNREACHED {
                self.entries[rank].store(level, Relaxed);
            }
            let mut tile_at = [0u8; 32];
            for (i, &c) in cells[..k].iter().enumerate() {
                tile_at[c as usize] = i as u8;
            }
            let mut blanks = region;
            while blanks != 0 {
                let b = blanks.trailing_zeros() as u8;
                blanks &= blanks - 1;
                let mut tiles = self.adjacent[b as usize] & occupied;
                while tiles != 0 {
                    let t = tiles.trailing_zeros() as u8;
                    tiles &= tiles - 1;
                    // The tile on t slides onto the blank's cell b; the blank
                    // goes to t.
                    let i = tile_at[t as usize] as usize;
                    cells[i] = b;
                    let succ = self.pp.rank(&cells[..k]) as usize;
                    cells[i] = t;
                    let bit = 1u32 << t;
                    if self.seen[succ].get() & bit == 0 && self.next[succ].get() & bit == 0 {
                        self.next[succ].or(bit);
                        w.pushed = true;
                    }
                }
            }
        }
    }

    /// The cells of `free` reachable from `start` through `free`.
    #[inline]
    fn flood(&self, start: u64, free: u64) -> u64 {
        let w = self.width;
        let mut m = start;
        loop {
            let grown =
                (m | ((m << 1) & self.not_first_col) | ((m >> 1) & self.not_last_col) | (m << w) | (m >> w)) & free;
            if grown == m {
                return m;
            }
            m = grown;
        }
    }
}

struct Worker {
    pushed: bool,
}

fn has_popcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdb::rank::PartialPerm;

    /// Values known by hand: two tiles of one row in reversed order are a
    /// linear conflict (Manhattan distance 2, but one of them must leave the
    /// row: 4); a tile one move from home costs 1; the goal costs 0.
    #[test]
    fn known_entries() {
        for (w, h) in [(3, 3), (4, 4), (5, 5)] {
            let d = SlidingTile::new(w, h).unwrap();
            let table = build(&d, &[1, 2], 2).unwrap();
            let pp = PartialPerm::new(w * h, 2);
            assert_eq!(table[pp.rank(&[1, 2]) as usize], 0, "goal");
            assert_eq!(table[pp.rank(&[2, 1]) as usize], 4, "{w}x{h}: linear conflict");
            assert_eq!(table[pp.rank(&[0, 2]) as usize], 1, "{w}x{h}: tile 1 one cell left");
            assert_eq!(table[pp.rank(&[1 + w as u8, 2]) as usize], 1, "{w}x{h}: tile 1 one row down");
        }
    }

    #[test]
    fn bad_patterns_are_refused() {
        let d = SlidingTile::new(3, 3).unwrap();
        let e = |p: &[u8]| check_pattern(&d, p).unwrap_err().to_string();
        assert!(e(&[]).contains("at least one"));
        assert!(e(&[0, 1]).contains("blank"));
        assert!(e(&[9]).contains("not a tile"));
        assert!(e(&[1, 1]).contains("twice"));
    }
}
