//! The command line's shape, in one place: every subcommand and flag with its help (clap's derive), shell
//! completions, and clap's refusals said in this CLI's own words — `experiments SUB: --flag …`, exit 2, the
//! offending value named — so that a script or a guide written against the old messages still reads true.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, Parser, Subcommand};
use outbox_core::lang::Lang;
use std::process::ExitCode;

/// Reproduce the article's experiments, search every history within bounds, and run the protocol in real
/// processes — on SQLite, or on PostgreSQL with `--store`.
#[derive(Parser, Debug)]
#[command(
    name = "experiments",
    version,
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true,
    allow_negative_numbers = true,
    after_help = "Guide: docs/cli.md. Completions: experiments completions bash|zsh|fish."
)]
pub struct Cli {
    /// Replay the article's twelve experiments (or the experiment FILEs) and compare each with the article
    #[arg(long)]
    pub check: bool,
    /// Where the databases are: sqlite (the default), postgres (a throw-away server) or a postgres:// URL
    #[arg(long, value_name = "STORE", value_parser = store_value)]
    pub store: Option<String>,
    /// Experiment files to check instead of the twelve (with --check)
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Replay a trace and print its result document, why the invariant broke (--explain), or its diagram (--svg)
    Replay(Replay),
    /// Search every history within bounds for one that breaks a property (CHECKER.md)
    #[command(allow_negative_numbers = true)]
    Check(Check),
    /// Print a built-in consumer written as a rule (RULE.md), a starting point for `check --rule`
    Rule {
        /// strict, greater_than, skip_blocked or effect_outside_tx
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Hold every break-it level to the checker
    Levels {
        /// Check the level files (the only thing this command does)
        #[arg(long, required = true)]
        check: bool,
        /// The directory of level files
        #[arg(value_name = "DIR", default_value = "levels")]
        dir: String,
    },
    /// Run isolation-tester specs on real connections, printed as PostgreSQL's isolationtester prints them
    #[command(allow_negative_numbers = true)]
    Interleave(Interleave),
    /// Kill a real worker process at each of the ten commit boundaries and check what survived
    CrashReal(CrashReal),
    /// Race real processes on the same event, flow and row, round after round
    #[command(allow_negative_numbers = true)]
    Race(Race),
    /// Random protocol steps in real workers, killed with SIGKILL at random, then every check
    #[command(allow_negative_numbers = true)]
    Soak(Soak),
    /// Cut the power under real workers (unsynced writes lost) and check what the disks kept
    #[command(allow_negative_numbers = true)]
    Power(Power),
    /// Print a completion script for a shell (bash, zsh, fish, elvish or powershell)
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// A real run's worker process (started by crash-real, race, soak and power; not for a reader)
    #[command(hide = true)]
    Worker {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
}

#[derive(Args, Debug)]
pub struct Replay {
    /// Why the invariant broke, a paragraph per language, instead of the result document
    #[arg(long)]
    pub explain: bool,
    /// The space-time diagram as a standalone SVG, instead of the result document
    #[arg(long)]
    pub svg: bool,
    /// The diagram's dark palette (with --svg)
    #[arg(long)]
    pub dark: bool,
    /// One language for --explain (both by default) or --svg (English by default)
    #[arg(long, value_name = "en|zh", value_parser = lang_value)]
    pub lang: Option<Lang>,
    /// Where the databases are: sqlite (the default), postgres or a postgres:// URL (the result document only)
    #[arg(long, value_name = "STORE", value_parser = store_value)]
    pub store: Option<String>,
    /// The trace file, or - for standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
}

#[derive(Args, Debug)]
pub struct Check {
    /// Flows, 1 to 3
    #[arg(long, value_name = "N")]
    pub flows: Option<String>,
    /// Events per flow, 1 to 3
    #[arg(long, value_name = "N")]
    pub events: Option<String>,
    /// Resends by the relay, 0 to 3
    #[arg(long, value_name = "N")]
    pub resends: Option<String>,
    /// Process exits at a commit boundary, 0 to 3
    #[arg(long, value_name = "N")]
    pub crashes: Option<String>,
    /// strict, dedupe_only, greater_than, skip_blocked, effect_outside_tx (or rule, with --rule)
    #[arg(long, value_name = "NAME")]
    pub consumer: Option<String>,
    /// atomic (the default) or unsafe_dual_write
    #[arg(long, value_name = "NAME")]
    pub producer: Option<String>,
    /// Events that arrive in schema 2, such as A2,B1
    #[arg(long, value_name = "IDS")]
    pub schema2: Option<String>,
    /// Power cuts, 0 to 2
    #[arg(long, value_name = "N")]
    pub power_cuts: Option<String>,
    /// SQLite's synchronous setting under power cuts: full or normal
    #[arg(long, value_name = "MODE")]
    pub synchronous: Option<String>,
    /// The reader's rule (RULE.md) as the consumer, from a file
    #[arg(long, value_name = "FILE")]
    pub rule: Option<String>,
    /// Where the rule's effect is written: inside or outside the apply transaction
    #[arg(long, value_name = "WHERE")]
    pub effect: Option<String>,
    /// Threads sharing each level of the search, 1 to 64 (default: the machine's cores)
    #[arg(long, value_name = "N", value_parser = threads_value)]
    pub threads: Option<usize>,
    /// Interchangeable flows counted once (the counts are then of classes of states)
    #[arg(long)]
    pub symmetry: bool,
    /// The report as JSON (outbox-playground-check/1)
    #[arg(long)]
    pub json: bool,
    /// Write the counterexample's trace to FILE (replay it with `experiments replay FILE`)
    #[arg(long, value_name = "FILE")]
    pub save: Option<String>,
}

impl Check {
    /// The knobs as a check link names them, in the order the checker reads them.
    pub fn knobs(&self) -> Vec<(&'static str, &str)> {
        [
            ("flows", &self.flows),
            ("events", &self.events),
            ("resends", &self.resends),
            ("crashes", &self.crashes),
            ("consumer", &self.consumer),
            ("producer", &self.producer),
            ("schema2", &self.schema2),
            ("power_cuts", &self.power_cuts),
            ("synchronous", &self.synchronous),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.as_deref().map(|v| (name, v)))
        .collect()
    }
}

#[derive(Args, Debug)]
pub struct Interleave {
    /// Every spec of each DIR (specs/isolation/hazards and designs) on SQLite and at every PostgreSQL level, as one table
    #[arg(long)]
    pub all: bool,
    /// sqlite, postgres (a throw-away server) or a postgres:// URL; --all needs PostgreSQL
    #[arg(long, value_name = "STORE")]
    pub store: Option<String>,
    /// read-committed (the default), repeatable-read or serializable (PostgreSQL only)
    #[arg(long, value_name = "LEVEL", value_parser = isolation_value)]
    pub isolation: Option<String>,
    /// How long a step may take once the permutation needs its answer, 1 to 3600 (default 60; PostgreSQL only)
    #[arg(long, value_name = "SECONDS", value_parser = step_timeout_value)]
    pub step_timeout: Option<u64>,
    /// The table as JSON (with --all)
    #[arg(long)]
    pub json: bool,
    /// Write the table as JSON to FILE (with --all): the page's recording
    #[arg(long, value_name = "FILE")]
    pub record: Option<String>,
    /// Run N interleavings drawn at random, for a spec that lists no permutation and has more than 1,000
    #[arg(long, value_name = "N", value_parser = sample_value)]
    pub sample: Option<usize>,
    /// The draw of --sample: the same seed draws the same interleavings (default 1)
    #[arg(long, value_name = "S", value_parser = seed_value)]
    pub seed: Option<u64>,
    /// The spec's tables in `public`, as PostgreSQL's tester runs it, not in a schema of the run's own: for a
    /// database made for the run (PostgreSQL only, one spec)
    #[arg(long)]
    pub public: bool,
    /// The spec file, or with --all the directories of specs (specs/isolation/hazards and designs by default)
    #[arg(value_name = "FILE.spec|DIR")]
    pub files: Vec<String>,
}

#[derive(Args, Debug)]
pub struct CrashReal {
    /// An empty or absent directory for the two SQLite files (with --store sqlite)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// strict (the default), dedupe_only, greater_than, skip_blocked or effect_outside_tx
    #[arg(long, value_name = "NAME")]
    pub consumer: Option<String>,
    /// sqlite (the default, needs --dir), postgres (a throw-away server) or a postgres:// URL
    #[arg(long, value_name = "STORE")]
    pub store: Option<String>,
}

#[derive(Args, Debug)]
pub struct Race {
    /// An empty or absent directory for the two SQLite files (with --store sqlite)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// Processes racing in each scenario, 2 to 64 (default 6)
    #[arg(long, value_name = "N")]
    pub processes: Option<String>,
    /// Rounds of every scenario, 1 to 10000 (default 10)
    #[arg(long, value_name = "N")]
    pub rounds: Option<String>,
    /// sqlite (the default, needs --dir), postgres (a throw-away server) or a postgres:// URL
    #[arg(long, value_name = "STORE")]
    pub store: Option<String>,
}

#[derive(Args, Debug)]
pub struct Soak {
    /// An empty or absent directory for the files and the workers' logs
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// How long the workers run, 1 to 3600 (default 10)
    #[arg(long, value_name = "N")]
    pub seconds: Option<String>,
    /// Worker processes, 1 to 32 (default 4)
    #[arg(long, value_name = "N")]
    pub workers: Option<String>,
    /// Flows the workers share, 1 to 100000 (default 1000)
    #[arg(long, value_name = "N")]
    pub flows: Option<String>,
    /// The run's seed (default: from the clock, printed so that a failure can be run again)
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// atomic (the default) or unsafe_dual_write, the wrong producer the soak must catch
    #[arg(long, value_name = "NAME")]
    pub producer: Option<String>,
}

#[derive(Args, Debug)]
pub struct Power {
    /// An empty or absent directory for the files and the workers' logs
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// How long the rounds go on, 1 to 3600 (default 10)
    #[arg(long, value_name = "N")]
    pub seconds: Option<String>,
    /// Worker processes, 1 to 32 (default 3)
    #[arg(long, value_name = "N")]
    pub workers: Option<String>,
    /// Flows the workers share, 1 to 100000 (default 200)
    #[arg(long, value_name = "N")]
    pub flows: Option<String>,
    /// The run's seed (default: from the clock, printed so that a failure can be run again)
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// SQLite's synchronous setting: full (the default), normal or off
    #[arg(long, value_name = "MODE")]
    pub synchronous: Option<String>,
    /// Whether the last write kept may be torn at a sector: yes (the default) or no
    #[arg(long, value_name = "yes|no")]
    pub tear: Option<String>,
}

/// A real command's flags handed on as `--name value`, in the order the command reads them: the core's real
/// runs take them so, as the core's own test binary is their command line too.
pub fn pass_on(pairs: &[(&str, &Option<String>)]) -> Vec<String> {
    pairs
        .iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| [format!("--{name}"), v.clone()]))
        .flatten()
        .collect()
}

