//! WL colour refinement on the ILG against a colour dictionary.
//!
//! A node's colour at iteration `t + 1` is a new name for the pair (its
//! colour at `t`, the multiset of (neighbour's colour, edge label)), as in
//! WLPlan. Names are assigned by a [`Dictionary`] built on training states
//! (one map per iteration); at test time a pair the dictionary lacks is
//! *unseen*: the node counts for nothing from then on, and neither does any
//! node that later has it as a neighbour (WLPlan's rule).
//!
//! Why hashes: a pair is keyed by a 64-bit hash instead of the vector
//! itself, so a refinement step allocates nothing. A proposition's
//! neighbours are its arguments, whose labels (positions) are distinct, so
//! hashing them in position order is canonical; an object's neighbours are
//! summed as hashes of (colour, label), an order-free multiset hash. Two
//! different pairs share a key with probability about 2^-64 per pair of
//! distinct pairs, far below anything a dictionary of millions of colours
//! could meet.

use rustc_hash::FxHashMap;

use crate::graph::{Description, Ilg, Nodes};

/// The colour a node gets from a pair that no training state had.
pub const UNSEEN: u32 = u32::MAX;

/// splitmix64's finaliser: a bijection on u64 with full avalanche.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn combine(h: u64, x: u64) -> u64 {
    mix(h.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ x)
}

/// FNV-1a: a hash of names that does not change between Rust versions.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The initial key of an object node.
pub fn object_key() -> u64 {
    mix(fnv("\0object"))
}

/// The initial keys of a predicate's proposition nodes, by [`crate::graph::Description`].
pub fn predicate_keys(name: &str) -> [u64; 3] {
    let h = fnv(name);
    [combine(h, 1), combine(h, 2), combine(h, 3)]
}

/// Colour names by iteration: key -> colour id, ids dense over all iterations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dictionary {
    maps: Vec<FxHashMap<u64, u32>>,
    len: u32,
}

impl Dictionary {
    /// An empty dictionary for `iterations` refinements (plus the initial colours).
    pub fn new(iterations: usize) -> Dictionary {
        Dictionary { maps: vec![FxHashMap::default(); iterations + 1], len: 0 }
    }

    pub fn iterations(&self) -> usize {
        self.maps.len() - 1
    }

    /// The number of colours (features).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The colour of `key` at iteration `t`, named now if new.
    pub fn insert(&mut self, t: usize, key: u64) -> u32 {
        let next = self.len;
        let c = *self.maps[t].entry(key).or_insert(next);
        if c == next {
            self.len += 1;
        }
        c
    }

    /// The colour of `key` at iteration `t`, or [`UNSEEN`].
    pub fn get(&self, t: usize, key: u64) -> u32 {
        self.maps[t].get(&key).copied().unwrap_or(UNSEEN)
    }

    /// Every (iteration, key, colour), sorted: what a model file stores.
    pub fn entries(&self) -> Vec<Vec<(u64, u32)>> {
        self.maps
            .iter()
            .map(|m| {
                let mut v: Vec<(u64, u32)> = m.iter().map(|(&k, &c)| (k, c)).collect();
                v.sort_unstable();
                v
            })
            .collect()
    }

    /// The inverse of [`Dictionary::entries`]; refuses ids that are not dense or repeat.
    pub fn from_entries(entries: Vec<Vec<(u64, u32)>>) -> Result<Dictionary, String> {
        if entries.is_empty() {
            return Err("a colour dictionary needs at least the initial colours (iteration 0)".into());
        }
        let total: usize = entries.iter().map(Vec::len).sum();
        let mut seen = vec![false; total];
        let mut maps = vec![];
        for (t, e) in entries.into_iter().enumerate() {
            let mut m = FxHashMap::default();
            for (k, c) in e {
                let slot = seen.get_mut(c as usize).ok_or_else(|| {
                    format!("colour {c} at iteration {t} is out of range (the dictionary has {total} colours)")
                })?;
                if std::mem::replace(slot, true) {
                    return Err(format!("colour {c} is named twice (iteration {t})"));
                }
                if m.insert(k, c).is_some() {
                    return Err(format!("key {k} appears twice at iteration {t}"));
                }
            }
            maps.push(m);
        }
        Ok(Dictionary { maps, len: total as u32 })
    }
}

/// Buffers reused between states.
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    nodes: Nodes,
    obj: Vec<u32>,
    obj_next: Vec<u32>,
    acc: Vec<u64>,
    obj_blocked: Vec<bool>,
    atom: Vec<u32>,
    atom_next: Vec<u32>,
}

