//! A spec run on a PostgreSQL server as its isolation tester runs it: a connection for setup, teardown and the
//! watch, one per session; each step sent to its session's connection, and, while it has not answered, the watch
//! asks the server whether it waits on another session (`pg_isolation_test_session_is_blocked`, what the tester
//! asks). A step that waits is printed `<waiting ...>` and the next one runs; its answer is printed
//! `<... completed>` when it comes. The output is the tester's, line for line (`tests/interleave.rs` diffs it
//! against PostgreSQL 15's own `isolationtester`). The spec's tables live in a schema of their own, dropped
//! after the run, so that a reader's database is not written outside it.

use super::answer::{Answer, Now, Stopped};
use super::ops::Memory;
use super::pg_session::{answer, connect, db_message, protocol, run, Conn, Work};
use super::run::{Permutation, Transcript};
use super::{check, Block, Isolation, Spec, Step};
use crate::protocol::pg::{shown, Place};
use postgres::Client;
use std::io::Write;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Runs `spec` on the server of `place`'s URL, writing the tester's output to `out`, and returns each
/// permutation's run. `timeout` bounds how long any one step may take to answer once the permutation needs it to.
pub fn run_spec(
    spec: &Spec,
    url: &str,
    isolation: Isolation,
    timeout: Duration,
    out: &mut dyn Write,
) -> Result<Vec<Permutation>, Stopped> {
    let place = Place::fresh(url);
    let schema = format!("{}_spec", place.prefix());
    let mut watch = place
        .connect(None, None)
        .map_err(|e| Stopped(crate::trace::session::stop_message(e)))?;
    watch
        .batch_execute(&format!(
            "SET client_min_messages = warning; DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; \
             SET search_path = {schema}; SET statement_timeout = {}",
            // A setup or teardown that waits on a lock for ever ends too, as a step does.
            timeout.as_millis()
        ))
        .map_err(|e| Stopped(format!("{}: {}", shown(url), db_message(&e))))?;
    let mut transcript = Transcript::new(out);
    let result = run_sessions(
        spec,
        &place,
        &schema,
        &mut watch,
        isolation,
        timeout,
        &mut transcript,
    );
    // The spec's schema goes whatever happened; a session still waiting is cancelled first (in run_sessions).
    let _ = watch.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
    result.map(|()| transcript.permutations)
}

fn run_sessions(
    spec: &Spec,
    place: &Place,
    schema: &str,
    watch: &mut Client,
    isolation: Isolation,
    timeout: Duration,
    out: &mut Transcript<'_>,
) -> Result<(), Stopped> {
    let conns = spec
        .sessions
        .iter()
        .map(|s| Conn::open(place, schema, &s.name, isolation))
        .collect::<Result<Vec<_>, _>>()?;
    let pids: Vec<i32> = conns.iter().map(|c| c.pid).collect();
    out.parsed(spec.sessions.len());
    let mut runner = Runner {
        spec,
        place,
        schema,
        conns: &conns,
        pids: &pids,
        watch,
        timeout,
        forever: vec![true; spec.sessions.len()],
    };
    let result = spec
        .permutations()
        .iter()
        .try_for_each(|permutation| runner.permutation(permutation, out));
    if result.is_err() {
        // A step that never answered: cancelled, so that the schema can be dropped.
        for conn in &conns {
            let _ = conn.cancel.cancel_query(postgres::NoTls);
        }
    }
    result
}

struct Runner<'a> {
    spec: &'a Spec,
    place: &'a Place,
    schema: &'a str,
    conns: &'a [Conn],
    pids: &'a [i32],
    watch: &'a mut Client,
    timeout: Duration,
    /// Per session: whether a lock wait of its lasts until the lock is freed (no `lock_timeout` nor
    /// `statement_timeout` set), read after its setup.
    forever: Vec<bool>,
}

