//! The PDDL reader and the grounder on arbitrary bytes.
//!
//! Input: one flag byte, then the domain text, a NUL byte, the problem text
//! (PDDL holds no NUL, so real files split cleanly; without a NUL the whole
//! text is tried as both). The flag's low bit turns off relevance pruning:
//! the CLI grounds with it, the workers' labelling without it, and the two
//! take different paths after the fixpoint. Non-UTF-8 bytes are replaced, as
//! the text reaches the parser only as `&str`.
//!
//! Must not panic, whatever the input: every refusal is a `LoadError`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flag, rest)) = data.split_first() else { return };
    let (domain, problem) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, rest),
    };
    let domain = String::from_utf8_lossy(domain);
    let problem = String::from_utf8_lossy(problem);
    let prune = flag & 1 == 0;
    if let Ok(task) = planner::label::load(&domain, &problem, prune) {
        // The initial state packs the task's facts: a cheap check that the
        // numbering the grounder produced is consistent.
        let _ = planner::state::initial_state(&task);
    }
});
