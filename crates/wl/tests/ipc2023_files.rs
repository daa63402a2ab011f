//! Every official file of the IPC 2023 learning track
//! (`benchmarks/ipc2023-learning/`) is read by our planner: every domain and
//! problem file parses; training problems and the easy test band also
//! ground. The medium and hard test problems are only parsed: grounding
//! them takes minutes (rovers' and sokoban's hard problems are megabytes of
//! PDDL each) and grounding is exercised on the same domains by the
//! training and easy problems.

use std::path::Path;

use wl::benchmark::{self, BANDS, DOMAINS};

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/ipc2023-learning")
}

#[test]
fn every_official_file_parses_and_small_ones_ground() {
    let mut failures = vec![];
    let mut counts = vec![];
    for d in DOMAINS {
        let set = benchmark::load(&dir(), d).unwrap();
        let domain_text = set.domain_pddl().unwrap();
        let domain = match planner::pddl::parse_domain(domain_text, &format!("{d}/domain.pddl")) {
            Ok(x) => x,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        let mut n = 0;
        let mut check = |p: benchmark::Problem<'_>, ground: bool| {
            n += 1;
            match planner::pddl::parse_problem(p.text, p.path, &domain) {
                Err(e) => failures.push(e.to_string()),
                Ok(problem) if ground => match planner::ground(&domain, &problem) {
                    Err(e) => failures.push(format!("{}: {e}", p.path)),
                    Ok(task) if task.unsolvable.is_some() => {
                        failures.push(format!("{}: grounded as relaxed-unsolvable", p.path))
                    }
                    Ok(_) => {}
                },
                Ok(_) => {}
            }
        };
        let training = set.training();
        assert!(training.len() >= 89, "{d}: {} training problems", training.len());
        training.into_iter().for_each(|p| check(p, true));
        for band in BANDS {
            let test = set.testing(band);
            // rovers' hard band is partial (benchmarks/ipc2023-learning/README.md).
            assert!(test.len() == 30 || (d, band) == ("rovers", "hard"), "{d} {band}: {}", test.len());
            test.into_iter().for_each(|p| check(p, band == "easy"));
        }
        counts.push((d, n));
    }
    assert!(failures.is_empty(), "{} files refused:\n{}", failures.len(), failures.join("\n"));
    let total: usize = counts.iter().map(|c| c.1).sum();
    assert_eq!(total, 1863, "{counts:?}");
}
