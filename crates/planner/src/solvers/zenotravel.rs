//! Zenotravel (IPC 2002 STRIPS): Trunda's solver, a genetic algorithm over
//! person -> plane assignments whose fitness is the length of a greedy plan.
//!
//! Planes carry any number of persons and fly between any two cities, so
//! once each person who must move is assigned a plane, the planes' problems
//! are independent *components*: a plane collects and delivers its persons
//! and ends in its goal city. A component is solved greedily (thesis,
//! "Labels"): on the *delivery graph* (an edge c1 -> c2 for each of its
//! persons waiting in c1 who must reach c2), the plane visits cities in
//! topological order, debarking the persons it carries for the city and
//! boarding those waiting there, starting where it stands and ending at its
//! goal city. Fuel is refuelled only when the tank is empty before a flight,
//! which needs the fewest refuels for a given route (each refuel buys one
//! flight). `zoom` (two levels for one flight) is never better than `fly`
//! under unit costs and is not used.
//!
//! Where the thesis is silent we chose:
//!
//! - **Cycles** in the delivery graph. The order is built one city at a time
//!   from the cities with work left (persons waiting there, or aboard and
//!   bound there): a city none of whose waiting persons' targets is still
//!   pending, that is with no incoming edge from a city not yet visited, comes
//!   first (the topological order). When every such city has incoming
//!   edges, the graph has a cycle, and the city with the fewest incoming
//!   edges is visited (in both cases, ties go to a city that is not the
//!   plane's goal, then to the most persons waiting, then by name): the persons
//!   bound for it board elsewhere later, and the city is visited again. Each
//!   visit boards or debarks someone, so the route ends, and every person is
//!   delivered (sound), at the price of one extra visit per broken edge set.
//! - **Persons already aboard** in the given state stay with their plane (they
//!   are not genes) and leave it at their goal; persons with no goal, or at
//!   their goal, do not move.
//! - **The GA.** Genome: one plane per person who must move. Population 100:
//!   "everyone on plane j" for each plane (up to 25), "the plane standing at
//!   the person's city, else the first plane", the rest uniform. Each
//!   generation keeps the 2 best and breeds the rest from two 3-way
//!   tournaments: single-point crossover (probability 0.9), then with
//!   probability 0.5 one mutation of five kinds (re-assign one person; swap two
//!   persons' planes; give all persons waiting in one city one plane; the same
//!   for one goal city; move all of one plane's persons to another). It stops
//!   after 20 generations without a better best (as in the thesis), or at 2000
//!   generations. Then a local search re-assigns single persons while that
//!   shortens the plan (an addition to the thesis: it can only shorten).
//! - The random stream is ChaCha8 seeded with the seed; every choice is in
//!   name order otherwise, so a seed fixes the plan.

use std::collections::HashMap;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Instance, Names, Plan, SolverError, SolverInfo, Step};

pub static SOLVER: SolverInfo = SolverInfo {
    name: "zenotravel-ga",
    description: "genetic algorithm over person-plane assignments, greedy plane routes (Trunda 2023)",
    domains: &["zenotravel"],
    solve,
};

const NAME: &str = "zenotravel-ga";
const POPULATION: usize = 100;
const STALL_GENERATIONS: usize = 20;
const MAX_GENERATIONS: usize = 2000;
const ELITES: usize = 2;
const TOURNAMENT: usize = 3;
const CROSSOVER: f64 = 0.9;
const MUTATION: f64 = 0.5;
/// The fitness of an assignment some plane cannot fly.
const INFEASIBLE: u64 = u64::MAX;

struct PlaneState {
    /// None: the state does not place it (a grounding pruned a plane no goal
    /// needs); such a plane stays out of every plan.
    city: Option<usize>,
    /// Fuel level, as a position in the `next` chain (0 = empty); None: not
    /// in the state (pruned), so the plane does not fly.
    fuel: Option<usize>,
    goal: Option<usize>,
}

/// A person who must move: where it waits (None: aboard `fixed`'s plane) and
/// where it must go.
#[derive(Debug, Clone, Copy)]
struct Job {
    person: usize,
    from: Option<usize>,
    to: usize,
}

