//! Progress on standard error while long work runs — only when standard error is a terminal, so that the
//! tests', the scripts' and a pipe's output stay exactly what they were. Cleared when the work ends.

use std::io::IsTerminal;

pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    /// A spinner that says what is going on, with the time so far.
    pub fn spinner(what: &str) -> Progress {
        Progress::new(None, what)
    }

    /// A bar of `len` parts, with the parts done, the time so far and the time left.
    pub fn bar(len: u64, what: &str) -> Progress {
        Progress::new(Some(len), what)
    }

    fn new(len: Option<u64>, what: &str) -> Progress {
        use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
        if !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let (bar, template) = match len {
            None => (
                ProgressBar::new_spinner(),
                "{spinner} {prefix} [{elapsed}] {msg}",
            ),
            Some(n) => (
                ProgressBar::new(n),
                "{prefix} [{elapsed}] {wide_bar} {pos}/{len} (about {eta} left) {msg}",
            ),
        };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_prefix(what.to_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Progress { bar: Some(bar) }
    }

    /// What the work has come to, in a line; computed only when someone is watching.
    pub fn say(&self, message: impl FnOnce() -> String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message());
        }
    }

    /// `done` parts done.
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// One more part done.
    pub fn step(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A real run's watch: its bar drawn at the run's first word of progress, and its report's lines written around
/// the bar so that neither breaks the other.
#[cfg(unix)]
pub struct RealRun {
    command: String,
    progress: std::cell::RefCell<Option<Progress>>,
}

#[cfg(unix)]
impl RealRun {
    pub fn new(command: &str) -> RealRun {
        RealRun {
            command: command.to_owned(),
            progress: Default::default(),
        }
    }
}

#[cfg(unix)]
impl outbox_core::real::Watch for RealRun {
    fn parse_only(&self) -> bool {
        super::parse_only()
    }

    fn at(&self, done: u64, total: u64, what: &dyn Fn() -> String) {
        let mut progress = self.progress.borrow_mut();
        let progress = progress.get_or_insert_with(|| Progress::bar(total, &self.command));
        progress.set(done);
        progress.say(what);
    }

    fn done(&self) {
        self.progress.borrow_mut().take();
    }

    fn write(&self, lines: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let write = || std::io::stdout().lock().write_all(lines);
        match self.progress.borrow().as_ref().and_then(|p| p.bar.as_ref()) {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }
}
