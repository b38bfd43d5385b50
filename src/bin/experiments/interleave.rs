//! `interleave FILE.spec`: a spec of PostgreSQL's isolation tester run on real connections, printed as the tester
//! prints it (`outbox_core::interleave`). On PostgreSQL for now; SQLite's single writer is the next store.

use outbox_core::interleave::{self, pg::Isolation};
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "interleave FILE.spec --store postgres|postgres://… [--isolation read-committed|repeatable-read|serializable] [--step-timeout SECONDS]";

pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("experiments interleave: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let (mut file, mut store, mut isolation, mut timeout) = (None, None, None, None);
    let mut it = args.iter().map(String::as_str);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value; usage: {USAGE}"))
        };
        match arg {
            "--store" if store.is_none() => store = Some(value("--store")?),
            "--isolation" if isolation.is_none() => {
                let v = value("--isolation")?;
                isolation = Some(Isolation::from_name(v).ok_or_else(|| {
                    format!("--isolation must be read-committed, repeatable-read or serializable, got `{v}`")
                })?);
            }
            "--step-timeout" if timeout.is_none() => {
                let v = value("--step-timeout")?;
                let seconds: u64 = v
                    .parse()
                    .ok()
                    .filter(|s| (1..=3600).contains(s))
                    .ok_or_else(|| {
                        format!("--step-timeout must be a whole number of seconds from 1 to 3600, got `{v}`")
                    })?;
                timeout = Some(Duration::from_secs(seconds));
            }
            "--store" | "--isolation" | "--step-timeout" => {
                return Err(format!("{arg} is given twice"))
            }
            _ if arg.starts_with("--") => {
                return Err(format!("unknown argument `{arg}`; usage: {USAGE}"))
            }
            _ if file.is_none() => file = Some(arg),
            _ => return Err(format!("one spec at a time; usage: {USAGE}")),
        }
    }
    let file = file.ok_or_else(|| format!("which spec? usage: {USAGE}"))?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let spec = interleave::parse(&text).map_err(|e| format!("{file}: {e}"))?;
    let store = match store {
        Some(s) if outbox_core::protocol::pg::server::names_postgres(s) => s,
        _ => {
            return Err(
                "interleave runs on PostgreSQL for now: give --store postgres (a throw-away server) or --store postgres://…"
                    .into(),
            )
        }
    };
    if outbox_core::real::parse_only() {
        return Ok(());
    }
    let target = outbox_core::protocol::pg::server::Target::from_flag_for_specs(store)?;
    let mut out = std::io::stdout().lock();
    interleave::pg::run_spec(
        &spec,
        &target.url,
        isolation.unwrap_or(Isolation::ReadCommitted),
        timeout.unwrap_or(Duration::from_secs(60)),
        &mut out,
    )
    .map_err(|e| e.0)
}