/// Runs `iterations` rounds of refinement on `state`'s graph, naming
/// colours with `name(t, key)` (inserting or looking up), and calls `visit`
/// with the nodes' colours at every iteration (0 included; objects, then
/// atoms), [`UNSEEN`] among them. Slices, not single colours: a caller that
/// sums weights keeps its sum in a register over a whole slice.
/// `statics`, when given, must come from the dictionary `name` looks up in.
#[allow(clippy::too_many_arguments)] // distinct roles: bundling them would only rename them
pub fn refine(
    ilg: &Ilg,
    initial_keys: &[[u64; 3]],
    state: &[u64],
    iterations: usize,
    scratch: &mut Scratch,
    statics: Option<&StaticPart>,
    name: &mut impl FnMut(usize, u64) -> u32,
    visit: &mut impl FnMut(&[u32]),
) {
    let s = scratch;
    ilg.nodes(state, &mut s.nodes);
    let n_obj = ilg.num_objects;
    // Static atoms come first in the node list (`Ilg::nodes`).
    let n_static = if statics.is_some() { ilg.num_static() } else { 0 };
    let object0 = statics.map_or_else(|| name(0, object_key()), |p| p.object0);
    s.obj.clear();
    s.obj.resize(n_obj, object0);
    s.atom.clear();
    for (&a, &d) in s.nodes.atoms.iter().zip(&s.nodes.descriptions) {
        s.atom.push(match statics {
            Some(p) => p.colour[0][a as usize][d as usize],
            None => name(0, initial_keys[ilg.predicate(a) as usize][d as usize]),
        });
    }
    visit(&s.obj);
    visit(&s.atom);
    for t in 1..=iterations {
        // What static atoms send to objects at iterations 1 and 2 comes from
        // their colours at 0 and 1, which no state changes.
        let known = statics.filter(|_| t <= 2);
        s.acc.clear();
        s.obj_blocked.clear();
        match known {
            Some(p) => {
                s.acc.extend_from_slice(&p.acc[t - 1]);
                s.obj_blocked.extend_from_slice(&p.blocked[t - 1]);
            }
            None => {
                s.acc.resize(n_obj, 0);
                s.obj_blocked.resize(n_obj, false);
            }
        }
        s.atom_next.clear();
        for (i, &a) in s.nodes.atoms.iter().enumerate() {
            let c = s.atom[i];
            let is_static = i < n_static;
            let sends = !(is_static && known.is_some());
            let args = ilg.args(a);
            if let (Some(p), 1) = (statics, t) {
                // Every object has colour `object0` at iteration 0: an atom's
                // colour at 1 follows from its own, precomputed.
                if sends {
                    for (r, &o) in args.iter().enumerate() {
                        send(&mut s.acc, &mut s.obj_blocked, c, r, o);
                    }
                }
                s.atom_next.push(p.colour[1][a as usize][s.nodes.descriptions[i] as usize]);
                continue;
            }
            let mut key = combine(t as u64, c as u64);
            let mut blocked = c == UNSEEN;
            for (r, &o) in args.iter().enumerate() {
                let oc = s.obj[o as usize];
                if sends {
                    send(&mut s.acc, &mut s.obj_blocked, c, r, o);
                }
                blocked |= oc == UNSEEN;
                key = combine(key, ((oc as u64) << 16) ^ r as u64);
            }
            s.atom_next.push(if blocked { UNSEEN } else { name(t, combine(key, 0xa70)) });
        }
        s.obj_next.clear();
        for o in 0..n_obj {
            let c = s.obj[o];
            s.obj_next.push(if c == UNSEEN || s.obj_blocked[o] {
                UNSEEN
            } else {
                name(t, combine(combine(t as u64 ^ 0x0b1e_c700, c as u64), s.acc[o]))
            });
        }
        std::mem::swap(&mut s.obj, &mut s.obj_next);
        std::mem::swap(&mut s.atom, &mut s.atom_next);
        visit(&s.obj);
        visit(&s.atom);
    }
}

/// An atom of colour `c` at argument position `r` of object `o`: adds to
/// the object's multiset hash, or blocks the object when `c` is unseen.
fn send(acc: &mut [u64], blocked: &mut [bool], c: u32, r: usize, o: u32) {
    if c == UNSEEN {
        blocked[o as usize] = true;
    } else {
        acc[o as usize] = acc[o as usize].wrapping_add(mix(((c as u64) << 16) ^ (r as u64 + 1)));
    }
}

