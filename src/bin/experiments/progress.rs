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