struct World {
    planes: Names,
    persons: Names,
    cities: Names,
    levels: Vec<String>,
    plane: Vec<PlaneState>,
    /// Persons that must move and wait in a city: the genes.
    movable: Vec<Job>,
    /// Persons aboard a plane with a goal elsewhere, by plane.
    aboard: Vec<Vec<Job>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    Fly(usize),
    Board(usize, usize),
    Debark(usize, usize),
}

/// Solves the instance's state; `seed` fixes the genetic algorithm.
pub fn solve(inst: &Instance, seed: u64) -> Result<Plan, SolverError> {
    inst.check_actions(NAME, &[("board", 3), ("debark", 3), ("fly", 5), ("refuel", 4)], &[("zoom", 6)])?;
    let w = World::read(inst)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let assignment = w.search(&mut rng);
    if w.fitness(&assignment) == INFEASIBLE {
        return Err(SolverError::Unsolvable(format!(
            "{NAME}: a plane must fly but has no fuel and cannot refuel (fuel levels: {})",
            w.levels.len()
        )));
    }
    let mut steps = vec![];
    for a in 0..w.planes.len() {
        let jobs = w.jobs_of(a, &assignment);
        w.emit(a, &w.route(a, &jobs), &mut steps)?;
    }
    Ok(Plan { steps })
}

impl World {
    fn read(inst: &Instance) -> Result<World, SolverError> {
        let malformed = |m: String| SolverError::Unsupported(format!("not a zenotravel state: {m}"));
        for f in &inst.goal {
            if f.predicate != "at" || f.args.len() != 2 {
                return Err(SolverError::Unsupported(format!(
                    "{NAME} handles `(at x city)` goals only, not ({} ...)",
                    f.predicate
                )));
            }
        }
        let levels = fuel_chain(inst)?;
        let level_of: HashMap<&str, usize> = levels.iter().enumerate().map(|(i, l)| (l.as_str(), i)).collect();
        let (mut planes, mut persons, mut cities) = (vec![], vec![], vec![]);
        for f in &inst.state {
            match (f.predicate.as_str(), f.args.as_slice()) {
                ("aircraft", [a]) | ("fuel-level", [a, _]) => planes.push(a.clone()),
                ("person", [p]) | ("in", [p, _]) => persons.push(p.clone()),
                ("city", [c]) => cities.push(c.clone()),
                _ => {}
            }
        }
        let planes = Names::from_sorted(planes);
        for f in inst.state.iter().chain(&inst.goal) {
            if let ("at", [x, c]) = (f.predicate.as_str(), f.args.as_slice()) {
                if planes.get(x).is_none() {
                    persons.push(x.clone());
                }
                cities.push(c.clone());
            }
        }
        let persons = Names::from_sorted(persons);
        let cities = Names::from_sorted(cities);
        if let Some(p) = persons.names.iter().find(|p| planes.get(p).is_some()) {
            return Err(malformed(format!("{p} is both a person and a plane")));
        }
        let (np, nq) = (planes.len(), persons.len());
        let mut plane_city = vec![None; np];
        let mut plane_fuel = vec![None; np];
        let mut person_at: Vec<Option<(Option<usize>, usize)>> = vec![None; nq];
        for f in &inst.state {
            match (f.predicate.as_str(), f.args.as_slice()) {
                ("at", [x, c]) => {
                    let c = cities.get(c).expect("named above");
                    let twice = match planes.get(x) {
                        Some(a) => plane_city[a].replace(c).is_some(),
                        None => person_at[persons.get(x).expect("named above")].replace((Some(c), 0)).is_some(),
                    };
                    if twice {
                        return Err(malformed(format!("{x} is in two places")));
                    }
                }
                ("in", [p, a]) => {
                    let a = planes.get(a).ok_or_else(|| malformed(format!("{p} is in {a}, which is no plane")))?;
                    if person_at[persons.get(p).expect("named above")].replace((None, a)).is_some() {
                        return Err(malformed(format!("{p} is in two places")));
                    }
                }
                ("fuel-level", [a, l]) => {
                    let l = *level_of
                        .get(l.as_str())
                        .ok_or_else(|| malformed(format!("{a}'s fuel level {l} is not in the `next` chain")))?;
                    if plane_fuel[planes.get(a).expect("named above")].replace(l).is_some() {
                        return Err(malformed(format!("{a} has two fuel levels")));
                    }
                }
                _ => {}
            }
        }
        let mut goal_city: HashMap<&str, usize> = HashMap::new();
        for f in &inst.goal {
            let c = cities.get(&f.args[1]).expect("named above");
            if goal_city.insert(&f.args[0], c).is_some_and(|d| d != c) {
                return Err(SolverError::Unsolvable(format!("the goal puts {} in two cities", f.args[0])));
            }
        }
        // A grounding prunes the facts of objects no goal needs: a plane or
        // person the state does not place is fine unless a goal names it.
        let mut plane = vec![];
        for a in 0..np {
            let name = planes.name(a);
            let goal = goal_city.get(name).copied();
            if plane_city[a].is_none() && goal.is_some() {
                return Err(malformed(format!("{name} is nowhere")));
            }
            plane.push(PlaneState { city: plane_city[a], fuel: plane_fuel[a], goal });
        }
        let mut movable = vec![];
        let mut aboard = vec![vec![]; np];
        for (q, at) in person_at.iter().enumerate() {
            let name = persons.name(q);
            let Some(&to) = goal_city.get(name) else { continue };
            let at = at.ok_or_else(|| malformed(format!("{name} is nowhere")))?;
            match at {
                (Some(c), _) if c == to => {}
                (Some(c), _) => movable.push(Job { person: q, from: Some(c), to }),
                (None, a) => aboard[a].push(Job { person: q, from: None, to }),
            }
        }
        if !movable.is_empty() && plane.iter().all(|p| p.city.is_none()) {
            return Err(SolverError::Unsolvable("persons must travel and there is no plane".into()));
        }
        Ok(World { planes, persons, cities, levels, plane, movable, aboard })
    }