/// `--store`'s value: checked where it is given, so that a typo is named before anything starts.
fn store_value(value: &str) -> Result<String, String> {
    if value == "sqlite" || super::store::names_postgres(value) {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "--store must be sqlite, postgres or a postgres:// URL, got `{value}`"
        ))
    }
}

fn lang_value(value: &str) -> Result<Lang, String> {
    match value {
        "en" => Ok(Lang::En),
        "zh" => Ok(Lang::Zh),
        _ => Err(format!("--lang must be `en` or `zh`, got `{value}`")),
    }
}

fn threads_value(value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=64).contains(n))
        .ok_or_else(|| format!("--threads must be a whole number from 1 to 64, got `{value}`"))
}

/// `--isolation`'s value, one of the three levels' names (the interleavings are native only).
fn isolation_value(value: &str) -> Result<String, String> {
    if ["read-committed", "repeatable-read", "serializable"].contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "--isolation must be read-committed, repeatable-read or serializable, got `{value}`"
        ))
    }
}

fn sample_value(value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| format!("--sample must be a whole number from 1 to 1000, got `{value}`"))
}

fn seed_value(value: &str) -> Result<u64, String> {
    value.parse::<u64>().map_err(|_| {
        format!("--seed must be a whole number from 0 to 18446744073709551615, got `{value}`")
    })
}

