//! The `experiments` CLI as a user runs it: `--check`, `replay FILE`, `replay -`, and a refused trace.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Stdio};

fn cli(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_experiments"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    if let Some(text) = stdin {
        // The CLI may stop reading early (an oversized trace): a closed pipe is not the test's failure.
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_reproduces_all_twelve() {
    let (code, out, _) = cli(&["--check"], None);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<_> = out.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("ok ")).count(),
        12,
        "{out}"
    );
    assert_eq!(lines.last().copied(), Some("12 passed, 0 failed"));
}

#[test]
fn replay_prints_the_result_document_from_a_file_and_from_stdin() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/03-arrival-3-1-2.json"
    );
    let (code, out, _) = cli(&["replay", path], None);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["format"], "outbox-playground-result/1");
    assert_eq!(doc["consumer"]["projection"][0]["state"], "released");
    let text = std::fs::read_to_string(path).unwrap();
    let (code, from_stdin, _) = cli(&["replay", "-"], Some(&text));
    assert_eq!((code, from_stdin), (0, out));
}

#[test]
fn a_failing_invariant_is_data_not_an_error() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/05-dedupe-only-consumer.json"
    );
    let (code, out, _) = cli(&["replay", path], None);
    assert_eq!(code, 0);
    assert!(out.contains("\"holds\": false"));
}

#[test]
fn an_invalid_trace_exits_2_with_one_line() {
    let (code, out, err) = cli(
        &["replay", "-"],
        Some(r#"{"format":"outbox-playground-trace/1","steps":[{"op":"apply"}]}"#),
    );
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("step 1 (apply): missing field `flow`"),
        "{err}"
    );
    let (code, _, err) = cli(&["replay", "/nonexistent.json"], None);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"));
}

#[test]
fn an_oversized_trace_is_refused_by_size_even_mid_character() {
    // 1.5 MiB of three-byte characters: byte 1,048,577 falls inside one.
    let text = format!(
        r#"{{"format":"outbox-playground-trace/1","steps":[],"x":"{}"}}"#,
        "预".repeat(520_000)
    );
    let (code, _, err) = cli(&["replay", "-"], Some(&text));
    assert_eq!(code, 2);
    assert!(err.contains("larger than 1048576 bytes"), "{err}");
}
