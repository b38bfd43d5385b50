//! The native CLI: `--check` replays the article's twelve experiments (or the experiment files it names); `replay FILE|-` prints a result document
//! (with `--explain`, why the invariant broke, in English and Chinese);
//! `check` searches every history within bounds (CHECKER.md); `levels --check` holds the break-it levels to the
//! checker; `crash-real`, `race` and `soak` run the protocol
//! in real processes on real files (Unix).
//! `replay --svg` prints the space-time diagram instead, and `power` cuts the power under real processes (Unix).

#[path = "experiments/check.rs"]
mod check;
#[path = "experiments/interleave.rs"]
#[cfg(not(target_arch = "wasm32"))]
mod interleave;
#[path = "experiments/levels.rs"]
mod levels;
#[path = "experiments/store.rs"]
mod store;

use outbox_core::lang::Lang;
use outbox_core::{experiments, explain, trace};
use std::io::{Read, Write};
use std::process::ExitCode;

#[cfg(unix)]
use outbox_core::real::parse_only;
/// Without real processes there is nothing to stop before: every command runs.
#[cfg(not(unix))]
fn parse_only() -> bool {
    false
}

const USAGE: &str = "usage: experiments --check [--store sqlite|postgres|postgres://…] [FILE…] | replay [--explain | --svg [--dark]] [--lang en|zh] [--store …] FILE|- | check [--flows N] [--events N] \
     [--resends N] [--crashes N] [--consumer NAME] [--producer unsafe_dual_write] [--schema2 A2,B1] [--power-cuts N] [--synchronous full|normal] [--rule FILE [--effect inside|outside]] [--threads N] \
     [--symmetry] [--json] [--save FILE] | rule NAME | levels --check [DIR] | crash-real --dir DIR|--store postgres[://…] [--consumer NAME] | race --dir DIR|--store postgres[://…] [--processes 6] [--rounds 10] | soak --dir DIR \
     [--seconds 10] [--workers 4] [--flows 1000] [--seed N] [--producer atomic|unsafe_dual_write] | power --dir DIR [--seconds 10] [--workers 3] \
     [--flows 200] [--seed N] [--synchronous full|normal|off] [--tear yes|no] | interleave FILE.spec --store postgres[://…] \
     [--isolation read-committed|repeatable-read|serializable] [--step-timeout SECONDS]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--check", rest @ ..] => match store::take(rest)
            .and_then(|(store, files)| Ok((store, experiment_files(&files)?)))
        {
            Ok(_) if parse_only() => ExitCode::SUCCESS,
            Ok((store, list)) => match store::start(store) {
                Ok(running) => check(&list, &running),
                Err(message) => {
                    eprintln!("experiments --check: {message}");
                    ExitCode::from(2)
                }
            },
            Err(message) => {
                eprintln!("experiments --check: {message}");
                ExitCode::from(2)
            }
        },
        ["replay", rest @ ..] => {
            match store::take(rest).and_then(|(store, rest)| Ok((store, replay_args(&rest)?))) {
                Ok(_) if parse_only() => ExitCode::SUCCESS,
                Ok((store, (path, print))) => replay(path, print, store),
                Err(message) => {
                    eprintln!("experiments replay: {message}");
                    ExitCode::from(2)
                }
            }
        }
        ["check", ..] => check::main(&args[1..]),
        ["levels", ..] => levels::main(&args[1..]),
        #[cfg(not(target_arch = "wasm32"))]
        ["interleave", ..] => interleave::main(&args[1..]),
        ["rule", name] => builtin_rule(name),
        [command @ ("crash-real" | "race" | "soak" | "power" | "worker"), ..] => {
            real(command, &args[1..])
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Real processes on real files: exit 0 when every check holds, 1 when one fails, 2 for bad arguments.
#[cfg(unix)]
fn real(command: &str, args: &[String]) -> ExitCode {
    outbox_core::real::command(command, args)
}

#[cfg(not(unix))]
fn real(command: &str, _: &[String]) -> ExitCode {
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
fn experiment_files(files: &[&str]) -> Result<Vec<experiments::Experiment>, String> {
    if files.is_empty() {
        return Ok(experiments::ALL.to_vec());
    }
    files
        .iter()
        .map(|&path| {
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
        let outcome = experiments::check_on(experiment, &store.backend);
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
fn replay_args<'a>(args: &[&'a str]) -> Result<(&'a str, Print), String> {
    let (mut path, mut explain, mut svg, mut dark, mut lang) = (None, false, false, false, None);
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        match arg {
            "--explain" if !explain => explain = true,
            "--svg" if !svg => svg = true,
            "--dark" if !dark => dark = true,
            "--lang" if lang.is_none() => {
                let Some(&value) = it.next() else {
                    return Err("--lang needs a value, en or zh".into());
                };
                lang = Some(match value {
                    "en" => Lang::En,
                    "zh" => Lang::Zh,
                    _ => return Err(format!("--lang must be `en` or `zh`, got `{value}`")),
                });
            }
            "--explain" | "--svg" | "--dark" | "--lang" => {
                return Err(format!("{arg} is given twice"))
            }
            _ if arg.starts_with("--") => {
                return Err(format!(
                    "unknown argument `{arg}`; expected --explain or --svg [--dark], --lang en|zh, and FILE or -"
                ))
            }
            _ if path.is_none() => path = Some(arg),
            _ => {
                return Err(format!(
                    "one trace at a time, got `{}` and `{arg}`",
                    path.unwrap_or("")
                ))
            }
        }
    }
    let path = path.ok_or(
        "which trace? replay [--explain | --svg [--dark]] [--lang en|zh] FILE, or - for standard input",
    )?;
    let print = match (explain, svg, lang) {
        (true, true, _) => return Err("--explain and --svg: one at a time".into()),
        (false, false, Some(_)) => return Err("--lang needs --explain or --svg".into()),
        (false, false, None) if dark => return Err("--dark needs --svg".into()),
        (false, false, None) => Print::Result,
        (true, false, _) if dark => return Err("--dark needs --svg".into()),
        (true, false, Some(l)) => Print::Explain(vec![l]),
        (true, false, None) => Print::Explain(vec![Lang::En, Lang::Zh]),
        (false, true, l) => Print::Diagram {
            lang: l.unwrap_or_default(),
            dark,
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
    match trace::replay_on(&parsed, &running.backend) {
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