    /// Plane `a`'s persons: those aboard it and the genes assigned to it.
    fn jobs_of(&self, a: usize, assignment: &[usize]) -> Vec<Job> {
        let mut jobs = self.aboard[a].clone();
        jobs.extend(self.movable.iter().zip(assignment).filter(|(_, &p)| p == a).map(|(j, _)| *j));
        jobs
    }

    /// The greedy route of plane `a` for `jobs` (module docs).
    fn route(&self, a: usize, jobs: &[Job]) -> Vec<Event> {
        let nc = self.cities.len();
        let mut waiting: Vec<Job> = jobs.iter().filter(|j| j.from.is_some()).copied().collect();
        let mut carried: Vec<Job> = jobs.iter().filter(|j| j.from.is_none()).copied().collect();
        let Some(mut cur) = self.plane[a].city else {
            // Not placed: unusable, so any job makes the assignment infeasible.
            return if jobs.is_empty() { vec![] } else { vec![Event::Fly(usize::MAX)] };
        };
        let mut events = vec![];
        let mut indeg = vec![0usize; nc];
        let mut waits = vec![0usize; nc];
        let mut work = vec![false; nc];
        loop {
            carried.retain(|j| {
                let here = j.to == cur;
                if here {
                    events.push(Event::Debark(j.person, cur));
                }
                !here
            });
            waiting.retain(|j| {
                let here = j.from == Some(cur);
                if here {
                    events.push(Event::Board(j.person, cur));
                    carried.push(Job { from: None, ..*j });
                }
                !here
            });
            if waiting.is_empty() && carried.is_empty() {
                break;
            }
            indeg.iter_mut().for_each(|x| *x = 0);
            waits.iter_mut().for_each(|x| *x = 0);
            work.iter_mut().for_each(|x| *x = false);
            for j in &waiting {
                let from = j.from.expect("waiting");
                indeg[j.to] += 1;
                waits[from] += 1;
                work[from] = true;
            }
            for j in &carried {
                work[j.to] = true;
            }
            let goal = self.plane[a].goal;
            let next = (0..nc)
                .filter(|&c| work[c])
                .min_by_key(|&c| (indeg[c], goal == Some(c), usize::MAX - waits[c], c))
                .expect("work is left");
            events.push(Event::Fly(next));
            cur = next;
        }
        if let Some(g) = self.plane[a].goal {
            if g != cur {
                events.push(Event::Fly(g));
            }
        }
        events
    }

