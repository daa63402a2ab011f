//! `hfarm validate`: re-check a plan against the lifted PDDL.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use planner::{pddl, plan, read_text, validate};

#[derive(clap::Args)]
pub struct Args {
    /// The PDDL domain file.
    pub domain: PathBuf,
    /// The PDDL problem file.
    pub problem: PathBuf,
    /// The plan, one action per line in IPC format (`(pick ball1 rooma left)`; `;` starts a comment).
    pub plan: PathBuf,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let (df, pf, plf) = (a.domain.display().to_string(), a.problem.display().to_string(), a.plan.display().to_string());
    let domain = pddl::parse_domain(&read_text(&a.domain)?, &df)?;
    let problem = pddl::parse_problem(&read_text(&a.problem)?, &pf, &domain)?;
    let steps = plan::parse_plan(&read_text(&a.plan)?, &plf)?;
    match validate::validate(&domain, &problem, &steps) {
        Ok(cost) => {
            println!("{cost}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("invalid plan: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
