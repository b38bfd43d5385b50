//! The native CLI: `--check` replays the article's twelve experiments (or the experiment files it names); `replay FILE|-` prints a result document
//! (with `--explain`, why the invariant broke, in English and Chinese);
//! `check` searches every history within bounds (CHECKER.md); `levels --check` holds the break-it levels to the
//! checker; `crash-real`, `race` and `soak` run the protocol
//! in real processes on real files (Unix).
//! `replay --svg` prints the space-time diagram instead, and `power` cuts the power under real processes (Unix).

#[cfg(not(target_arch = "wasm32"))]
#[path = "experiments/native.rs"]
mod native;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

/// The command line is native: the page's target compiles this binary only for the lints.
#[cfg(target_arch = "wasm32")]
fn main() {}
