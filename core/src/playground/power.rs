//! The page's power steps: `synchronous` at the position, and a checkpoint or a power cut run as the reader
//! asked, out of line so the first load carries `apply` but not these.

use super::{Notice, Playground};
use crate::protocol::{Outcome, Synchronous};
use crate::trace::Step;

impl Playground {
    /// `PRAGMA synchronous` of both databases at the position: the last `set_synchronous` up to it.
    pub fn synchronous(&self) -> Synchronous {
        self.entries[..self.pos]
            .iter()
            .rev()
            .find_map(|e| match &e.step {
                Step::SetSynchronous { mode } => Some(*mode),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// A power step, out of line (the first load carries `apply` but not these). A cut ends every process:
    /// an armed exit or a crashed one is moot, and the page says what survived.
    #[cold]
    #[inline(never)]
    pub(super) fn power(&mut self, step: Step) {
        let cut = matches!(step, Step::PowerCut { .. });
        if cut {
            self.armed = None;
            self.down = None;
        }
        let report = self.run(step);
        if cut && report.result == Outcome::Ok {
            self.notice = Some(Notice::PowerCut(self.synchronous(), report.lost_rows));
        }
    }
}
