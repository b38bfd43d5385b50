//! The command line itself: its parts, and each command's run.

#[path = "check.rs"]
mod check;
#[path = "cli.rs"]
mod cli;
#[path = "interleave.rs"]
mod interleave;
#[path = "levels.rs"]
mod levels;
#[path = "progress.rs"]
mod progress;
#[path = "store.rs"]
mod store;

use cli::Command;
use outbox_core::lang::Lang;
use outbox_core::{experiments, explain, trace};
use std::io::{Read, Write};
use std::process::ExitCode;

/// `EXPERIMENTS_PARSE_ONLY` is set: a command stops once its arguments parsed, before it writes anything (the
/// guides' commands are checked against the CLI this way, `scripts/check-docs.mjs`).
pub fn parse_only() -> bool {
    std::env::var_os("EXPERIMENTS_PARSE_ONLY").is_some()
}

pub fn main() -> ExitCode {
    let cli = match cli::parse(std::env::args().skip(1).collect()) {
        Ok(cli) => cli,
        Err(exit) => return exit,
    };
    let Some(command) = cli.command else {
        return check_experiments(cli.check, cli.store.as_deref(), &cli.files);
    };
    match command {
        Command::Replay(r) => match replay_args(&r) {
            Ok(_) if parse_only() => ExitCode::SUCCESS,
            Ok((path, print)) => replay(path, print, r.store.as_deref()),
            Err(message) => {
                eprintln!("experiments replay: {message}");
                ExitCode::from(2)
            }
        },
        Command::Check(c) => check::main(&c),
        Command::Levels { dir, .. } => levels::main(&dir),
        Command::Interleave(i) => interleave::main(&i),
        Command::Rule { name } => builtin_rule(&name),
        Command::Completions { shell } => {
            cli::completions(shell);
            ExitCode::SUCCESS
        }
        Command::CrashReal(c) => real(
            "crash-real",
            cli::pass_on(&[
                ("dir", &c.dir),
                ("consumer", &c.consumer),
                ("store", &c.store),
            ]),
        ),
        Command::Race(r) => real(
            "race",
            cli::pass_on(&[
                ("dir", &r.dir),
                ("processes", &r.processes),
                ("rounds", &r.rounds),
                ("store", &r.store),
            ]),
        ),
        Command::Soak(s) => real(
            "soak",
            cli::pass_on(&[
                ("dir", &s.dir),
                ("seconds", &s.seconds),
                ("workers", &s.workers),
                ("flows", &s.flows),
                ("seed", &s.seed),
                ("producer", &s.producer),
            ]),
        ),
        Command::Power(p) => real(
            "power",
            cli::pass_on(&[
                ("dir", &p.dir),
                ("seconds", &p.seconds),
                ("workers", &p.workers),
                ("flows", &p.flows),
                ("seed", &p.seed),
                ("synchronous", &p.synchronous),
                ("tear", &p.tear),
            ]),
        ),
        Command::Worker { args } => real("worker", args),
    }
}

/// `--check [--store …] [FILE…]`: the article's experiments, or the files named, on the store named.
fn check_experiments(asked: bool, store: Option<&str>, files: &[String]) -> ExitCode {
    if !asked {
        match files.first() {
            Some(word) => {
                eprintln!("experiments: unknown command `{word}`; see experiments --help")
            }
            None => eprintln!(
                "experiments: --store goes with --check or a command; see experiments --help"
            ),
        }
        return ExitCode::from(2);
    }
    let list = match experiment_files(files) {
        Ok(list) => list,
        Err(message) => {
            eprintln!("experiments --check: {message}");
            return ExitCode::from(2);
        }
    };
    if parse_only() {
        return ExitCode::SUCCESS;
    }
    match store::start(store) {
        Ok(running) => check(&list, &running),
        Err(message) => {
            eprintln!("experiments --check: {message}");
            ExitCode::from(2)
        }
    }
}

/// Real processes on real files: exit 0 when every check holds, 1 when one fails, 2 for bad arguments.
#[cfg(unix)]
fn real(command: &str, args: Vec<String>) -> ExitCode {
    outbox_core::real::command_watched(command, &args, &progress::RealRun::new(command))
}

