//! `hfarm generate` and `hfarm domain`: the shipped instance generators.
//!
//! Domain names, generator flags and their help come from the domains'
//! descriptors (`planner::generate::DOMAINS`): one `--NAME` flag per
//! parameter name of any registered domain.

use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgMatches, Command};
use planner::generate::{self, DomainInfo, Param, ParamError, ParamValues, DOMAINS};

/// The registered domains, with their descriptions for `--help`.
fn domain_names() -> PossibleValuesParser {
    PossibleValuesParser::new(DOMAINS.iter().map(|d| PossibleValue::new(d.name).help(d.description)))
}

fn domain_info(name: &str) -> Result<&'static DomainInfo> {
    generate::domain(name).ok_or_else(|| {
        anyhow!("unknown domain `{name}`; expected one of {}", generate::names().collect::<Vec<_>>().join(", "))
    })
}

#[derive(clap::Args)]
pub struct Args {
    /// The domain to generate a problem of.
    #[arg(value_parser = domain_names())]
    pub domain: String,
    /// The generator's seed: the same seed and parameters give the same problem.
    #[arg(long)]
    pub seed: u64,
    #[command(flatten)]
    pub params: GeneratorFlags,
}

#[derive(clap::Args)]
pub struct DomainArgs {
    /// The domain whose PDDL to print.
    #[arg(value_parser = domain_names())]
    pub domain: String,
}

/// The generator flags given, as (parameter name, text), in registry order.
pub struct GeneratorFlags(pub Vec<(&'static str, String)>);

/// Each parameter name of any registered domain, first seen first, with the
/// domains that take it.
fn flags() -> Vec<(&'static str, Vec<(&'static DomainInfo, &'static Param)>)> {
    let mut out: Vec<(&'static str, Vec<(&'static DomainInfo, &'static Param)>)> = vec![];
    for &d in DOMAINS {
        for p in d.params {
            match out.iter_mut().find(|(name, _)| *name == p.name) {
                Some((_, takers)) => takers.push((d, p)),
                None => out.push((p.name, vec![(d, p)])),
            }
        }
    }
    out
}

impl clap::FromArgMatches for GeneratorFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let given = flags().into_iter().filter_map(|(name, _)| m.get_one::<String>(name).map(|v| (name, v.clone())));
        Ok(GeneratorFlags(given.collect()))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for GeneratorFlags {
    fn augment_args(cmd: Command) -> Command {
        flags().into_iter().fold(cmd, |cmd, (name, takers)| {
            let help: Vec<String> = takers.iter().map(|(d, p)| format!("{}: {}", d.name, p.help)).collect();
            // Upper case, as derived flags show theirs (`--seed <SEED>`); clap wants a
            // &'static str here, and a few bytes leaked once per flag are fine.
            let value_name: &'static str = Box::leak(name.to_uppercase().into_boxed_str());
            cmd.arg(Arg::new(name).long(name).value_name(value_name).help(help.join("; ")))
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    let d = domain_info(&a.domain)?;
    let takes = || d.params.iter().map(|p| format!("--{}", p.name)).collect::<Vec<_>>().join(", ");
    let mut values = ParamValues::new();
    for (name, text) in &a.params.0 {
        let Some(p) = d.param(name) else {
            bail!("--{name} does not apply to {} (it takes {})", d.name, takes());
        };
        values.set(p.name, p.parse(text).map_err(|e| anyhow!("invalid value for --{name}: {e}"))?);
    }
    let params = d.make(&values).map_err(|e| match e {
        ParamError::DoesNotApply(p) => anyhow!("--{p} does not apply to {} (it takes {})", d.name, takes()),
        ParamError::Missing(p) => anyhow!("{} needs --{p}", d.name),
        ParamError::Invalid(p, message) => anyhow!("--{p} {message}"),
        ParamError::Build(message) => anyhow!(message),
    })?;
    let text = generate::generate(&params, a.seed).map_err(|e| anyhow!(e))?;
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

pub fn run_domain(a: DomainArgs) -> Result<ExitCode> {
    print!("{}", domain_info(&a.domain)?.pddl);
    Ok(ExitCode::SUCCESS)
}