/// The part of refinement no state changes, against a fixed dictionary: at
/// iteration 0 every object has one colour, so every atom's colours at
/// iterations 0 and 1 follow from its predicate, arguments' count and
/// description alone, and static atoms (present in every state) send the
/// same to objects at iterations 1 and 2. Precomputed once per task, they
/// leave a search's evaluation one hash lookup per object at iteration 1
/// and one per node from iteration 2 on (miconic's `above`, rovers'
/// `visible` and `can_traverse` are most of their graphs).
#[derive(Debug, Clone)]
pub struct StaticPart {
    object0: u32,
    /// Every atom's colours at iterations 0 and 1, by [`Description`].
    colour: [Vec<[u32; 3]>; 2],
    /// Static atoms' sums (and blocks) per object, sent at iterations 1 and 2.
    acc: [Vec<u64>; 2],
    blocked: [Vec<bool>; 2],
}

impl StaticPart {
    pub fn new(ilg: &Ilg, initial_keys: &[[u64; 3]], dict: &Dictionary) -> StaticPart {
        let n_obj = ilg.num_objects;
        let object0 = dict.get(0, object_key());
        let atoms = 0..ilg.num_atoms() as u32;
        let c0: Vec<[u32; 3]> =
            atoms.clone().map(|a| initial_keys[ilg.predicate(a) as usize].map(|k| dict.get(0, k))).collect();
        let c1: Vec<[u32; 3]> = atoms
            .clone()
            .zip(&c0)
            .map(|(a, cs)| {
                cs.map(|c| {
                    let mut key = combine(1, c as u64);
                    for r in 0..ilg.args(a).len() {
                        key = combine(key, ((object0 as u64) << 16) ^ r as u64);
                    }
                    let blocked = c == UNSEEN || object0 == UNSEEN || dict.iterations() == 0;
                    if blocked {
                        UNSEEN
                    } else {
                        dict.get(1, combine(key, 0xa70))
                    }
                })
            })
            .collect();
        let fact = Description::Fact as usize;
        let sums = |cols: &[[u32; 3]]| {
            let (mut acc, mut blocked) = (vec![0u64; n_obj], vec![false; n_obj]);
            for a in 0..ilg.num_static() as u32 {
                for (r, &o) in ilg.args(a).iter().enumerate() {
                    send(&mut acc, &mut blocked, cols[a as usize][fact], r, o);
                }
            }
            (acc, blocked)
        };
        let (acc0, blocked0) = sums(&c0);
        let (acc1, blocked1) = sums(&c1);
        StaticPart { object0, colour: [c0, c1], acc: [acc0, acc1], blocked: [blocked0, blocked1] }
    }
}

/// A state's feature vector, sparse: (colour, count) sorted by colour.
pub fn counts(colours: &mut [u32]) -> Vec<(u32, f64)> {
    colours.sort_unstable();
    let mut out: Vec<(u32, f64)> = vec![];
    for &c in colours.iter() {
        match out.last_mut() {
            Some((last, n)) if *last == c => *n += 1.0,
            _ => out.push((c, 1.0)),
        }
    }
    out
}

/// Initial keys for every predicate of the graph.
pub fn initial_keys(ilg: &Ilg) -> Vec<[u64; 3]> {
    ilg.predicates.iter().map(|p| predicate_keys(p)).collect()
}

/// The features of `state`, naming new colours in `dict` (training).
pub fn features_train(
    ilg: &Ilg,
    keys: &[[u64; 3]],
    state: &[u64],
    dict: &mut Dictionary,
    scratch: &mut Scratch,
) -> Vec<(u32, f64)> {
    let mut cols = vec![];
    let iterations = dict.iterations();
    refine(ilg, keys, state, iterations, scratch, None, &mut |t, k| dict.insert(t, k), &mut |cs| {
        cols.extend(cs.iter().filter(|&&c| c != UNSEEN))
    });
    counts(&mut cols)
}