#[cfg(not(unix))]
fn real(command: &str, _: Vec<String>) -> ExitCode {
    eprintln!("experiments {command}: real processes need a Unix system");
    ExitCode::from(2)
}

/// Prints a line; a closed pipe (`| head`) ends the output quietly instead of panicking.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        if writeln!($out, $($arg)*).is_err() {
            return ExitCode::SUCCESS;
        }
    };
}

/// `rule NAME`: a built-in consumer written as a rule (RULE.md), a starting point for `check --rule`.
fn builtin_rule(name: &str) -> ExitCode {
    let ordering = outbox_core::protocol::Ordering::from_name(name);
    match ordering.and_then(outbox_core::rule::builtin) {
        Some((sql, effect)) => {
            println!("{sql}");
            if effect == outbox_core::rule::RuleEffect::Outside {
                eprintln!("(run it with --effect outside)");
            }
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "experiments rule: `{name}` has no rule; one of strict, greater_than, skip_blocked, effect_outside_tx"
            );
            ExitCode::from(2)
        }
    }
}

/// The experiments `--check` replays: the article's twelve, or the files named (an experiment file of one's
/// own, or an edited copy of one of the twelve).
fn experiment_files(files: &[String]) -> Result<Vec<experiments::Experiment>, String> {
    if files.is_empty() {
        return Ok(experiments::ALL.to_vec());
    }
    files
        .iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            // Leaked: an `Experiment` holds 'static text, and the process ends after the check.
            Ok(experiments::Experiment {
                file: Box::leak(path.to_owned().into_boxed_str()),
                text: Box::leak(text.into_boxed_str()),
            })
        })
        .collect()
}

