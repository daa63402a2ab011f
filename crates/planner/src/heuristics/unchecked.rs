//! Indexing without bounds checks, for the innermost loops of the relaxed
//! heuristics. Every index used with these comes from the CSR tables of
//! [`RelaxedTask`](super::RelaxedTask) or [`LmCut`](super::LmCut), which hold
//! only valid proposition and operator ids by construction; debug builds (and
//! therefore the tests) still check every access.

#[inline(always)]
pub(crate) fn at<T>(v: &[T], i: usize) -> &T {
    debug_assert!(i < v.len(), "index {i} out of bounds {}", v.len());
    // SAFETY: see the module comment: `i < v.len()` by construction of the tables.
    unsafe { v.get_unchecked(i) }
}

#[inline(always)]
pub(crate) fn at_mut<T>(v: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < v.len(), "index {i} out of bounds {}", v.len());
    // SAFETY: as for `at`.
    unsafe { v.get_unchecked_mut(i) }
}
