//! Marom & Rosman's likely-admissible heuristics (ICAPS 2020) on the
//! permutation puzzles of `crates/puzzles`.