    /// A route's length in actions, refuels included; INFEASIBLE when the
    /// plane cannot refuel and has too little fuel.
    fn route_cost(&self, a: usize, events: &[Event]) -> u64 {
        let flights = events.iter().filter(|e| matches!(e, Event::Fly(_))).count();
        if flights == 0 {
            return events.len() as u64;
        }
        let (Some(_), Some(fuel)) = (self.plane[a].city, self.plane[a].fuel) else { return INFEASIBLE };
        let refuels = flights.saturating_sub(fuel);
        if refuels > 0 && self.levels.len() < 2 {
            return INFEASIBLE;
        }
        (events.len() + refuels) as u64
    }

    /// The total plan length of an assignment (the GA's fitness).
    fn fitness(&self, assignment: &[usize]) -> u64 {
        let mut total = 0u64;
        for a in 0..self.planes.len() {
            let c = self.route_cost(a, &self.route(a, &self.jobs_of(a, assignment)));
            if c == INFEASIBLE {
                return INFEASIBLE;
            }
            total += c;
        }
        total
    }

    /// Writes plane `a`'s route (a feasible one: see `route_cost`) as
    /// actions, refuelling when empty.
    fn emit(&self, a: usize, events: &[Event], steps: &mut Vec<Step>) -> Result<(), SolverError> {
        let an = self.planes.name(a);
        let Some(mut cur) = self.plane[a].city else { return Ok(()) };
        let mut fuel = self.plane[a].fuel;
        let infeasible = || SolverError::Unsolvable(format!("{NAME}: {an} cannot fly (a bug: its route was chosen)"));
        for e in events {
            match *e {
                Event::Board(p, c) => steps.push(Step::new("board", &[self.persons.name(p), an, self.cities.name(c)])),
                Event::Debark(p, c) => {
                    steps.push(Step::new("debark", &[self.persons.name(p), an, self.cities.name(c)]))
                }
                Event::Fly(to) => {
                    let mut f = fuel.ok_or_else(infeasible)?;
                    if f == 0 {
                        let (l, l1) = (&self.levels[0], self.levels.get(1).ok_or_else(infeasible)?);
                        steps.push(Step::new("refuel", &[an, self.cities.name(cur), l, l1]));
                        f = 1;
                    }
                    let (c1, c2) = (self.cities.name(cur), self.cities.name(to));
                    steps.push(Step::new("fly", &[an, c1, c2, &self.levels[f], &self.levels[f - 1]]));
                    fuel = Some(f - 1);
                    cur = to;
                }
            }
        }
        Ok(())
    }

    /// The genetic algorithm, then single re-assignments while they help.
    fn search(&self, rng: &mut ChaCha8Rng) -> Vec<usize> {
        let (m, k) = (self.movable.len(), self.planes.len());
        if m == 0 || k <= 1 {
            return vec![0; m];
        }
        let mut cache: HashMap<Vec<usize>, u64> = HashMap::new();
        let mut eval = |g: &Vec<usize>| -> u64 { *cache.entry(g.clone()).or_insert_with(|| self.fitness(g)) };
        let mut genomes: Vec<Vec<usize>> = (0..k.min(POPULATION / 4)).map(|a| vec![a; m]).collect();
        genomes.push(
            self.movable
                .iter()
                .map(|j| (0..k).find(|&a| self.plane[a].city.is_some() && self.plane[a].city == j.from).unwrap_or(0))
                .collect(),
        );
        while genomes.len() < POPULATION {
            genomes.push((0..m).map(|_| rng.gen_range(0..k)).collect());
        }
        let mut pop: Vec<(u64, Vec<usize>)> = genomes.into_iter().map(|g| (eval(&g), g)).collect();
        let mut best = INFEASIBLE;
        let mut stall = 0;
        for _ in 0..MAX_GENERATIONS {
            pop.sort_by_key(|(f, _)| *f);
            if pop[0].0 < best {
                best = pop[0].0;
                stall = 0;
            } else {
                stall += 1;
                if stall >= STALL_GENERATIONS {
                    break;
                }
            }
            let mut next: Vec<(u64, Vec<usize>)> = pop[..ELITES].to_vec();
            while next.len() < POPULATION {
                let a = tournament(&pop, rng);
                let b = tournament(&pop, rng);
                let mut child = if rng.gen_bool(CROSSOVER) {
                    let cut = rng.gen_range(1..m.max(2));
                    let mut c = pop[a].1[..cut.min(m)].to_vec();
                    c.extend_from_slice(&pop[b].1[cut.min(m)..]);
                    c
                } else {
                    pop[a].1.clone()
                };
                if rng.gen_bool(MUTATION) {
                    self.mutate(&mut child, rng);
                }
                next.push((eval(&child), child));
            }
            pop = next;
        }
        pop.sort_by_key(|(f, _)| *f);
        let (mut best_f, mut best_g) = pop.swap_remove(0);
        loop {
            let mut improved = false;
            for i in 0..m {
                for a in 0..k {
                    if a == best_g[i] {
                        continue;
                    }
                    let old = std::mem::replace(&mut best_g[i], a);
                    let f = eval(&best_g);
                    if f < best_f {
                        best_f = f;
                        improved = true;
                    } else {
                        best_g[i] = old;
                    }
                }
            }
            if !improved {
                break;
            }
        }
        best_g
    }

