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

/// `--check FILE…` on copies of the twelve: as they are, each reproduces; with one expected field altered, each
/// is a failure naming that field, and the exit code says so.
#[test]
fn check_reports_an_altered_expectation_as_a_failure() {
    let dir = std::env::temp_dir().join(format!("outbox-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let experiments = concat!(env!("CARGO_MANIFEST_DIR"), "/experiments");
    let mut names: Vec<_> = std::fs::read_dir(experiments)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 12);
    let (mut same, mut altered, mut fields) = (Vec::new(), Vec::new(), Vec::new());
    for name in &names {
        let text = std::fs::read_to_string(format!("{experiments}/{name}")).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, &text).unwrap();
        same.push(path.to_string_lossy().into_owned());
        // The first step's result, else the first field the expectation names, says something else.
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let expected = doc["experiment"]["expected"].as_object_mut().unwrap();
        let (key, value) = expected.iter_mut().next().unwrap();
        let field = match value {
            serde_json::Value::Array(rows)
                if rows.first().is_some_and(|r| r.get("result").is_some()) =>
            {
                rows[0]["result"] = "sql_error?".into();
                format!("/{key}/0/result")
            }
            serde_json::Value::Object(fields) => {
                fields.insert("altered".into(), true.into());
                format!("/{key}/altered")
            }
            other => {
                *other = "altered".into();
                format!("/{key}")
            }
        };
        fields.push(field);
        let path = dir.join(format!("altered-{name}"));
        std::fs::write(&path, doc.to_string()).unwrap();
        altered.push(path.to_string_lossy().into_owned());
    }
    let args = |files: &[String]| {
        let mut args = vec!["--check"];
        args.extend(files.iter().map(String::as_str));
        cli(&args, None)
    };
    let (code, out, _) = args(&same);
    assert_eq!(
        (code, out.lines().last()),
        (0, Some("12 passed, 0 failed")),
        "{out}"
    );
    let (code, out, _) = args(&altered);
    assert_eq!(
        (code, out.lines().last()),
        (1, Some("0 passed, 12 failed")),
        "{out}"
    );
    for field in &fields {
        assert!(
            out.lines().any(|l| l
                .trim_start()
                .starts_with(&format!("mismatch {field}: expected "))),
            "no mismatch names {field}: {out}"
        );
    }
    assert_eq!(
        out.lines().filter(|l| l.starts_with("FAILED ")).count(),
        12,
        "{out}"
    );
    // A file that expects nothing is refused, not passed.
    let empty = dir.join("expects-nothing.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&same[2]).unwrap()).unwrap();
    doc["experiment"]
        .as_object_mut()
        .unwrap()
        .remove("expected");
    std::fs::write(&empty, doc.to_string()).unwrap();
    let (code, out, _) = cli(&["--check", empty.to_str().unwrap()], None);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("expects-nothing.json: its `experiment.expected` names nothing to compare"),
        "{out}"
    );
    // A file that is not there is named, and nothing is checked.
    let (code, out, err) = cli(&["--check", "no-such-experiment.json"], None);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("cannot read no-such-experiment.json"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
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

#[test]
fn replay_explain_says_which_step_broke_the_invariant_in_both_languages() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/05-dedupe-only-consumer.json"
    );
    let (code, out, err) = cli(&["replay", "--explain", path], None);
    assert_eq!(code, 0, "{err}");
    let paragraphs: Vec<&str> = out.trim_end().split("\n\n").collect();
    assert_eq!(paragraphs.len(), 2, "{out}");
    assert!(
        paragraphs[0].starts_with("Step 4 (relay A3) applied A3 (released, seq 3)")
            && paragraphs[0].contains("A1 and A2 had not been applied")
            && paragraphs[0].contains("gap"),
        "{out}"
    );
    assert!(
        paragraphs[1].starts_with("第 4 步（relay A3）")
            && paragraphs[1].contains("released（释放）")
            && paragraphs[1].contains("A1 和 A2"),
        "{out}"
    );
    // The flag may follow the file; --lang picks one language.
    let (code, zh, _) = cli(&["replay", path, "--explain", "--lang", "zh"], None);
    assert_eq!((code, zh.trim_end()), (0, paragraphs[1]));
    // A history that holds says so.
    let holds = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/03-arrival-3-1-2.json"
    );
    let (code, out, _) = cli(&["replay", "--explain", "--lang", "en", holds], None);
    assert_eq!(
        (code, out.as_str()),
        (0, "The invariant holds after every step.\n")
    );
    // A bad flag is named.
    for (args, needle) in [
        (
            &["replay", "--explian", path][..],
            "unknown argument `--explian`",
        ),
        (
            &["replay", "--explain", "--lang", "fr", path][..],
            "--lang must be `en` or `zh`, got `fr`",
        ),
        (
            &["replay", "--lang", "en", path][..],
            "--lang needs --explain or --svg",
        ),
        (&["replay", "--dark", path][..], "--dark needs --svg"),
        (
            &["replay", "--svg", "--explain", path][..],
            "--explain and --svg: one at a time",
        ),
    ] {
        let (code, out, err) = cli(args, None);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty() && err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn replay_svg_draws_the_diagram_the_page_saves() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/03-arrival-3-1-2.json"
    );
    let (code, out, err) = cli(&["replay", "--svg", path], None);
    assert_eq!(code, 0, "{err}");
    // The golden file the core's tests hold the renderer to is this very drawing (kept one tag a line).
    let golden = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/core/tests/golden/03-arrival-3-1-2.svg"
    ))
    .unwrap();
    assert_eq!(out, golden.replace(">\n<", "><"));
    let (code, zh, _) = cli(&["replay", path, "--svg", "--lang", "zh", "--dark"], None);
    assert_eq!(code, 0);
    assert!(
        zh.contains("lang=\"zh-Hans\"")
            && zh.contains("#121417")
            && zh.contains("released（释放）")
    );
}
