//! The article's experiments in the player: load one, and compare its live result with the article's.

use super::Playground;
use crate::experiments;

/// A loaded experiment: what the article expects and what this run got, side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    pub index: usize,
    pub id: String,
    pub title: String,
    pub section: String,
    pub summary: String,
    pub expected: String,
    pub got: String,
    pub ok: bool,
    pub mismatches: Vec<String>,
    /// The position its section is about: just after the first step that answers `gap`, crashes or blocks (3-1-2
    /// waits at the gap; the ten exits show the first), else the end.
    pub moment: usize,
}

/// Loads experiment `index` into the player and compares its live result with the article's.
pub(super) fn load(pg: &mut Playground, index: usize) -> Result<Preset, String> {
    let experiment = experiments::ALL
        .get(index)
        .ok_or_else(|| format!("there is no experiment {}", index + 1))?;
    let check = experiments::check(experiment)?;
    let trace = crate::trace::parse(experiment.text).map_err(|e| e.0)?;
    pg.load(&trace)?;
    let moment = pg
        .entries
        .iter()
        .position(|e| {
            let r = e.report.result;
            r == crate::protocol::Outcome::GAP
                || r == crate::protocol::Outcome::Crashed
                || r.blocked().is_some()
        })
        .map_or(pg.entries.len(), |i| i + 1);
    Ok(Preset {
        index,
        id: check.id.clone(),
        title: check.title.clone(),
        section: check.section.clone(),
        summary: check.summary.clone(),
        expected: experiments::digest(&check.expected),
        got: experiments::digest(&check.got),
        ok: check.ok(),
        mismatches: check.mismatches.clone(),
        moment,
    })
}