    /// One mutation, of a uniformly drawn kind (module docs).
    fn mutate(&self, g: &mut [usize], rng: &mut ChaCha8Rng) {
        let (m, k) = (g.len(), self.planes.len());
        let i = rng.gen_range(0..m);
        match rng.gen_range(0..5) {
            0 => g[i] = rng.gen_range(0..k),
            1 => {
                let j = rng.gen_range(0..m);
                g.swap(i, j);
            }
            2 | 3 => {
                let same_from = rng.gen_range(0..2) == 0;
                let key = |j: &Job| if same_from { j.from } else { Some(j.to) };
                let (k0, plane) = (key(&self.movable[i]), g[i]);
                for (x, j) in g.iter_mut().zip(&self.movable) {
                    if key(j) == k0 {
                        *x = plane;
                    }
                }
            }
            _ => {
                let from = g[i];
                let mut planes: Vec<usize> = (0..k).filter(|&a| a != from).collect();
                planes.shuffle(rng);
                for x in g.iter_mut().filter(|x| **x == from) {
                    *x = planes[0];
                }
            }
        }
    }
}

/// The best of `TOURNAMENT` members drawn uniformly (the population is sorted).
fn tournament(pop: &[(u64, Vec<usize>)], rng: &mut ChaCha8Rng) -> usize {
    (0..TOURNAMENT).map(|_| rng.gen_range(0..pop.len())).min().expect("TOURNAMENT > 0")
}

