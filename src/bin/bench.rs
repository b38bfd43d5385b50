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
    use outbox_core::protocol::{Location, Ordering, Outcome};
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
        advance_us_per_txn(
            Session::create(&Location::memory(), ConsumerSetup::default()).expect("session"),
            TXNS,
        )
    }

    /// `txns` advances of fresh flows in `session`: microseconds each.
    fn advance_us_per_txn(mut session: Session, txns: usize) -> f64 {
        let steps: Vec<Step> = (0..txns)
            .map(|i| Step::advance(&format!("F{i}"), &format!("F{i}.1"), 0, "reserved", 1))
            .collect();
        let t0 = Instant::now();
        let mut committed = 0;
        for s in &steps {
            committed += usize::from(session.step(s).result == Outcome::COMMITTED);
        }
        let us = t0.elapsed().as_secs_f64() * 1e6 / txns as f64;
        // Checked in the release build the benchmark runs in: a figure for failed writes would be meaningless.
        assert_eq!(committed, txns, "every advance commits");
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

    /// The same `advance` as [`core_us_per_txn`] on PostgreSQL schemas of the server of `url`, fewer of them (a
    /// round trip each statement): microseconds per transaction.
    fn pg_core_us_per_txn(url: &str, txns: usize) -> f64 {
        advance_us_per_txn(
            Session::create(&Location::postgres(url), ConsumerSetup::default()).expect("session"),
            txns,
        )
    }

    /// PostgreSQL's bare transaction over one connection: BEGIN, the two prepared INSERTs, COMMIT.
    fn pg_bare_us_per_txn(url: &str, txns: usize) -> f64 {
        let mut client = postgres::Client::connect(url, postgres::NoTls).expect("connect");
        client
            .batch_execute(
                "SET client_min_messages = warning; DROP SCHEMA IF EXISTS bench_bare CASCADE; CREATE SCHEMA bench_bare;
                 SET search_path = bench_bare;
                 CREATE TABLE flow(flow_id TEXT COLLATE \"C\" PRIMARY KEY, seq BIGINT NOT NULL, state TEXT NOT NULL, amount BIGINT NOT NULL);
                 CREATE TABLE outbox(event_id TEXT COLLATE \"C\" PRIMARY KEY, flow_id TEXT COLLATE \"C\" NOT NULL, seq BIGINT NOT NULL,
                   body TEXT NOT NULL, accepted BIGINT NOT NULL DEFAULT 0 CHECK(accepted IN (0,1)), UNIQUE(flow_id,seq));",
            )
            .expect("schema");
        let flow = client
            .prepare("INSERT INTO flow(flow_id, seq, state, amount) VALUES($1, 1, 'reserved', 3)")
            .expect("prepare");
        let outbox = client
            .prepare("INSERT INTO outbox(event_id, flow_id, seq, body) VALUES($1, $2, 1, $3)")
            .expect("prepare");
        let body = r#"{"event_id":"F0.1","flow_id":"F0","kind":"reserved","payload":{"amount":3},"schema":1,"seq":1}"#;
        let ids: Vec<(String, String)> = (0..txns)
            .map(|i| (format!("F{i}"), format!("F{i}.1")))
            .collect();
        let t0 = Instant::now();
        for (f, e) in &ids {
            client.batch_execute("BEGIN").expect("begin");
            client.execute(&flow, &[f]).expect("flow");
            client.execute(&outbox, &[e, f, &body]).expect("outbox");
            client.batch_execute("COMMIT").expect("commit");
        }
        let us = t0.elapsed().as_secs_f64() * 1e6 / txns as f64;
        let _ = client.batch_execute("DROP SCHEMA bench_bare CASCADE");
        us
    }

    /// The twelve experiments replayed at `location`: milliseconds, all passing.
    fn experiments_ms(location: &Location) -> f64 {
        let t0 = Instant::now();
        for e in outbox_core::experiments::ALL.iter() {
            let check = outbox_core::experiments::check_on(e, location).expect("replays");
            assert!(check.ok(), "{} passes", check.id);
        }
        t0.elapsed().as_secs_f64() * 1000.0
    }

    /// `bench postgres`: issue 58's figures on a throw-away server, each repetition on both stores.
    fn postgres() -> serde_json::Value {
        use outbox_core::protocol::pg::server::Server;
        const PG_TXNS: usize = 2_000;
        let server = Server::start().expect("a throw-away server");
        let started_ms = server.started_in.as_secs_f64() * 1000.0;
        let url = server.url().to_owned();
        let (mut lite_core, mut lite_bare, mut lite_ratio) = (Vec::new(), Vec::new(), Vec::new());
        let (mut pg_core, mut pg_bare, mut pg_ratio) = (Vec::new(), Vec::new(), Vec::new());
        let (mut lite_exp, mut pg_exp) = (Vec::new(), Vec::new());
        for _ in 0..REPS {
            let (c, b) = (core_us_per_txn(), bare_us_per_txn());
            lite_core.push(c);
            lite_bare.push(b);
            lite_ratio.push(c / b);
            let (c, b) = (
                pg_core_us_per_txn(&url, PG_TXNS),
                pg_bare_us_per_txn(&url, PG_TXNS),
            );
            pg_core.push(c);
            pg_bare.push(b);
            pg_ratio.push(c / b);
            lite_exp.push(experiments_ms(&Location::memory()));
            pg_exp.push(experiments_ms(&Location::postgres(&url)));
        }
        let stopped_ms = server.stop().as_secs_f64() * 1000.0;
        serde_json::json!({
            "sqlite": { "core_us_per_txn": stats(lite_core), "bare_us_per_txn": stats(lite_bare),
                        "core_over_bare": stats(lite_ratio), "experiments_ms": stats(lite_exp) },
            "postgres": { "core_us_per_txn": stats(pg_core), "bare_us_per_txn": stats(pg_bare),
                          "core_over_bare": stats(pg_ratio), "experiments_ms": stats(pg_exp),
                          "txns_per_sample": PG_TXNS },
            "server_start_ms": started_ms,
            "server_stop_ms": stopped_ms,
        })
    }

    pub fn main() {
        if std::env::args().nth(1).as_deref() == Some("postgres") {
            let out = serde_json::json!({ "postgres": postgres() });
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            return;
        }
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
