//! `hfarm generate` and `hfarm domain`: the shipped instance generators.

use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use planner::generate::{self, Params};

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DomainName {
    Blocksworld,
    Ferry,
    Gripper,
    Visitall,
}

impl DomainName {
    fn as_str(self) -> &'static str {
        match self {
            DomainName::Blocksworld => "blocksworld",
            DomainName::Ferry => "ferry",
            DomainName::Gripper => "gripper",
            DomainName::Visitall => "visitall",
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[arg(value_enum)]
    pub domain: DomainName,
    #[arg(long)]
    pub seed: u64,
    /// blocksworld: number of blocks.
    #[arg(long)]
    pub blocks: Option<u32>,
    /// ferry: number of locations.
    #[arg(long)]
    pub locations: Option<u32>,
    /// ferry: number of cars.
    #[arg(long)]
    pub cars: Option<u32>,
    /// gripper: number of balls.
    #[arg(long)]
    pub balls: Option<u32>,
    /// visitall: the grid is size x size (size x height with --height).
    #[arg(long)]
    pub size: Option<u32>,
    /// visitall: the grid's height, when it is not square.
    #[arg(long)]
    pub height: Option<u32>,
    /// visitall: probability that a cell is a goal.
    #[arg(long)]
    pub ratio: Option<f64>,
}

#[derive(clap::Args)]
pub struct DomainArgs {
    #[arg(value_enum)]
    pub domain: DomainName,
}

fn need<T>(v: Option<T>, flag: &str, domain: &str) -> Result<T> {
    v.ok_or_else(|| anyhow!("{domain} needs {flag}"))
}

pub fn run(a: Args) -> Result<ExitCode> {
    let d = a.domain.as_str();
    let given: Vec<&str> = [
        ("--blocks", a.blocks.is_some()),
        ("--locations", a.locations.is_some()),
        ("--cars", a.cars.is_some()),
        ("--balls", a.balls.is_some()),
        ("--size", a.size.is_some()),
        ("--height", a.height.is_some()),
        ("--ratio", a.ratio.is_some()),
    ]
    .into_iter()
    .filter_map(|(f, g)| g.then_some(f))
    .collect();
    let params = match a.domain {
        DomainName::Blocksworld => Params::Blocksworld { blocks: need(a.blocks, "--blocks N", d)? },
        DomainName::Ferry => {
            Params::Ferry { locations: need(a.locations, "--locations L", d)?, cars: need(a.cars, "--cars C", d)? }
        }
        DomainName::Gripper => Params::Gripper { balls: need(a.balls, "--balls B", d)? },
        DomainName::Visitall => Params::Visitall {
            size: need(a.size, "--size N", d)?,
            ratio: need(a.ratio, "--ratio R", d)?,
            height: a.height,
        },
    };
    let allowed: &[&str] = match a.domain {
        DomainName::Blocksworld => &["--blocks"],
        DomainName::Ferry => &["--locations", "--cars"],
        DomainName::Gripper => &["--balls"],
        DomainName::Visitall => &["--size", "--height", "--ratio"],
    };
    if let Some(extra) = given.iter().find(|f| !allowed.contains(f)) {
        bail!("{extra} does not apply to {d} (it takes {})", allowed.join(", "));
    }
    let text = generate::generate(&params, a.seed).map_err(|e| anyhow!(e))?;
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

pub fn run_domain(a: DomainArgs) -> Result<ExitCode> {
    print!("{}", generate::domain_pddl(a.domain.as_str()).expect("every listed domain ships"));
    Ok(ExitCode::SUCCESS)
}
