//! The reader's rule (RULE.md), natively and in the page's trimmed SQLite alike: the same rules accepted or
//! refused with the same message, and the same answers carried out.

use outbox_core::protocol::{ApplyResult, BlockReason, Location, Outcome};
use outbox_core::rule::{self, Rule, RuleEffect};
use outbox_core::trace::{self, ConsumerSetup, Session, Step};

#[path = "rulegen.rs"]
mod rulegen;

/// What both builds must say of each generated rule, one line each (`UPDATE_GOLDEN=1` writes it natively).
const GOLDEN: &str = include_str!("../golden/rules.txt");

/// Each generated rule and its verdict: `ok` (`ok arrival` when it reads arrival) or the refusal.
fn verdicts() -> String {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut below = |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        // In u64: usize is 32 bits in wasm32, and both builds must draw the same rules.
        ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) % n.max(1) as u64) as usize
    };
    let mut out = String::new();
    for _ in 0..400 {
        let sql = rulegen::well_formed_rule(&mut below);
        let verdict = match Rule::new(&sql, RuleEffect::Inside) {
            Ok(r) if r.reads_arrival() => "ok arrival".to_owned(),
            Ok(_) => "ok".to_owned(),
            Err(r) => r.located(&sql),
        };
        out.push_str(&format!("{sql}\n  → {verdict}\n"));
    }
    out
}

