//! The parser, grounder and heuristics must never panic, whatever the bytes:
//! random text, and real domain files with random damage.

mod seeded;

use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics;
use proptest::prelude::*;

/// Parses (and, if that succeeds, grounds and evaluates) without panicking.
fn exercise(domain: &str, problem: &str) {
    let Ok(task) = planner::load_task_from_text(domain, "d.pddl", problem, "p.pddl") else { return };
    if task.num_facts() > 5000 || task.operators.len() > 5000 {
        return;
    }
    let init = planner::state::initial_state(&task);
    for &name in heuristics::NAMES {
        let mut h = heuristics::by_name(name, &task).unwrap();
        let _ = h.evaluate(&init);
    }
}

fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(pos, kind, byte) in edits {
        if bytes.is_empty() {
            break;
        }
        let i = pos % bytes.len();
        const ALPHABET: &[u8] = b"()?-: ;\nab=\xff\x00";
        let b = ALPHABET[byte as usize % ALPHABET.len()];
        match kind % 4 {
            0 => {
                bytes.remove(i);
            }
            1 => bytes.insert(i, b),
            2 => bytes[i] = b,
            _ => {
                // Duplicate a slice: nested or repeated structure.
                let j = (i + (byte as usize) * 7).min(bytes.len());
                let slice = bytes[i..j].to_vec();
                bytes.splice(i..i, slice);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(seeded::config(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text, &text);
        exercise(domain_pddl("gripper").unwrap(), &text);
    }

    #[test]
    fn damaged_domain_files_never_panic(which in 0usize..4, edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)) {
        let name = ["blocksworld", "ferry", "gripper", "visitall"][which];
        let params = [
            Params::Blocksworld { blocks: 4 },
            Params::Ferry { locations: 3, cars: 2 },
            Params::Gripper { balls: 3 },
            Params::Visitall { size: 3, ratio: 1.0, height: None },
        ][which];
        let domain = domain_pddl(name).unwrap();
        let problem = generate(&params, 1).unwrap();
        exercise(&mutate(domain, &edits), &problem);
        exercise(domain, &mutate(&problem, &edits));
    }
}

#[test]
fn every_error_names_file_line_and_column() {
    let domain = domain_pddl("blocksworld").unwrap();
    let problem = generate(&Params::Blocksworld { blocks: 3 }, 1).unwrap();
    let mut errors = 0;
    for cut in (1..problem.len()).step_by(7) {
        if let Err(e) = planner::load_task_from_text(domain, "d.pddl", &problem[..cut], "p.pddl") {
            let s = e.to_string();
            let mut parts = s.splitn(4, ':');
            assert_eq!(parts.next(), Some("p.pddl"), "{s}");
            assert!(parts.next().unwrap().parse::<u32>().is_ok(), "{s}");
            assert!(parts.next().unwrap().parse::<u32>().is_ok(), "{s}");
            errors += 1;
        }
    }
    assert!(errors > 10);
}
