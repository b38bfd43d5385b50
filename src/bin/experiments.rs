//! The native CLI: `--check` replays the article's twelve experiments; `replay FILE|-` prints a result document;
//! `check` searches every history within bounds (CHECKER.md); `crash-real`, `race` and `soak` run the protocol
//! in real processes on real files (Unix).

#[path = "experiments/check.rs"]
mod check;

use outbox_core::{experiments, trace};
use std::io::{Read, Write};
use std::process::ExitCode;

const USAGE: &str = "usage: experiments --check | replay FILE|- | check [--flows N] [--events N] \
     [--resends N] [--crashes N] [--consumer NAME] [--producer unsafe_dual_write] [--schema2 A2,B1] [--threads N] \
     [--symmetry] [--json] [--save FILE] | crash-real --dir DIR | race --dir DIR [--processes 6] [--rounds 10] | soak --dir DIR \
     [--seconds 10] [--workers 4] [--flows 1000] [--seed N] [--producer atomic|unsafe_dual_write]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--check"] => check(),
        ["replay", path] => replay(path),
        ["check", ..] => check::main(&args[1..]),
        [command @ ("crash-real" | "race" | "soak" | "worker"), ..] => real(command, &args[1..]),
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Real processes on real files: exit 0 when every check holds, 1 when one fails, 2 for bad arguments.
#[cfg(unix)]
fn real(command: &str, args: &[String]) -> ExitCode {
    use outbox_core::real::{self, Error};
    let outcome = match command {
        "crash-real" => real::crash::main(args),
        "race" => real::race::main(args),
        "soak" => real::soak::main(args),
        _ => return real::worker::main(args),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(Error::Usage(message)) => {
            eprintln!("experiments {command}: {message}");
            ExitCode::from(2)
        }
        Err(Error::Run(message)) => {
            eprintln!("experiments {command}: {message}");
            ExitCode::FAILURE
        }
    }
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

fn check() -> ExitCode {
    let mut out = std::io::stdout().lock();
    let (mut passed, mut failed) = (0, 0);
    for (experiment, outcome) in experiments::ALL.iter().zip(experiments::check_all()) {
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
                say!(out, "FAILED {}: {e}", experiment.file);
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

fn replay(path: &str) -> ExitCode {
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
    match trace::replay_text(&text) {
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
            eprintln!("invalid trace: {e}");
            ExitCode::from(2)
        }
    }
}
