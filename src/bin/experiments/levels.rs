//! `experiments levels --check [DIR]`: every level file of DIR (`levels/`) parses; the checker breaks each
//! breakable level's property and its shortest history is the level's par; that history, replayed on fresh
//! databases, breaks the property at its last move and not before (what the page's referee will see); and the
//! unbreakable level holds. Exit 0 when all of that is so, 1 when a level fails, 2 for bad arguments.

use super::parse_only;
use outbox_core::checker::{Property, Search, Verdict};
use outbox_core::levels::{self, Level};
use outbox_core::protocol::Location;
use outbox_core::protocol::{invariant, Snapshot};
use outbox_core::trace::{Session, Trace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn main(dir: &str) -> ExitCode {
    let dir = PathBuf::from(dir);
    if parse_only() {
        return ExitCode::SUCCESS;
    }
    let files = match levels::files(&dir) {
        Ok(f) => f,
        Err(message) => {
            eprintln!("experiments levels: {message}");
            return ExitCode::from(2);
        }
    };
    let mut ids = Vec::new();
    let mut failed = 0;
    for file in &files {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        match check_file(file, &mut ids) {
            Ok(line) => println!("ok     {name}: {line}"),
            Err(message) => {
                failed += 1;
                println!("FAIL   {name}: {message}");
            }
        }
    }
    println!("{} passed, {failed} failed", files.len() - failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn check_file(file: &Path, ids: &mut Vec<String>) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read it: {e}"))?;
    let level = levels::parse(&text)?;
    if ids.contains(&level.id) {
        return Err(format!("the id `{}` is another level's too", level.id));
    }
    ids.push(level.id.clone());
    if level.property == Property::Completion {
        // Completion is judged on a quiescent state, which a move-by-move referee cannot see yet.
        return Err("a level that breaks completion cannot be refereed move by move".into());
    }
    let mut search = Search::new(level.config.clone())?.with_threads(threads());
    let verdict = search.finish()?.clone();
    let states = search.counts().states;
    let head = format!("{} ({}, {})", level.id, level.section, level.en.title);
    match (verdict, level.unbreakable) {
        (Verdict::Holds, true) => Ok(format!(
            "{head}: unbreakable, {states} states and none breaks it"
        )),
        (Verdict::Violated(c), true) => Err(format!(
            "{head} is marked unbreakable, but {} breaks {}",
            moves(&c.trace.steps),
            c.violation.property.name()
        )),
        (Verdict::Holds, false) => Err(format!(
            "{head}: nothing within its bounds breaks {} ({states} states)",
            level.property.name()
        )),
        (Verdict::Violated(c), false) if c.violation.property != level.property => Err(format!(
            "{head}: the shortest break is of {}, not {}: {}",
            c.violation.property.name(),
            level.property.name(),
            moves(&c.trace.steps)
        )),
        (Verdict::Violated(c), false) => {
            // Moves, not steps: a power level's trace starts by setting `synchronous`, which is no move.
            let par = c.moves.len();
            let first = referee(&level, &c.trace)?.map(|step| step - (c.trace.steps.len() - par));
            if first != Some(par) {
                return Err(format!(
                    "{head}: replayed, the shortest history ({par} moves) breaks {} at move {first:?}",
                    level.property.name()
                ));
            }
            Ok(format!(
                "{head}: {} broken in {par} move(s), the par: {}",
                level.property.name(),
                moves(&c.trace.steps[c.trace.steps.len() - par..])
            ))
        }
    }
}

/// The step (1-based) after which the level's property is first broken, replaying `trace` on fresh databases:
/// what the page's referee says after each move.
fn referee(level: &Level, trace: &Trace) -> Result<Option<usize>, String> {
    let mut session = Session::create(&Location::memory(), trace.consumer.clone())?;
    for (i, step) in trace.steps.iter().enumerate() {
        session.step(step);
        if broken(level.property, &session.snapshot()?) {
            return Ok(Some(i + 1));
        }
    }
    Ok(None)
}

fn broken(property: Property, s: &Snapshot) -> bool {
    match property {
        Property::NoLoss => invariant::lost(s).is_some(),
        _ => !invariant::check(s).holds,
    }
}

fn moves(steps: &[outbox_core::trace::Step]) -> String {
    steps
        .iter()
        .map(outbox_core::checker::describe)
        .collect::<Vec<_>>()
        .join(", ")
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
