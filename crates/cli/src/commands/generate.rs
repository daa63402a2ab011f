//! `hfarm generate` and `hfarm domain`: the shipped instance generators.
//!
//! Domain names, generator flags and their help come from the domains'
//! descriptors (`planner::generate::DOMAINS`): one `--NAME` flag per
//! parameter name of any registered domain. `--like` picks the generator
//! family (`planner::generate::Generator`): hfarm's own, or pddl-generators
//! as the paper's code ran it, whose problems name its own domain files
//! (`hfarm domain NAME --like pddl-generators` prints them).

use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, ArgMatches, Command};
use planner::generate::{self, DomainInfo, Generator, Param, ParamError, ParamValues, DOMAINS};

/// The registered domains, with their descriptions for `--help`.
fn domain_names() -> PossibleValuesParser {
    PossibleValuesParser::new(DOMAINS.iter().map(|d| PossibleValue::new(d.name).help(d.description)))
}

/// The generator families, with what each is for `--help`.
fn generators() -> impl TypedValueParser<Value = Generator> {
    PossibleValuesParser::new(Generator::ALL.map(|g| {
        PossibleValue::new(g.name()).help(match g {
            Generator::Hfarm => "hfarm's generators (the default)",
            Generator::PddlGenerators => {
                "pddl-generators ddffd0eb's problems, byte for byte, as the paper generated them \
                 (blocksworld, ferry, gripper --randomize, visitall)"
            }
        })
    }))
    .try_map(|name| name.parse::<Generator>())
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
    /// Whose generator makes the problem.
    #[arg(long, value_name = "GENERATOR", default_value = "hfarm", value_parser = generators())]
    pub like: Generator,
    #[command(flatten)]
    pub params: GeneratorFlags,
}

#[derive(clap::Args)]
pub struct DomainArgs {
    /// The domain whose PDDL to print.
    #[arg(value_parser = domain_names())]
    pub domain: String,
    /// The domain file that this generator's problems are for.
    #[arg(long, value_name = "GENERATOR", default_value = "hfarm", value_parser = generators())]
    pub like: Generator,
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
    print!("{}", problem_text(&a)?);
    Ok(ExitCode::SUCCESS)
}

/// The problem that `hfarm generate` prints.
fn problem_text(a: &Args) -> Result<String> {
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
    generate::generate_with(&params, a.seed, a.like).map_err(|e| anyhow!(e))
}

pub fn run_domain(a: DomainArgs) -> Result<ExitCode> {
    print!("{}", domain_text(&a)?);
    Ok(ExitCode::SUCCESS)
}

/// The domain file that `hfarm domain` prints.
fn domain_text(a: &DomainArgs) -> Result<&'static str> {
    let d = domain_info(&a.domain)?;
    generate::domain_pddl_like(d.name, a.like)
        .ok_or_else(|| anyhow!("{} does not generate {} problems, so it has no {} domain file", a.like, d.name, d.name))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        command: Sub,
    }

    #[derive(clap::Subcommand)]
    enum Sub {
        Generate(Args),
        Domain(DomainArgs),
    }

    fn parse(args: &str) -> Result<Sub, clap::Error> {
        Cli::try_parse_from(std::iter::once("hfarm").chain(args.split_whitespace())).map(|c| c.command)
    }

    fn generate(args: &str) -> Result<String> {
        match parse(&format!("generate {args}"))? {
            Sub::Generate(a) => problem_text(&a),
            Sub::Domain(_) => unreachable!(),
        }
    }

    fn domain(args: &str) -> Result<&'static str> {
        match parse(&format!("domain {args}"))? {
            Sub::Domain(a) => domain_text(&a),
            Sub::Generate(_) => unreachable!(),
        }
    }

    #[test]
    fn like_picks_the_generator() {
        let ours = generate("ferry --seed 2001 --locations 4 --cars 5").unwrap();
        assert_eq!(ours, generate::generate(&generate::Params::Ferry { locations: 4, cars: 5 }, 2001).unwrap());
        assert_eq!(generate("ferry --seed 2001 --locations 4 --cars 5 --like hfarm").unwrap(), ours);
        // What pddl-generators ddffd0eb printed for these (the planner's fixture).
        let theirs = generate("ferry --seed 2001 --locations 4 --cars 5 --like pddl-generators").unwrap();
        assert_eq!(
            theirs,
            include_str!("../../../planner/fixtures/pddl-generators-ddffd0e/ferry-locations4-cars5-s2001.pddl")
        );
        assert!(parse("generate ferry --seed 1 --locations 4 --cars 5 --like pddl_generators").is_err());
        let e = generate("zenotravel --seed 1 --cities 3 --planes 2 --persons 4 --like pddl-generators").unwrap_err();
        assert!(e.to_string().contains("no generator for zenotravel"), "{e}");
    }

    #[test]
    fn domain_files_follow_the_generator() {
        assert_eq!(domain("blocksworld").unwrap(), generate::domain_pddl("blocksworld").unwrap());
        assert!(domain("blocksworld --like pddl-generators").unwrap().contains("(define (domain blocksworld-4ops)"));
        assert!(domain("gripper --like pddl-generators").unwrap().contains("(define (domain gripper-strips)"));
        let e = domain("zenotravel --like pddl-generators").unwrap_err().to_string();
        assert_eq!(e, "pddl-generators does not generate zenotravel problems, so it has no zenotravel domain file");
    }
}