impl Runner<'_> {
    /// A setup or teardown of the spec's, on the watch's connection; one of protocol operations on a
    /// connection of its own, as the protocol's.
    fn block(
        &mut self,
        block: &Block,
        what: &str,
        out: &mut Transcript<'_>,
    ) -> Result<(), Stopped> {
        let answer = match block {
            Block::Ops { .. } => {
                let mut db = protocol(connect(self.place, self.schema, None)?, self.schema);
                run(&mut db, &mut Memory::default(), block)
            }
            Block::Sql(sql) => answer(self.watch.simple_query(sql)),
        };
        if let Some(e) = &answer.error {
            return Err(Stopped(format!("{what} failed: {e}")));
        }
        out.block(block, &answer);
        Ok(())
    }

    /// The end state checked, when the spec's tables are the protocol's.
    fn check(&mut self, out: &mut Transcript<'_>) -> Result<(), Stopped> {
        let watch = &mut *self.watch;
        let checked = check::end_state(&mut |sql| {
            let answer = answer(watch.simple_query(sql));
            match (answer.error, answer.sets.into_iter().next()) {
                (None, Some(set)) => Ok(set),
                (Some(e), _) => Err(e),
                (None, None) => Err(format!("no rows from `{sql}`")),
            }
        })
        .map_err(|e| Stopped(format!("reading the end state: {e}")))?;
        if let Some(checked) = checked {
            out.checked(checked);
        }
        Ok(())
    }

    fn permutation(&mut self, steps: &[String], out: &mut Transcript<'_>) -> Result<(), Stopped> {
        out.begin(steps);
        for conn in self.conns {
            let _ = conn.send.send(Work::Forget);
        }
        for sql in &self.spec.setup {
            self.block(sql, "setup", out)?;
        }
        for (i, session) in self.spec.sessions.iter().enumerate() {
            if let Some(sql) = &session.setup {
                let answer = self.ask(i, sql)?;
                if let Some(e) = &answer.error {
                    return Err(Stopped(format!(
                        "setup of session {} failed: {e}",
                        session.name
                    )));
                }
                self.said(i, out);
                out.block(sql, &answer);
            }
        }
        for i in 0..self.conns.len() {
            let answer = self.ask(
                i,
                &Block::Sql(
                    "SELECT current_setting('lock_timeout') = '0' AND current_setting('statement_timeout') = '0'"
                        .into(),
                ),
            )?;
            self.forever[i] = answer
                .sets
                .first()
                .and_then(|s| s.rows.first())
                .and_then(|r| r[0].as_deref())
                == Some("t");
        }
        // The steps waiting for a lock, in the order they began to wait.
        let mut waiting: Vec<(usize, &Step)> = Vec::new();
        for name in steps {
            let (session, step) = self.spec.step(name).expect("a parsed spec's step");
            // The session is still waiting on an earlier step: that step must answer first.
            if let Some(at) = waiting.iter().position(|(s, _)| *s == session) {
                let (_, earlier) = waiting.remove(at);
                // Blocked by sessions that are idle: only a later step can free it, and this order cannot
                // happen (the tester would wait out its timeout). Blocked by a session that waits too, a
                // deadlock may yet free it: waited for, as the tester does.
                let answer = match self.settle(session, earlier)? {
                    Now::Waiting if self.freed_only_later(session, &waiting)? => {
                        self.said(session, out);
                        let who = self.conns[session].name.clone();
                        out.cannot(&who, step, &format!(
                            "session {who} still waits on a lock that this permutation frees only later"
                        ));
                        waiting.push((session, earlier));
                        return self.abandon(&waiting, out);
                    }
                    Now::Waiting => self.wait(session, earlier)?,
                    Now::Answered(answer) => answer,
                };
                self.said(session, out);
                out.completed(&self.conns[session].name, earlier, &answer);
                // Its answer may have released others (a deadlock's victim lets the other go on).
                waiting = self.released(waiting, out)?;
            }
            self.conns[session]
                .send
                .send(Work::Block(step.sql.clone()))
                .map_err(|_| {
                    Stopped(format!(
                        "session {}: its connection is gone",
                        self.conns[session].name
                    ))
                })?;
            let name = &self.conns[session].name;
            let now = self.settle(session, step)?;
            self.said(session, out);
            match now {
                Now::Answered(answer) => out.answered(name, step, &answer),
                Now::Waiting => {
                    out.waiting(name, step);
                    waiting.push((session, step));
                }
            }
            // What this step released: each waiting step that has answered, in order.
            waiting = self.released(waiting, out)?;
        }
        // The steps still waiting when the permutation ends, in order: each answers, or waits on sessions that
        // are idle and that nothing left in the permutation frees.
        while let Some(&(s, w)) = waiting.first() {
            let answer = match self.settle(s, w)? {
                Now::Answered(answer) => answer,
                Now::Waiting if self.freed_only_later(s, &waiting[1..])? => {
                    self.said(s, out);
                    let who = self.conns[s].name.clone();
                    out.cannot(
                        &who,
                        w,
                        &format!("session {who} still waits on a lock when the permutation ends"),
                    );
                    return self.abandon(&waiting, out);
                }
                Now::Waiting => self.wait(s, w)?,
            };
            self.said(s, out);
            out.completed(&self.conns[s].name, w, &answer);
            waiting.remove(0);
            waiting = self.released(waiting, out)?;
        }
        self.check(out)?;
        self.teardowns(out)
    }

    /// What session `i`'s server said besides its answers since last asked, printed before its next line, as
    /// the tester prints it (`s1: WARNING:  …`).
    fn said(&self, i: usize, out: &mut Transcript<'_>) {
        let said = match self.conns[i].notices.lock() {
            Ok(mut said) => std::mem::take(&mut *said),
            Err(_) => return,
        };
        for text in said {
            out.notice(&self.conns[i].name, &text);
        }
    }

    /// Whether session `i`'s wait can end only by a later step: it waits without a timeout, and every session
    /// holding what it waits for is one of the spec's, idle (not among the `others` waiting).
    fn freed_only_later(&mut self, i: usize, others: &[(usize, &Step)]) -> Result<bool, Stopped> {
        if !self.forever[i] {
            return Ok(false);
        }
        let blockers: Vec<i32> = self
            .watch
            .query_one("SELECT pg_catalog.pg_blocking_pids($1)", &[&self.pids[i]])
            .and_then(|r| r.try_get(0))
            .map_err(|e| Stopped(format!("the lock watch failed: {}", db_message(&e))))?;
        let waits = |pid: &i32| others.iter().any(|(s, _)| self.pids[*s] == *pid);
        Ok(!blockers.is_empty() && blockers.iter().all(|b| self.pids.contains(b) && !waits(b)))
    }

    /// Ends a permutation that cannot go on: the waiting steps cancelled, every session's transaction rolled
    /// back, no check, then the teardowns, so that the next permutation starts from its setup.
    fn abandon(
        &mut self,
        waiting: &[(usize, &Step)],
        out: &mut Transcript<'_>,
    ) -> Result<(), Stopped> {
        for &(s, _) in waiting {
            let _ = self.conns[s].cancel.cancel_query(postgres::NoTls);
        }
        for &(s, _) in waiting {
            let what = format!("session {}'s cancelled step", self.conns[s].name);
            self.answer_within(s, &what)?;
        }
        self.roll_back()?;
        self.teardowns(out)
    }

    /// Every session's transaction rolled back, quietly: the runner's own ROLLBACK warns on a session with
    /// nothing open, which is not the spec's to print.
    fn roll_back(&mut self) -> Result<(), Stopped> {
        for i in 0..self.conns.len() {
            self.ask(i, &Block::Sql("ROLLBACK".into()))?;
            if let Ok(mut said) = self.conns[i].notices.lock() {
                said.clear();
            }
        }
        Ok(())
    }

    /// The sessions' teardowns, then the spec's. What a session still has open after its own is rolled back
    /// first: the spec's teardown would wait on it for ever (as the tester does), so a run ends where a spec
    /// forgot a COMMIT.
    fn teardowns(&mut self, out: &mut Transcript<'_>) -> Result<(), Stopped> {
        for (i, session) in self.spec.sessions.iter().enumerate() {
            if let Some(sql) = &session.teardown {
                let answer = self.ask(i, sql)?;
                self.said(i, out);
                out.block(sql, &answer);
            }
        }
        self.roll_back()?;
        if let Some(sql) = &self.spec.teardown {
            self.block(sql, "teardown", out)?;
        }
        Ok(())
    }

    /// The waiting steps that have answered, printed in the order they began to wait; those still waiting.
    fn released<'s>(
        &mut self,
        waiting: Vec<(usize, &'s Step)>,
        out: &mut Transcript<'_>,
    ) -> Result<Vec<(usize, &'s Step)>, Stopped> {
        let mut still = Vec::new();
        for (s, w) in waiting {
            match self.settle(s, w)? {
                Now::Answered(answer) => {
                    self.said(s, out);
                    out.completed(&self.conns[s].name, w, &answer)
                }
                Now::Waiting => still.push((s, w)),
            }
        }
        Ok(still)
    }

    /// Sends `sql` to session `i` and waits for its answer (setup and teardown of a session).
    fn ask(&mut self, i: usize, block: &Block) -> Result<Answer, Stopped> {
        self.conns[i]
            .send
            .send(Work::Block(block.clone()))
            .map_err(|_| {
                Stopped(format!(
                    "session {}: its connection is gone",
                    self.conns[i].name
                ))
            })?;
        let what = format!("session {}'s setup or teardown", self.conns[i].name);
        self.answer_within(i, &what)
    }

    fn answer_within(&mut self, i: usize, what: &str) -> Result<Answer, Stopped> {
        match self.conns[i].answers.recv_timeout(self.timeout) {
            Ok(answer) => Ok(answer),
            Err(RecvTimeoutError::Timeout) => Err(Stopped(format!(
                "{what} timed out after {} seconds",
                self.timeout.as_secs()
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(Stopped(format!(
                "session {}: its connection is gone",
                self.conns[i].name
            ))),
        }
    }

    /// A waiting step's answer, however long the permutation's next step needs it.
    fn wait(&mut self, session: usize, step: &Step) -> Result<Answer, Stopped> {
        self.answer_within(session, &format!("step {}", step.name))
    }

    /// Waits until session `i`'s step answers, or the server says it waits on another session's lock. Checked
    /// every 10 ms, as the tester does.
    fn settle(&mut self, i: usize, step: &Step) -> Result<Now, Stopped> {
        let begun = Instant::now();
        loop {
            match self.conns[i]
                .answers
                .recv_timeout(Duration::from_millis(10))
            {
                Ok(answer) => return Ok(Now::Answered(answer)),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Stopped(format!(
                        "session {}: its connection is gone",
                        self.conns[i].name
                    )))
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            let blocked: bool = self
                .watch
                .query_one(
                    "SELECT pg_catalog.pg_isolation_test_session_is_blocked($1, $2)",
                    &[&self.pids[i], &self.pids],
                )
                .and_then(|r| r.try_get(0))
                .map_err(|e| Stopped(format!("the lock watch failed: {}", db_message(&e))))?;
            if blocked {
                return Ok(Now::Waiting);
            }
            if begun.elapsed() > self.timeout {
                return Err(Stopped(format!(
                    "step {} timed out after {} seconds",
                    step.name,
                    self.timeout.as_secs()
                )));
            }
        }
    }
}

/// The server's version, as `SHOW server_version` says it (the recording names it).
pub fn server_version(url: &str) -> Result<String, Stopped> {
    let mut client = Place::fresh(url)
        .connect(None, None)
        .map_err(|e| Stopped(crate::trace::session::stop_message(e)))?;
    client
        .query_one("SHOW server_version", &[])
        .and_then(|r| r.try_get(0))
        .map_err(|e| Stopped(format!("{}: {}", shown(url), db_message(&e))))
}