/// The features of `state` against a fixed dictionary (unseen colours left out).
pub fn features(
    ilg: &Ilg,
    keys: &[[u64; 3]],
    state: &[u64],
    dict: &Dictionary,
    scratch: &mut Scratch,
) -> Vec<(u32, f64)> {
    let mut cols = vec![];
    refine(ilg, keys, state, dict.iterations(), scratch, None, &mut |t, k| dict.get(t, k), &mut |cs| {
        cols.extend(cs.iter().filter(|&&c| c != UNSEEN))
    });
    counts(&mut cols)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::tests::{DOMAIN, PROBLEM};

    fn multiset(domain: &str, problem: &str, iterations: usize) -> Vec<usize> {
        let task = planner::label::load(domain, problem, false).unwrap();
        let ilg = Ilg::new(&task);
        let keys = initial_keys(&ilg);
        let mut dict = Dictionary::new(iterations);
        let f = features_train(&ilg, &keys, &planner::state::initial_state(&task), &mut dict, &mut Scratch::default());
        // Colour ids depend on the order nodes are met; the multiset of counts does not.
        let mut v: Vec<usize> = f.iter().map(|&(_, n)| n as usize).collect();
        v.sort();
        v
    }

    #[test]
    fn features_do_not_depend_on_object_names_or_order() {
        let a = multiset(DOMAIN, PROBLEM, 3);
        let renamed =
            PROBLEM.replace("(:objects a b c)", "(:objects z y x)").replace(" a)", " z)").replace(" a ", " z ");
        let renamed = renamed.replace(" b)", " y)").replace(" b ", " y ").replace(" c)", " x)").replace(" c ", " x ");
        assert!(renamed.contains("(on x z)"), "{renamed}");
        assert_eq!(a, multiset(DOMAIN, &renamed, 3));
        // Every iteration colours every node: 3 objects + 11 atoms, 4 times.
        assert_eq!(a.iter().sum::<usize>(), 14 * 4);
    }

    #[test]
    fn refinement_separates_what_its_iterations_can_see() {
        // a on table under c, b alone: at iteration 0 the two table blocks
        // look the same; after one refinement a (covered) differs from b (clear).
        let task = planner::label::load(DOMAIN, PROBLEM, false).unwrap();
        let ilg = Ilg::new(&task);
        let keys = initial_keys(&ilg);
        let s = planner::state::initial_state(&task);
        let mut d0 = Dictionary::new(0);
        let f0 = features_train(&ilg, &keys, &s, &mut d0, &mut Scratch::default());
        assert_eq!(f0.iter().find(|&&(c, _)| c == d0.get(0, object_key())).unwrap().1, 3.0);
        let mut d1 = Dictionary::new(1);
        features_train(&ilg, &keys, &s, &mut d1, &mut Scratch::default());
        // Three objects, three different neighbourhoods (a: ontable+under c, b: ontable+clear, c: on a+clear).
        let mut scratch = Scratch::default();
        let mut obj = vec![];
        refine(&ilg, &keys, &s, 1, &mut scratch, None, &mut |t, k| d1.get(t, k), &mut |cs| obj.extend_from_slice(cs));
        let it1_objects: std::collections::BTreeSet<u32> = scratch.obj.iter().copied().collect();
        assert_eq!(it1_objects.len(), 3);
        assert!(obj.iter().all(|&c| c != UNSEEN));
    }

    #[test]
    fn unseen_colours_count_for_nothing_and_spread() {
        let task = planner::label::load(DOMAIN, PROBLEM, false).unwrap();
        let ilg = Ilg::new(&task);
        let keys = initial_keys(&ilg);
        let s = planner::state::initial_state(&task);
        let mut dict = Dictionary::new(2);
        let seen = features_train(&ilg, &keys, &s, &mut dict, &mut Scratch::default());
        assert_eq!(features(&ilg, &keys, &s, &dict, &mut Scratch::default()), seen);
        // Holding c: a state no training state resembles at iteration 1.
        let mut t = s.clone();
        let holding_c = (0..task.facts.len() as u32).find(|&f| task.fact_name(f) == "(holding c)").unwrap();
        planner::state::set(&mut t, holding_c);
        let f = features(&ilg, &keys, &t, &dict, &mut Scratch::default());
        let total = |v: &[(u32, f64)]| v.iter().map(|x| x.1).sum::<f64>();
        // Iteration 0 sees every node (one more than before); later ones lose the
        // nodes next to (holding c), and more at iteration 2.
        assert!(total(&f) < total(&seen) + 1.0, "{} vs {}", total(&f), total(&seen));
        assert!(f.iter().all(|&(c, _)| (c as usize) < dict.len()));
    }

    #[test]
    fn dictionaries_round_trip_and_bad_ones_are_refused() {
        let mut d = Dictionary::new(1);
        d.insert(0, 5);
        d.insert(1, 7);
        d.insert(1, 5);
        assert_eq!(d.insert(1, 7), 1);
        assert_eq!(Dictionary::from_entries(d.entries()).unwrap(), d);
        assert!(Dictionary::from_entries(vec![vec![(1, 0)], vec![(2, 0)]]).unwrap_err().contains("named twice"));
        assert!(Dictionary::from_entries(vec![vec![(1, 4)]]).unwrap_err().contains("out of range"));
    }
}