fn check(list: &[experiments::Experiment], store: &store::Running) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let (mut passed, mut failed) = (0, 0);
    for experiment in list {
        let outcome = experiments::check_on(experiment, &store.location);
        match outcome {
            Ok(c) => {
                let mark = if c.ok() { "ok" } else { "FAILED" };
                say!(
                    out,
                    "{mark:<6} {} {} ({}) — expected: {} — got: {}",
                    c.id,
                    c.title,
                    c.section,
                    experiments::digest(&c.expected),
                    experiments::digest(&c.got)
                );
                for m in &c.mismatches {
                    say!(out, "       mismatch {m}");
                }
                if c.ok() {
                    passed += 1;
                } else {
                    failed += 1;
                }
            }
            Err(e) => {
                // The message names the file already.
                say!(out, "FAILED {e}");
                failed += 1;
            }
        }
    }
    say!(out, "{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What `replay` prints: the result document, why the invariant broke (in these languages), or the
/// space-time diagram as a standalone SVG.
enum Print {
    Result,
    Explain(Vec<Lang>),
    Diagram { lang: Lang, dark: bool },
}

/// `replay`'s arguments, flags before or after the file: the file, and what to print. `--explain` explains in
/// both languages unless `--lang` picks one; `--svg` draws in English unless `--lang zh`, light unless `--dark`.
fn replay_args(r: &cli::Replay) -> Result<(&str, Print), String> {
    let path = match r.files.as_slice() {
        [] => {
            return Err(
                "which trace? replay [--explain | --svg [--dark]] [--lang en|zh] FILE, or - for standard input"
                    .into(),
            )
        }
        [path] => path.as_str(),
        [first, second, ..] => {
            return Err(format!("one trace at a time, got `{first}` and `{second}`"))
        }
    };
    let print = match (r.explain, r.svg, r.lang) {
        (true, true, _) => return Err("--explain and --svg: one at a time".into()),
        (false, false, Some(_)) => return Err("--lang needs --explain or --svg".into()),
        (false, false, None) if r.dark => return Err("--dark needs --svg".into()),
        (false, false, None) => Print::Result,
        (true, false, _) if r.dark => return Err("--dark needs --svg".into()),
        (true, false, Some(l)) => Print::Explain(vec![l]),
        (true, false, None) => Print::Explain(vec![Lang::En, Lang::Zh]),
        (false, true, l) => Print::Diagram {
            lang: l.unwrap_or_default(),
            dark: r.dark,
        },
    };
    Ok((path, print))
}

fn replay(path: &str, print: Print, store: Option<&str>) -> ExitCode {
    // Read at most one byte past the limit, as bytes: the size is judged before the text is.
    let mut bytes = Vec::new();
    let limit = trace::MAX_TRACE_BYTES as u64 + 1;
    let read = if path == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    if let Err(e) = read {
        eprintln!("cannot read {path}: {e}");
        return ExitCode::from(2);
    }
    if bytes.len() > trace::MAX_TRACE_BYTES {
        eprintln!(
            "invalid trace: it is larger than {} bytes (1 MiB)",
            trace::MAX_TRACE_BYTES
        );
        return ExitCode::from(2);
    }
    let Ok(text) = String::from_utf8(bytes) else {
        eprintln!("invalid trace: it is not UTF-8 text");
        return ExitCode::from(2);
    };
    match print {
        Print::Result => {}
        _ if store.is_some_and(|s| s != "sqlite") => {
            eprintln!("experiments replay: --store prints the result document; --explain and --svg run on SQLite");
            return ExitCode::from(2);
        }
        Print::Explain(langs) => return replay_explained(&text, &langs),
        Print::Diagram { lang, dark } => return replay_diagram(&text, lang, dark),
    }
    let parsed = match trace::parse(&text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("invalid trace: {e}");
            return ExitCode::from(2);
        }
    };
    // A power step is refused before any server starts.
    if store.is_some_and(|s| s != "sqlite") {
        if let Err(e) = trace::refuse_power(&parsed) {
            eprintln!("experiments replay: {e}");
            return ExitCode::from(2);
        }
    }
    let running = match store::start(store) {
        Ok(r) => r,
        Err(message) => {
            eprintln!("experiments replay: {message}");
            return ExitCode::from(2);
        }
    };
    match trace::replay_on(&parsed, &running.location) {
        Ok(result) => match result.to_json_pretty() {
            Ok(json) => {
                let mut out = std::io::stdout().lock();
                say!(out, "{json}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("experiments replay: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("invalid trace: the databases failed: {e}");
            ExitCode::from(2)
        }
    }
}

/// `replay --svg`: the session's space-time diagram as the page's *Save SVG* writes it.
fn replay_diagram(text: &str, lang: Lang, dark: bool) -> ExitCode {
    use outbox_core::diagram::{svg, Diagram, Style};
    use outbox_core::playground::{Command, Notice, Playground};
    let trace = match trace::parse(text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("invalid trace: {e}");
            return ExitCode::from(2);
        }
    };
    let mut pg = match Playground::new(trace.consumer.clone()) {
        Ok(pg) => pg,
        Err(e) => {
            eprintln!("invalid trace: the databases failed: {e}");
            return ExitCode::from(2);
        }
    };
    pg.apply(Command::Load(Box::new(trace)));
    if let Some(Notice::Error(e)) = &pg.notice {
        eprintln!("invalid trace: the databases failed: {e}");
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout().lock();
    say!(
        out,
        "{}",
        svg(&Diagram::of(&pg, lang), Style::File { dark })
    );
    ExitCode::SUCCESS
}

/// `replay --explain`: why the invariant broke, a paragraph per language (a blank line between), in place of
/// the result document; exits as `replay` does.
fn replay_explained(text: &str, langs: &[Lang]) -> ExitCode {
    let trace = match trace::parse(text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("invalid trace: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    for (i, &lang) in langs.iter().enumerate() {
        let paragraph = match explain::explain(&trace, lang) {
            Ok(Some(x)) => x.text,
            Ok(None) => match lang {
                Lang::En => "The invariant holds after every step.".into(),
                Lang::Zh => "每一步之后不变量都成立。".into(),
            },
            Err(e) => {
                eprintln!("invalid trace: the databases failed: {e}");
                return ExitCode::from(2);
            }
        };
        let gap = if i > 0 { "\n" } else { "" };
        say!(out, "{gap}{paragraph}");
    }
    ExitCode::SUCCESS
}