fn step_timeout_value(value: &str) -> Result<u64, String> {
    value
        .parse()
        .ok()
        .filter(|s| (1..=3600).contains(s))
        .ok_or_else(|| {
            format!(
                "--step-timeout must be a whole number of seconds from 1 to 3600, got `{value}`"
            )
        })
}

/// The arguments parsed, or the exit for help, the version, or a refusal (one line, exit 2).
pub fn parse(args: Vec<String>) -> Result<Cli, ExitCode> {
    let mut all = vec!["experiments".to_owned()];
    all.extend(args.iter().cloned());
    Cli::try_parse_from(all).map_err(|e| refuse(&e, &args))
}

/// Prints the completion script for `shell` on standard output; a closed pipe ends it quietly.
pub fn completions(shell: clap_complete::Shell) {
    use std::io::Write;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "experiments", &mut script);
    let _ = std::io::stdout().lock().write_all(&script);
}

/// Help and the version as clap prints them; a refusal in this CLI's words: `experiments SUB: what is wrong`.
fn refuse(e: &clap::Error, args: &[String]) -> ExitCode {
    use ErrorKind::*;
    if matches!(
        e.kind(),
        DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(u8::from(e.use_stderr()) * 2);
    }
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(s)) => s.join(", "),
        _ => String::new(),
    };
    // clap names a flag with its value's placeholder (`--flows <N>`): the flag alone.
    let flag = |kind| {
        let named = text(kind);
        let first = named.split_whitespace().next().unwrap_or("");
        first
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_owned()
    };
    // The first word that names a subcommand, where it stands (a flag's value may spell one later).
    let names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    let sub = args.iter().find(|a| names.contains(a)).cloned();
    let help = match &sub {
        Some(name) => format!("experiments {name} --help"),
        None => "experiments --help".to_owned(),
    };
    let message = match e.kind() {
        UnknownArgument => {
            format!(
                "unknown argument `{}`; see {help}",
                text(ContextKind::InvalidArg)
            )
        }
        InvalidSubcommand => format!(
            "unknown command `{}`; see {help}",
            text(ContextKind::InvalidSubcommand)
        ),
        ArgumentConflict if text(ContextKind::PriorArg) == text(ContextKind::InvalidArg) => {
            format!("{} is given twice", flag(ContextKind::InvalidArg))
        }
        ArgumentConflict => format!(
            "{} and {}: one at a time",
            flag(ContextKind::PriorArg),
            flag(ContextKind::InvalidArg)
        ),
        InvalidValue if text(ContextKind::InvalidValue).is_empty() => {
            format!("{} needs a value", flag(ContextKind::InvalidArg))
        }
        InvalidValue => format!(
            "{} must be one of {}, got `{}`",
            flag(ContextKind::InvalidArg),
            text(ContextKind::ValidValue),
            text(ContextKind::InvalidValue)
        ),
        // A value parser's own message names the flag and the value already.
        ValueValidation => std::error::Error::source(e)
            .map(ToString::to_string)
            .unwrap_or_else(|| e.to_string()),
        MissingRequiredArgument => {
            format!("{} is required; see {help}", flag(ContextKind::InvalidArg))
        }
        _ => e
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned(),
    };
    let who = match &sub {
        Some(name) => format!("experiments {name}"),
        None if args.iter().any(|a| a == "--check") => "experiments --check".to_owned(),
        None => "experiments".to_owned(),
    };
    eprintln!("{who}: {message}");
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_is_consistent() {
        Cli::command().debug_assert();
    }
}
