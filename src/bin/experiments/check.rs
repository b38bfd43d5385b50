//! `experiments check`: the checker of CHECKER.md from the command line.

use super::parse_only;
use outbox_core::checker::{self, Config, Search, Verdict};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Transitions between two looks at the search's counts (a few hundredths of a second here).
const PROGRESS_SLICE: u64 = 2_000;

struct Args {
    config: Config,
    threads: usize,
    save: Option<String>,
    json: bool,
    symmetry: bool,
}

/// The knobs read as the page reads a check link (`--power-cuts` is the link's `power_cuts`), then the rule's
/// file (read, and the rule checked, once every flag is in), then the whole configuration checked.
fn parse(c: &super::cli::Check) -> Result<Args, String> {
    let mut config = Config::default();
    for (knob, value) in c.knobs() {
        config.set(knob, value).map_err(|e| {
            format!(
                "--{}",
                e.replacen('_', "-", usize::from(knob.contains('_')))
            )
        })?;
    }
    if let Some(path) = &c.rule {
        let sql = std::fs::read_to_string(path)
            .map_err(|e| format!("--rule: cannot read {path}: {e}"))?;
        config
            .set("rule", &outbox_core::checker::config::percent_encode(&sql))
            .map_err(|e| format!("--{}", e.replace('\n', " ")))?;
    }
    if let Some(effect) = &c.effect {
        config.set("effect", effect).map_err(|e| format!("--{e}"))?;
    }
    config.validate().map_err(|e| format!("--{e}"))?;
    Ok(Args {
        config,
        threads: c
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        save: c.save.clone(),
        json: c.json,
        symmetry: c.symmetry,
    })
}

pub fn main(args: &super::cli::Check) -> ExitCode {
    let args = match parse(args) {
        Ok(_) if parse_only() => return ExitCode::SUCCESS,
        Ok(a) => a,
        Err(message) => {
            eprintln!("experiments check: {message}");
            return ExitCode::from(2);
        }
    };
    let config = args.config.clone();
    let start = Instant::now();
    let progress = super::progress::Progress::spinner("check");
    let outcome = Search::new(config.clone()).and_then(|s| {
        let mut search = s.with_threads(args.threads).with_symmetry(args.symmetry);
        // A slice at a time, so that a terminal sees the search move.
        while !search.run(PROGRESS_SLICE)? {
            let (c, waiting) = (search.counts(), search.waiting());
            progress.say(|| {
                let per_s = c.states as f64 / start.elapsed().as_secs_f64().max(1e-9);
                format!(
                    "{} states, {} transitions, depth {}, {waiting} waiting to expand, {per_s:.0} states/s",
                    c.states, c.transitions, c.depth
                )
            });
        }
        Ok(search)
    });
    drop(progress);
    let search = match outcome {
        Ok(s) => s,
        Err(message) => {
            eprintln!("experiments check: the databases failed: {message}");
            return ExitCode::FAILURE;
        }
    };
    let elapsed = start.elapsed();
    let counts = search.counts();
    let Some(verdict) = search.verdict() else {
        eprintln!("experiments check: no verdict");
        return ExitCode::FAILURE;
    };
    if let (Some(path), Verdict::Violated(c)) = (&args.save, verdict) {
        let written = c
            .trace
            .to_json_pretty()
            .and_then(|json| std::fs::write(path, json + "\n").map_err(|e| e.to_string()));
        if let Err(e) = written {
            eprintln!("experiments check: cannot write {path}: {e}");
            return ExitCode::from(2);
        }
    }
    let mut out = std::io::stdout().lock();
    let ms = elapsed.as_millis();
    let per_s = |n: u64| (n as f64 / elapsed.as_secs_f64().max(1e-9)).round() as u64;
    if args.json {
        let doc =
            checker::report::document(&config, &search, ms as u64, args.threads, peak_memory_kib());
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
    } else {
        let _ = writeln!(
            out,
            "check: {} flow(s) × {} event(s), {} resend(s), {} crash(es), consumer {}, producer {}{}, {} thread(s){}",
            config.flows,
            config.events,
            config.resends,
            config.crashes,
            config.consumer.name(),
            config.producer.name(),
            if config.schema2.is_empty() {
                String::new()
            } else {
                format!(", schema 2: {}", config.schema2.join(","))
            } + &if config.power_cuts > 0 {
                format!(
                    ", {} power cut(s) under synchronous={}",
                    config.power_cuts,
                    config.synchronous.name()
                )
            } else {
                String::new()
            },
            args.threads,
            if search.symmetry() {
                "; symmetry reduction: interchangeable flows counted once, so the counts are of classes of states"
            } else {
                ""
            }
        );
        let _ = writeln!(
            out,
            "{} states, {} transitions, depth {}, {} quiescent; {ms} ms ({} states/s, {} transitions/s){}",
            counts.states,
            counts.transitions,
            counts.depth,
            counts.quiescent,
            per_s(counts.states),
            per_s(counts.transitions),
            peak_memory_kib().map_or(String::new(), |k| format!(", peak memory {} MiB", k / 1024))
        );
        match verdict {
            Verdict::Holds => {
                let _ = writeln!(
                    out,
                    "holds: {}consumer_invariant, no_loss and completion hold in every one of {} states",
                    if config.rule.is_some() { "rule_answers, " } else { "" },
                    counts.states
                );
            }
            Verdict::Violated(c) => {
                let _ = writeln!(
                    out,
                    "violated: {} — the shortest history that breaks it has {} steps:",
                    c.violation.property.name(),
                    c.reports.len()
                );
                for (i, (step, report)) in c.trace.steps.iter().zip(&c.reports).enumerate() {
                    let _ = writeln!(
                        out,
                        "  {:>2}. {:<44} → {}",
                        i + 1,
                        checker::describe(step),
                        report.summary()
                    );
                }
                let _ = writeln!(out, "why: {}", checker::why(&config, c));
                // The paragraph the page shows under the counterexample: the steps that matter, and what a
                // correct implementation does there.
                if let Ok(Some(e)) = outbox_core::explain::explain_property(
                    &c.trace,
                    c.violation.property,
                    &c.violation.message,
                    outbox_core::lang::Lang::En,
                ) {
                    let _ = writeln!(out, "explained: {}", e.text);
                }
                if let Some(path) = &args.save {
                    let _ = writeln!(
                        out,
                        "saved the counterexample to {path} (replay it: experiments replay {path})"
                    );
                }
            }
        }
    }
    match verdict {
        Verdict::Holds => ExitCode::SUCCESS,
        Verdict::Violated(_) => ExitCode::FAILURE,
    }
}

/// The process's peak resident memory (Linux's `VmHWM`), where the system says.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