/// The fuel levels in `next` order (`next l l+1`), empty first. No `next`
/// atom means one level per `fuel-level` atom's level (planes cannot fly).
fn fuel_chain(inst: &Instance) -> Result<Vec<String>, SolverError> {
    let bad = |m: &str| SolverError::Unsupported(format!("fuel levels are not one `next` chain: {m}"));
    let mut succ: HashMap<&str, &str> = HashMap::new();
    let mut pred: HashMap<&str, &str> = HashMap::new();
    for f in inst.state.iter().filter(|f| f.predicate == "next" && f.args.len() == 2) {
        let (l, l1) = (f.args[0].as_str(), f.args[1].as_str());
        if succ.insert(l, l1).is_some_and(|x| x != l1) || pred.insert(l1, l).is_some_and(|x| x != l) {
            return Err(bad(&format!("a level has two neighbours ({l}, {l1})")));
        }
    }
    if succ.is_empty() {
        let mut levels: Vec<String> = inst
            .state
            .iter()
            .filter(|f| f.predicate == "fuel-level" && f.args.len() == 2)
            .map(|f| f.args[1].clone())
            .collect();
        levels.sort();
        levels.dedup();
        if levels.len() > 1 {
            return Err(bad("planes have different levels and no `next` relates them"));
        }
        return Ok(levels);
    }
    let mut starts: Vec<&str> = succ.keys().filter(|l| !pred.contains_key(*l)).copied().collect();
    starts.sort_unstable();
    let [start] = starts[..] else {
        return Err(bad(&format!("{} levels have no predecessor", starts.len())));
    };
    let mut chain = vec![start.to_string()];
    let mut cur = start;
    while let Some(&n) = succ.get(cur) {
        if chain.len() > succ.len() {
            return Err(bad("it has a cycle"));
        }
        chain.push(n.to_string());
        cur = n;
    }
    if chain.len() != succ.len() + 1 {
        return Err(bad("it is not connected"));
    }
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::Fact;

    fn inst(state: &[&[&str]], goal: &[&[&str]]) -> Instance {
        let fact = |a: &&[&str]| Fact::new(a[0], &a[1..]);
        Instance {
            domain: "zeno-travel".into(),
            state: state.iter().map(fact).collect(),
            goal: goal.iter().map(fact).collect(),
            actions: [("board", 3), ("debark", 3), ("fly", 5), ("zoom", 6), ("refuel", 4)]
                .into_iter()
                .map(|(a, n)| (a.to_string(), n))
                .collect(),
            actions_complete: true,
        }
    }

    const LEVELS: &[&[&str]] = &[&["next", "fl0", "fl1"], &["next", "fl1", "fl2"]];

    fn text(plan: &Plan) -> Vec<String> {
        plan.steps.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn one_plane_collects_delivers_refuels_and_goes_home() {
        let mut state: Vec<&[&str]> = vec![
            &["at", "plane1", "c0"],
            &["fuel-level", "plane1", "fl1"],
            &["at", "p1", "c1"],
            &["in", "p2", "plane1"],
        ];
        state.extend(LEVELS);
        let i = inst(&state, &[&["at", "p1", "c2"], &["at", "p2", "c1"], &["at", "plane1", "c0"]]);
        assert_eq!(
            text(&solve(&i, 1).unwrap()),
            [
                "(fly plane1 c0 c1 fl1 fl0)",
                "(debark p2 plane1 c1)",
                "(board p1 plane1 c1)",
                "(refuel plane1 c1 fl0 fl1)",
                "(fly plane1 c1 c2 fl1 fl0)",
                "(debark p1 plane1 c2)",
                "(refuel plane1 c2 fl0 fl1)",
                "(fly plane1 c2 c0 fl1 fl0)",
            ]
        );
    }

    #[test]
    fn a_delivery_cycle_costs_one_extra_visit() {
        // p1: a -> b, p2: b -> a; the plane stands in c.
        let mut state: Vec<&[&str]> =
            vec![&["at", "plane1", "c"], &["fuel-level", "plane1", "fl2"], &["at", "p1", "a"], &["at", "p2", "b"]];
        state.extend(LEVELS);
        let plan = solve(&inst(&state, &[&["at", "p1", "b"], &["at", "p2", "a"]]), 1).unwrap();
        // 3 flights, 1 refuel, 2 boards, 2 debarks.
        assert_eq!(plan.cost(), 8, "{:?}", text(&plan));
    }

    #[test]
    fn two_planes_split_the_persons() {
        // Each plane stands where one person waits: best is one each.
        let mut state: Vec<&[&str]> = vec![
            &["at", "plane1", "a"],
            &["at", "plane2", "b"],
            &["fuel-level", "plane1", "fl2"],
            &["fuel-level", "plane2", "fl2"],
            &["at", "p1", "a"],
            &["at", "p2", "b"],
        ];
        state.extend(LEVELS);
        let i = inst(&state, &[&["at", "p1", "c"], &["at", "p2", "d"]]);
        for seed in 0..5 {
            assert_eq!(solve(&i, seed).unwrap().cost(), 6);
        }
    }

    #[test]
    fn refusals_are_clear() {
        let state: &[&[&str]] = &[&["at", "plane1", "a"], &["fuel-level", "plane1", "fl0"], &["at", "p1", "a"]];
        let e = solve(&inst(state, &[&["at", "p1", "b"]]), 1).unwrap_err();
        assert!(matches!(e, SolverError::Unsolvable(_)), "{e}");
        let e = solve(&inst(state, &[&["in", "p1", "plane1"]]), 1).unwrap_err();
        assert!(e.to_string().contains("`(at x city)` goals only"), "{e}");
        let e = solve(&inst(&[&["at", "p1", "a"], &["at", "p1", "b"]], &[]), 1).unwrap_err();
        assert!(e.to_string().contains("two places"), "{e}");
        let cyclic: &[&[&str]] = &[&["next", "fl0", "fl1"], &["next", "fl1", "fl0"]];
        let e = solve(&inst(cyclic, &[]), 1).unwrap_err();
        assert!(e.to_string().contains("chain"), "{e}");
    }
}
