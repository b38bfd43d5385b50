//! Native benchmarks (issue 6): the explorer's full workload, and the core's cost per SQLite transaction beside a
//! bare rusqlite loop doing the same row writes — both in one run, so the machine's noise hits both alike.
//! Prints JSON for `scripts/bench.sh`, which writes BENCHMARKS.md. Not a test: nothing here passes or fails.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use outbox_core::checker::{Config, Search, Verdict};
    use outbox_core::explorer;
    use outbox_core::protocol::{Ordering, Outcome};
    use outbox_core::trace::{ConsumerSetup, Session, Step};
    use rusqlite::{Connection, OpenFlags};
    use std::time::Instant;

    const REPS: usize = 7;
    const TXNS: usize = 20_000;

    fn stats(mut samples: Vec<f64>) -> serde_json::Value {
        samples.sort_by(f64::total_cmp);
        serde_json::json!({
            "median": samples[samples.len() / 2],
            "min": samples[0],
            "max": samples[samples.len() - 1],
            "samples": samples.len(),
        })
    }

    /// The explorer's full run: plans for both consumers, every plan run with recovery. Milliseconds.
    fn explorer_ms() -> (f64, usize) {
        let t0 = Instant::now();
        let plans =
            explorer::plans(&[Ordering::Strict, Ordering::DedupeOnly], false).expect("plans");
        let mut runner = explorer::Runner::default();
        let mut ok = 0;
        for plan in &plans {
            ok += usize::from(runner.run(plan).ok);
        }
        std::hint::black_box(ok);
        (t0.elapsed().as_secs_f64() * 1000.0, plans.len())
    }

    /// Microseconds per transaction: `advance` through the core (check history, check seq, write the flow row
    /// and the outbox row, commit) on fresh flows.
    fn core_us_per_txn() -> f64 {
        let mut session = Session::new(ConsumerSetup::default()).expect("session");
        let steps: Vec<Step> = (0..TXNS)
            .map(|i| Step::advance(&format!("F{i}"), &format!("F{i}.1"), 0, "reserved", 1))
            .collect();
        let t0 = Instant::now();
        let mut committed = 0;
        for s in &steps {
            committed += usize::from(session.step(s).result == Outcome::COMMITTED);
        }
        let us = t0.elapsed().as_secs_f64() * 1e6 / TXNS as f64;
        // Checked in the release build the benchmark runs in: a figure for failed writes would be meaningless.
        assert_eq!(committed, TXNS, "every advance commits");
        us
    }

    /// CHECKER.md's default configuration on `threads` threads: milliseconds, and the transitions it ran.
    fn checker_ms(threads: usize) -> (f64, u64) {
        let t0 = Instant::now();
        let mut search = Search::new(Config::default())
            .expect("the default configuration")
            .with_threads(threads);
        let holds = matches!(search.finish(), Ok(Verdict::Holds));
        assert!(holds, "the default configuration holds");
        (
            t0.elapsed().as_secs_f64() * 1000.0,
            search.counts().transitions,
        )
    }

    /// The same row writes with nothing around them: BEGIN IMMEDIATE, two cached INSERTs, COMMIT.
    fn bare_us_per_txn() -> f64 {
        let conn = Connection::open_with_flags(
            "file:/bench-bare.db?vfs=memdb",
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_URI,
        )
        .expect("open");
        conn.execute_batch(
            "DROP TABLE IF EXISTS flow; DROP TABLE IF EXISTS outbox;
             CREATE TABLE flow(flow_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, state TEXT NOT NULL, amount INTEGER NOT NULL);
             CREATE TABLE outbox(event_id TEXT PRIMARY KEY, flow_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
               accepted INTEGER NOT NULL DEFAULT 0 CHECK(accepted IN (0,1)), UNIQUE(flow_id,seq));",
        )
        .expect("schema");
        let body = r#"{"event_id":"F0.1","flow_id":"F0","kind":"reserved","payload":{"amount":3},"schema":1,"seq":1}"#;
        let ids: Vec<(String, String)> = (0..TXNS)
            .map(|i| (format!("F{i}"), format!("F{i}.1")))
            .collect();
        let t0 = Instant::now();
        for (flow, event) in &ids {
            // Cached like the core's own BEGIN and COMMIT, so the comparison is statement for statement.
            conn.prepare_cached("BEGIN IMMEDIATE")
                .and_then(|mut s| s.execute([]))
                .expect("begin");
            conn.prepare_cached(
                "INSERT INTO flow(flow_id, seq, state, amount) VALUES(?1, 1, 'reserved', 3)",
            )
            .and_then(|mut s| s.execute([flow]))
            .expect("flow");
            conn.prepare_cached(
                "INSERT INTO outbox(event_id, flow_id, seq, body) VALUES(?1, ?2, 1, ?3)",
            )
            .and_then(|mut s| s.execute([event, flow, &body.to_owned()]))
            .expect("outbox");
            conn.prepare_cached("COMMIT")
                .and_then(|mut s| s.execute([]))
                .expect("commit");
        }
        t0.elapsed().as_secs_f64() * 1e6 / TXNS as f64
    }

    /// The checker's figures (issue 38), each repetition beside a bare transaction: one thread's time per
    /// transition in bare transactions, and what a second thread gains.
    fn checker() -> serde_json::Value {
        let (mut one, mut two, mut per, mut over, mut speedup, mut ceiling) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        let mut transitions = 0;
        for _ in 0..REPS {
            let (ms1, n) = checker_ms(1);
            let (ms2, _) = checker_ms(2);
            // The machine's own ceiling for two threads: two independent one-thread searches at once.
            let t0 = Instant::now();
            std::thread::scope(|s| {
                let a = s.spawn(|| checker_ms(1));
                checker_ms(1);
                let _ = a.join();
            });
            ceiling.push(2.0 * ms1 / (t0.elapsed().as_secs_f64() * 1000.0));
            let b = bare_us_per_txn();
            let us = ms1 * 1000.0 / n as f64;
            transitions = n;
            one.push(ms1);
            two.push(ms2);
            per.push(us);
            over.push(us / b);
            speedup.push(ms1 / ms2);
        }
        serde_json::json!({
            "transitions": transitions,
            "one_thread_ms": stats(one),
            "two_threads_ms": stats(two),
            "us_per_transition": stats(per),
            "bare_txns_per_transition": stats(over),
            "two_threads_speedup": stats(speedup),
            "two_searches_at_once": stats(ceiling),
        })
    }

    pub fn main() {
        // `bench checker`: the checker's figures alone.
        if std::env::args().nth(1).as_deref() == Some("checker") {
            let out = serde_json::json!({ "checker": checker() });
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            return;
        }
        let mut explorer = Vec::new();
        let mut runs = 0;
        let mut core = Vec::new();
        let mut bare = Vec::new();
        let mut ratio = Vec::new();
        // Interleaved, so a burst of noise lands on every figure alike.
        for _ in 0..REPS {
            let (ms, n) = explorer_ms();
            explorer.push(ms);
            runs = n;
            let c = core_us_per_txn();
            let b = bare_us_per_txn();
            core.push(c);
            bare.push(b);
            ratio.push(c / b);
        }
        let steps: usize = explorer::plans(&[Ordering::Strict, Ordering::DedupeOnly], false)
            .map(|plans| plans.iter().map(|p| p.trace().steps.len()).sum())
            .unwrap_or(0);
        let out = serde_json::json!({
            "explorer_runs": runs,
            "explorer_steps": steps,
            "explorer_ms": stats(explorer.clone()),
            "explorer_runs_per_s": stats(explorer.iter().map(|ms| runs as f64 * 1000.0 / ms).collect()),
            "core_us_per_txn": stats(core),
            "bare_us_per_txn": stats(bare),
            "core_over_bare": stats(ratio),
            "txns_per_sample": TXNS,
            "checker": checker(),
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    }
}
