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

/// The PostgreSQL server of `OUTBOX_PG_URL`, or of `pg_virtualenv`'s variables; the PostgreSQL tests fail without
/// one, saying what to run.
#[allow(dead_code)] // only the PostgreSQL tests call it
pub fn pg_url() -> String {
    outbox_core::protocol::pg::server::url_from_env().unwrap_or_else(|| {
        panic!(
            "no PostgreSQL server: run the tests through scripts/test.sh, or under `pg_virtualenv cargo test …`, \
             or set OUTBOX_PG_URL=postgres://USER@HOST/DATABASE"
        )
    })
}

/// The files in `dir` (from the repository's root) whose names end in `.ext`, as paths, sorted.
#[allow(dead_code)]
pub fn files(dir: &str, ext: &str) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(&format!(".{ext}")))
        .collect();
    files.sort();
    files
}
