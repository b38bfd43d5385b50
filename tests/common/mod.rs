//! What the CLI tests share: run the `experiments` binary as a user would.

use std::process::Command;

/// Runs `experiments ARGS…`; returns its exit code, stdout and stderr.
pub fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_experiments"))
        .args(args)
        .output()
        .expect("the CLI starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
