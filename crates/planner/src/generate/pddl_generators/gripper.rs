//! gripper: `python3 gripper.py -s SEED --randomize BALLS`
//! (`pddl_generators/gripper/gripper.py`; `gripper/__init__.py` passes the
//! arguments after `--` through). With `--randomize`, `random.seed(seed)`
//! then `random.choice(["rooma","roomb"])` for each ball's initial room, the
//! robot's room, and each ball's goal room, in that order (gripper.py:25-30,
//! 41-44). The balls are ball0..ball{BALLS-1}.

use super::python_random::PythonRandom;

const ROOMS: [&str; 2] = ["rooma", "roomb"];

pub fn generate(balls: u32, seed: u64) -> String {
    let mut rng = PythonRandom::seed(seed);
    let mut init: Vec<String> =
        ["(room rooma)", "(room roomb)", "(gripper left)", "(gripper right)"].iter().map(|s| s.to_string()).collect();
    init.extend((0..balls).map(|i| format!("(ball ball{i})")));
    init.extend(["(free left)".to_string(), "(free right)".to_string()]);
    for i in 0..balls {
        init.push(format!("(at ball{i} {})", rng.choice(&ROOMS)));
    }
    init.push(format!("(at-robby {})", rng.choice(&ROOMS)));
    let goal: Vec<String> = (0..balls).map(|i| format!("(at ball{i} {})", rng.choice(&ROOMS))).collect();
    let objects: Vec<String> = (0..balls).map(|i| format!("ball{i}")).collect();
    // print() ends each line; `" ".join([])` leaves the separators around it.
    format!(
        "(define (problem gripper)\n (:domain gripper-strips)\n (:objects rooma roomb left right {})\n (:init {})\n (:goal (and {})))\n",
        objects.join(" "),
        init.join(" "),
        goal.join(" ")
    )
}