/// `Ok(reads_arrival)` for a rule both builds accept, `Err(words)` for one both refuse with those words.
const CORPUS: &[(&str, Result<bool, &str>)] = &[
    (rule::STRICT, Ok(false)),
    (rule::GREATER_THAN, Ok(false)),
    (rule::SKIP_BLOCKED, Ok(false)),
    (rule::ARRIVAL_ORDER, Ok(true)),
    ("SELECT * FROM waiting", Err("two columns")),
    (
        "SELECT event_id, 'apply', arrival FROM waiting",
        Err("two columns, an event_id and an action; it has 3"),
    ),
    (
        "select event_id, 'apply' from waiting where seq = last_seq + 1 -- strict, loosely",
        Ok(false),
    ),
    (
        "WITH w AS (SELECT * FROM waiting) SELECT event_id, 'apply' FROM w",
        Ok(true),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting ORDER BY length(kind) DESC, upper(event_id) LIMIT 1",
        Ok(false),
    ),
    (
        "SELECT event_id, 'apply' FROM inbox",
        Err("no such table: inbox"),
    ),
    (
        "SELECT name, 'apply' FROM sqlite_master",
        Err("the rule reads sqlite_master: a rule reads only waiting"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE random() > 0",
        Err("the rule calls random()"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE changes() = 0",
        Err("the rule calls changes()"),
    ),
    (
        "SELECT event_id, date('now') FROM waiting",
        Err("the rule calls date(), which a rule may not call"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE json_valid(kind)",
        Err("the rule calls json_valid()"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE sqrt(seq) > 1",
        Err("the rule calls sqrt()"),
    ),
    (
        "SELECT event_id, CURRENT_TIMESTAMP FROM waiting",
        Err("the rule calls CURRENT_TIMESTAMP()"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE avg(seq) > 1",
        Err("the rule calls avg()"),
    ),
    (
        "SELECT event_id, printf('%d', seq) FROM waiting",
        Err("the rule calls printf()"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE zeroblob(10) IS NULL",
        Err("the rule calls zeroblob()"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 1.5",
        Err("the number 1.5 is not an integer"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 0x10",
        Err("hex"),
    ),
    (
        "SELECT event_id, CAST(seq AS TEXT) FROM waiting",
        Err("the rule uses CAST"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting UNION SELECT event_id, 'skip' FROM waiting",
        Err("compound SELECT (UNION)"),
    ),
    (
        "WITH RECURSIVE c(x) AS (SELECT 1) SELECT x, 'apply' FROM c",
        Err("a recursive WITH"),
    ),
    ("DELETE FROM waiting", Err("must be one SELECT")),
    (
        "INSERT INTO waiting SELECT * FROM waiting",
        Err("must be one SELECT"),
    ),
    ("PRAGMA table_info(waiting)", Err("must be one SELECT")),
    (
        "SELECT event_id, 'apply' FROM waiting; DELETE FROM waiting",
        Err("exactly one statement"),
    ),
    (
        "SELECT event_id 'apply' FROM waiting WHERE",
        Err("incomplete input"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE nope = 1",
        Err("no such column: nope"),
    ),
    ("", Err("the rule is empty")),
    ("   -- only a comment", Err("the rule is empty")),
    ("SELECT event_id, x'00' FROM waiting", Err("blob literal")),
    (
        "WITH v(a, b) AS (VALUES('A1', 'apply'), ('A2', 'apply')) SELECT a, b FROM v",
        Err("the rule uses VALUES"),
    ),
    // What the two builds once told apart: each now refused alike (a review found them).
    (
        "SELECT event_id, \"apply\" FROM waiting",
        Err("no such column: \"apply\" - should this be a string literal"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE seq = ?1",
        Err("the rule uses a parameter"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE seq = :seq",
        Err("the rule uses a parameter"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE seq = $seq",
        Err("the rule uses a parameter"),
    ),
    (
        "SELECT event_id, kind -> 'x' FROM waiting",
        Err("the JSON operator ->"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE round/**/(seq) = 1",
        Err("the rule calls round()"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE soundex(kind) = 'R'",
        Err("the rule calls soundex()"),
    ),
    (
        "SELECT name, 'apply' FROM pragma_table_info('waiting')",
        Err("the rule reads pragma_table_info"),
    ),
    (
        "SELECT name, 'apply' FROM dbstat",
        Err("the rule reads dbstat"),
    ),
    (
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 99999999999999999999",
        Err("not a 64-bit integer"),
    ),
];

fn refusal(sql: &str) -> String {
    Rule::new(sql, RuleEffect::Inside)
        .map(|_| String::new())
        .unwrap_or_else(|r| r.located(sql))
}

both! {
    fn generated_rules_get_the_same_verdict_in_both_builds() {
        let got = verdicts();
        #[cfg(not(target_arch = "wasm32"))]
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/rules.txt"), &got).unwrap();
            return;
        }
        let differ: Vec<String> = got
            .lines()
            .zip(GOLDEN.lines())
            .enumerate()
            .filter(|(_, (g, w))| g != w)
            .map(|(n, (g, w))| format!("line {}: {g} | golden: {w}", n + 1))
            .collect();
        assert!(differ.is_empty(), "if meant, UPDATE_GOLDEN=1 (natively) and review the diff:\n{}", differ.join("\n"));
        assert_eq!(got.lines().count(), GOLDEN.lines().count());
    }

    fn every_rule_of_the_corpus_is_accepted_or_refused_with_its_reason() {
        for (sql, expected) in CORPUS {
            match (Rule::new(sql, RuleEffect::Inside), expected) {
                (Ok(rule), Ok(arrival)) => assert_eq!(rule.reads_arrival(), *arrival, "{sql}"),
                (Err(r), Err(words)) => assert!(r.message.contains(words), "{sql}: {}", r.message),
                (got, want) => panic!("{sql}: got {:?}, expected {want:?}", got.map(|r| r.reads_arrival())),
            }
        }
    }

    fn a_long_or_deep_rule_is_refused_and_a_syntax_error_names_its_place() {
        let long = format!("SELECT event_id, 'apply' FROM waiting WHERE {}1", "1 = 1 AND ".repeat(400));
        assert!(refusal(&long).contains("at most 4000"), "{}", refusal(&long));
        let tilde = format!("SELECT event_id, 'apply' FROM waiting WHERE {}seq", "~".repeat(1100));
        assert!(refusal(&tilde).contains("more than 800 tokens"), "{}", refusal(&tilde));
        let deep = format!("SELECT event_id, 'apply' FROM waiting WHERE {}1{}", "(".repeat(60), ")".repeat(60));
        assert!(refusal(&deep).contains("deeper than 50"), "{}", refusal(&deep));
        // Each limit exactly: at it accepted, one past it refused at the token that passed it.
        let padded = |n: usize| format!("SELECT event_id, 'apply' FROM waiting -- {}", "x".repeat(n - 41));
        assert_eq!(refusal(&padded(4000)), "");
        assert_eq!(refusal(&padded(4001)), "the rule is 4001 bytes; at most 4000 are allowed");
        let listed = format!("SELECT event_id, 'apply' FROM waiting WHERE seq IN (1{})", ",1".repeat(394));
        assert_eq!(refusal(&listed), "", "800 tokens");
        assert_eq!(refusal(&format!("{listed};")), "the rule has more than 800 tokens (line 1, column 843)");
        let nested = |n: usize| format!("SELECT event_id, 'apply' FROM waiting WHERE {}1{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(refusal(&nested(50)), "");
        assert_eq!(refusal(&nested(51)), "the rule nests parentheses deeper than 50 (line 1, column 95)");
        let bad = "SELECT event_id,\n  'apply' FROM waiting WHER seq = 1";
        let message = refusal(bad);
        assert!(message.contains("syntax error") && message.contains("(line 2, column 29)"), "{message}");
    }

    fn the_text_check_reads_comments_strings_and_numbers_as_sqlite_does() {
        const RULE: &str = "SELECT event_id, 'apply' FROM waiting";
        const CAST: &str = "the rule uses CAST, which the page's SQLite cannot run";
        let cast = |before: &str| format!("{RULE}{before} AND seq = CAST('1' AS INTEGER)");
        let cases: Vec<(String, String)> = vec![
            // What looks refused but is inside a comment, a string or a longer word: accepted.
            (format!("{RULE}; -- done"), "ok".into()),
            (format!("{RULE}; /* done */"), "ok".into()),
            (format!("-- first\n{RULE}"), "ok".into()),
            (format!("/*/ UNION */ {RULE}"), "ok".into()),
            ("SELECT event_id, 'apply' /* it's a UNION */ FROM waiting".into(), "ok".into()),
            ("SELECT event_id, 'apply' /* 1/2 UNION, 2*3 UNION */ FROM waiting".into(), "ok".into()),
            (format!("{RULE} /* never closed"), "ok".into()),
            ("SELECT event_id, 'apply -- UNION' FROM waiting".into(), "ok".into()),
            ("SELECT \"event_id\" AS \"a\"\"b\", 'apply' FROM waiting".into(), "ok".into()),
            ("SELECT w.event_id AS _cast, 'apply' AS a$b FROM waiting AS w WHERE w.seq - 1 = 0".into(), "ok".into()),
            ("SELECT event_id AS x, 'apply' AS date FROM waiting".into(), "ok".into()),
            (format!("{RULE} WHERE {}", ["(seq > 0)"; 60].join(" AND ")), "ok".into()),
            // The refused token after each of them, named at its place (in characters).
            (cast(" /* c */ WHERE 1"), format!("{CAST} (line 1, column 65)")),
            (cast(" WHERE seq / 2"), format!("{CAST} (line 1, column 63)")),
            (cast(" WHERE flow_id <> ''"), format!("{CAST} (line 1, column 69)")),
            (cast(" WHERE flow_id <> 'it''s'"), format!("{CAST} (line 1, column 74)")),
            ("SELECT event_id AS [a]] , 'apply' FROM waiting WHERE seq = CAST(1 AS INTEGER)".into(), format!("{CAST} (line 1, column 60)")),
            ("SELECT '名', event_id FROM waiting WHERE seq = CAST(1 AS INTEGER)".into(), format!("{CAST} (line 1, column 47)")),
            (format!("{RULE}; -1"), "the rule must be exactly one statement (line 1, column 40)".into()),
            (format!("{RULE}; /1"), "the rule must be exactly one statement (line 1, column 40)".into()),
            (format!("{RULE};\n SELECT 1"), "the rule must be exactly one statement (line 2, column 2)".into()),
            (format!("{RULE} WHERE seq > .5"), "the number .5 is not an integer: a rule has integers only (the page's SQLite has no floating point) (line 1, column 51)".into()),
            (format!("{RULE} WHERE date /* c */ ('now') > 0"), "the rule calls date(), which a rule may not call (a rule's answer must be fixed by waiting's rows) (line 1, column 45)".into()),
            (format!("{RULE}, dbstat"), "the rule reads dbstat: a rule reads only waiting (line 1, column 40)".into()),
            ("  + 1".into(), "the rule must be one SELECT (or WITH … SELECT), not + (line 1, column 3)".into()),
            ("SELECT event_id, 'apply FROM waiting".into(), "unrecognized token: \"'apply FROM waiting\" (line 1, column 18)".into()),
        ];
        for (sql, want) in &cases {
            let got = Some(refusal(sql)).filter(|r| !r.is_empty()).unwrap_or_else(|| "ok".into());
            assert_eq!(&got, want, "{sql}");
        }
    }

    fn the_arrival_order_queue_runs_3_1_2_backwards() {
        let rule = Rule::new(rule::ARRIVAL_ORDER, RuleEffect::Inside).unwrap();
        let mut session = Session::create(&Location::memory(), ConsumerSetup::with_rule(rule, false)).unwrap();
        for (id, expected) in [("A1", 0), ("A2", 1), ("A3", 2)] {
            let step = Step::advance("A", id, expected, ["reserved", "confirmed", "released"][expected as usize], 1);
            assert_eq!(session.step(&step).result, Outcome::COMMITTED);
        }
        for id in ["A3", "A1", "A2"] {
            assert_eq!(session.step(&Step::relay(Some(id))).result, Outcome::ACCEPTED);
        }
        let report = session.step(&Step::process_all(None));
        assert_eq!(report.applied, 3, "{report:?}");
        let effects: Vec<String> = session.snapshot().unwrap().consumer.effect.iter().map(|e| e.event_id.clone()).collect();
        assert_eq!(effects, ["A3", "A1", "A2"], "the queue applies in arrival order");
        assert!(!session.check_invariant().unwrap().holds, "release, then reserve, then confirm");
    }

    fn an_answer_the_engine_cannot_carry_out_is_a_rule_error_that_writes_nothing() {
        for (sql, words) in [
            ("SELECT 'A9', 'apply' FROM waiting", "the event_id 'A9', which is not a waiting row"),
            ("SELECT event_id, 'maybe' FROM waiting", "the action 'maybe'"),
            ("SELECT seq, 'apply' FROM waiting", "the event_id 1"),
            ("SELECT event_id, NULL FROM waiting", "the action NULL"),
            ("SELECT event_id, 'apply' FROM waiting WHERE (SELECT count(*) FROM waiting a, waiting b, waiting c, \
              waiting d, waiting e, waiting f, waiting g, waiting h, waiting i, waiting j, waiting k, waiting l, waiting m, \
              waiting n, waiting o, waiting p) < 0", "stopped after 2 million steps"),
            ("SELECT event_id, replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(\
              replace(replace(replace(replace(replace(replace(replace(replace('x', 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), \
              'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), \
              'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx') FROM waiting", "too big"),
        ] {
            let rule = Rule::new(sql, RuleEffect::Inside).unwrap_or_else(|r| panic!("{sql}: {r:?}"));
            let mut session = Session::create(&Location::memory(), ConsumerSetup::with_rule(rule, false)).unwrap();
            for (id, expected, kind) in [("A1", 0, "reserved"), ("A2", 1, "confirmed"), ("A3", 2, "released")] {
                session.step(&Step::advance("A", id, expected, kind, 1));
                session.step(&Step::relay(Some(id)));
            }
            let before = session.snapshot().unwrap();
            let report = session.step(&Step::apply("A"));
            assert_eq!(report.result, Outcome::Apply(ApplyResult::RuleError), "{sql}");
            let message = report.message.unwrap_or_default();
            assert!(message.contains(words), "{sql}: {message}");
            assert_eq!(session.snapshot().unwrap(), before, "{sql}: nothing written");
        }
    }

    fn block_and_skip_write_what_the_rule_says() {
        let run = |sql: &str| {
            let rule = Rule::new(sql, RuleEffect::Inside).unwrap();
            let mut session = Session::create(&Location::memory(), ConsumerSetup::with_rule(rule, false)).unwrap();
            session.step(&Step::advance("A", "A1", 0, "reserved", 1));
            session.step(&Step::relay(Some("A1")));
            let report = session.step(&Step::apply("A"));
            (report.result, session.snapshot().unwrap())
        };
        let (result, rows) = run("SELECT event_id, 'block' FROM waiting");
        assert_eq!(result, Outcome::Apply(ApplyResult::Blocked(BlockReason::Rule)));
        assert_eq!(rows.consumer.inbox[0].reason.as_deref(), Some("rule"));
        assert!(rows.consumer.projection.is_empty());
        let (result, rows) = run("SELECT event_id, 'skip' FROM waiting");
        assert_eq!(result, Outcome::Apply(ApplyResult::Blocked(BlockReason::Rule)));
        let p = &rows.consumer.projection[0];
        assert_eq!((p.last_seq, p.state.as_str(), p.held), (1, "new", 0), "the dead-letter queue");
        assert!(rows.consumer.effect.is_empty());
    }

    fn why_it_broke_names_what_the_rule_answered_and_what_strict_would_have() {
        let rule = Rule::new(rule::ARRIVAL_ORDER, RuleEffect::Inside).unwrap();
        let steps = vec![
            Step::advance("A", "A1", 0, "reserved", 1),
            Step::advance("A", "A2", 1, "confirmed", 1),
            Step::relay(Some("A2")),
            Step::apply("A"),
        ];
        let t = trace::Trace::new(ConsumerSetup::with_rule(rule, false), steps);
        let en = outbox_core::explain::explain(&t, outbox_core::lang::Lang::En).unwrap().unwrap();
        assert_eq!(en.step, Some(3));
        assert!(
            en.text.ends_with("Your rule answered (A2, apply) there, with flow A at last_seq 0 (new); the strict rule would have answered no row (gap)."),
            "{}", en.text
        );
        let zh = outbox_core::explain::explain(&t, outbox_core::lang::Lang::Zh).unwrap().unwrap();
        assert!(zh.text.contains("你的规则在这里回答了（A2, apply），当时流程 A 的 last_seq 是 0、状态是 new（新建）；严格规则会回答没有行（gap）。"), "{}", zh.text);
    }

    fn a_trace_carries_its_rule_and_refuses_a_bad_one() {
        let rule = Rule::new(rule::STRICT, RuleEffect::Outside).unwrap();
        let t = trace::Trace::new(ConsumerSetup::with_rule(rule, true), vec![Step::apply("A")]);
        let back = trace::parse(&t.to_json().unwrap()).unwrap();
        assert_eq!(back, t);
        let bad = r#"{"format":"outbox-playground-trace/1","consumer":{"ordering":"rule","rule":"SELECT event_id, 'apply' FROM inbox"},"steps":[]}"#;
        let e = trace::parse(bad).unwrap_err().0;
        assert!(e.contains("field `consumer`: field `rule`: no such table: inbox"), "{e}");
        let stray = r#"{"format":"outbox-playground-trace/1","consumer":{"ordering":"strict","rule":"SELECT 1, 2"},"steps":[]}"#;
        let e = trace::parse(stray).unwrap_err().0;
        assert!(e.contains("belongs only to the ordering `rule`"), "{e}");
    }
}
