//! The reader's commands, apart from the façade that carries them out.

use crate::protocol::{Boundary, FaultTarget, Ordering, Role, Synchronous};
use crate::trace::Trace;

/// What a reader can do. Each is one call of [`super::Playground::apply`].
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// The producer commits the next transition of this flow.
    Advance(String),
    DeliverNext,
    DeliverAll,
    Apply(String),
    ProcessAll,
    Restart,
    Reset,
    SetMode(Ordering),
    /// Starts over with the reader's rule as the consumer.
    SetRule(std::sync::Arc<crate::protocol::rule::Rule>),
    SetSupportV2(bool),
    /// Installs or drops a rejecting trigger (experiment 10).
    Fault(FaultTarget, bool),
    /// `PRAGMA synchronous` of both databases from now on.
    SetSynchronous(Synchronous),
    Checkpoint,
    /// The power goes out where these databases run.
    PowerCut(Vec<Role>),
    SetSchema2(bool),
    AddFlow(String),
    Arm(Option<Boundary>),
    MoveCard {
        from: usize,
        to: usize,
    },
    DuplicateCard(usize),
    RemoveCard(usize),
    /// Puts A1–A3 in this arrival order ("312"), producing them first if needed.
    Order(&'static str),
    DismissNotice,
    /// Time travel: show the databases as they were after this many steps.
    Seek(usize),
    /// Replaces the session with a trace (an import, a share link, an explorer run).
    Load(Box<Trace>),
    /// Loads one of the article's experiments (an index into `experiments::ALL`).
    LoadPreset(usize),
    /// The same, shown at `step` (its section's moment, [`Preset::moment`], when `None`): an address's preset.
    OpenPreset {
        index: usize,
        step: Option<usize>,
    },
    /// Something outside the façade failed (a file, a link, a worker): say so.
    Error(String),
}

impl Command {
    /// Whether the command runs on the databases. Such a command supersedes a sliced replay still running;
    /// the others (the wire's cards, the switches that only shape the next step, a notice) leave it running.
    pub fn touches_db(&self) -> bool {
        !matches!(
            self,
            Command::Arm(_)
                | Command::MoveCard { .. }
                | Command::DuplicateCard(_)
                | Command::RemoveCard(_)
                | Command::DismissNotice
                | Command::SetSchema2(_)
                | Command::AddFlow(_)
                | Command::Error(_)
        )
    }
}
