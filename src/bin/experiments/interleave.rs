//! `interleave`: specs of PostgreSQL's isolation tester run on real connections, printed as the tester prints
//! them (`outbox_core::interleave`), on PostgreSQL or on SQLite; `--all`, every hazard spec on both stores and at
//! every level, as one table.

use outbox_core::interleave::pg::Tables;
use outbox_core::interleave::{self, run::Permutation, table, Isolation};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "interleave FILE.spec --store sqlite|postgres|postgres://… [--isolation read-committed|repeatable-read|serializable] [--step-timeout SECONDS] [--public] \
| interleave --all [DIR …] --store postgres|postgres://… [--json] [--record FILE] [--step-timeout SECONDS]";

/// Where `--all` finds its specs by default: the protocol's hazards, then the public outbox designs.
const SPECS: [&str; 2] = ["specs/isolation/hazards", "specs/isolation/designs"];

pub fn main(args: &super::cli::Interleave) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("experiments interleave: {message}");
            ExitCode::from(2)
        }
    }
}

/// The flags, as the runs read them.
struct Flags<'a> {
    file: Option<&'a str>,
    /// `--all`'s directories.
    dirs: Vec<&'a str>,
    all: bool,
    store: Option<&'a str>,
    isolation: Option<Isolation>,
    timeout: Option<Duration>,
    json: bool,
    record: Option<&'a str>,
    public: bool,
    sample: Option<usize>,
    seed: Option<u64>,
}

/// The most interleavings a spec without permutations runs whole (PostgreSQL 15's own suite has at most 210);
/// more are sampled (`--sample N --seed S`).
const WHOLE: u128 = 1000;

fn flags(args: &super::cli::Interleave) -> Result<Flags<'_>, String> {
    let file = match args.files.as_slice() {
        _ if args.all => None,
        [] => None,
        [file] => Some(file.as_str()),
        _ => return Err(format!("one spec at a time; usage: {USAGE}")),
    };
    Ok(Flags {
        file,
        dirs: args.files.iter().map(String::as_str).collect(),
        all: args.all,
        store: args.store.as_deref(),
        isolation: match args.isolation.as_deref() {
            None => None,
            Some(name) => Some(
                Isolation::from_name(name)
                    .ok_or_else(|| format!("--isolation: no level is named `{name}`"))?,
            ),
        },
        timeout: args.step_timeout.map(Duration::from_secs),
        json: args.json,
        record: args.record.as_deref(),
        public: args.public,
        sample: args.sample,
        seed: args.seed,
    })
}

fn run(args: &super::cli::Interleave) -> Result<(), String> {
    let f = flags(args)?;
    if f.all {
        if f.public {
            return Err(
                "--public goes with one spec: --all runs each in a schema of its own".into(),
            );
        }
        if f.sample.is_some() || f.seed.is_some() {
            return Err(
                "--sample and --seed go with one spec: --all runs each spec's permutations whole"
                    .into(),
            );
        }
        return all(&f);
    }
    if f.json || f.record.is_some() {
        return Err("--json and --record go with --all".into());
    }
    let file = f
        .file
        .ok_or_else(|| format!("which spec? usage: {USAGE}"))?;
    let mut spec = read(Path::new(file))?.1;
    interleavings(&mut spec, f.sample, f.seed)?;
    let store = f
        .store
        .ok_or_else(|| format!("which store? usage: {USAGE}"))?;
    let timeout = f.timeout.unwrap_or(Duration::from_secs(60));
    // As the tester warns, on standard error, before anything runs.
    for name in spec.unused_steps() {
        eprintln!("unused step name: {name}");
    }
    let mut out = std::io::stdout().lock();
    if store == "sqlite" {
        if f.isolation.is_some() {
            return Err("--isolation is PostgreSQL's: SQLite lets one writer in at a time".into());
        }
        if f.timeout.is_some() {
            return Err("--step-timeout is PostgreSQL's: on SQLite a step that needs the writer is answered busy at once".into());
        }
        if f.public {
            return Err("--public is PostgreSQL's: on SQLite a spec's tables are in a database of the run's own".into());
        }
        if super::parse_only() {
            return Ok(());
        }
        return interleave::lite::run_spec(&spec, &mut out)
            .map(drop)
            .map_err(|e| e.0);
    }
    if !outbox_core::protocol::pg::server::names_postgres(store) {
        return Err(format!(
            "--store must be sqlite, postgres or a postgres:// URL, got `{store}`"
        ));
    }
    if super::parse_only() {
        return Ok(());
    }
    let target = outbox_core::protocol::pg::server::Target::from_flag_for_specs(store)?;
    interleave::pg::run_spec(
        &spec,
        &target.url,
        f.isolation.unwrap_or(Isolation::ReadCommitted),
        timeout,
        if f.public {
            Tables::Public
        } else {
            Tables::Private
        },
        &mut out,
    )
    .map(drop)
    .map_err(|e| e.0)
}

/// A spec that lists no permutation runs every interleaving, as the tester does: how many is said first (on
/// standard error when it is a terminal, so that an output kept in a file stays the tester's, byte for byte),
/// and more than [`WHOLE`] are refused unless sampled.
fn interleavings(
    spec: &mut interleave::Spec,
    sample: Option<usize>,
    seed: Option<u64>,
) -> Result<(), String> {
    if !spec.permutations.is_empty() {
        if sample.is_some() || seed.is_some() {
            return Err("--sample and --seed draw interleavings for a spec that lists no permutation; this one lists its own".into());
        }
        return Ok(());
    }
    let count = spec.interleavings();
    match sample {
        None if seed.is_some() => Err("--seed goes with --sample N".into()),
        None if count > WHOLE => Err(format!(
            "{count} interleavings: more than the {WHOLE} a run takes whole; sample them with --sample N --seed S, or list permutations"
        )),
        None => {
            if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                eprintln!("{count} interleavings");
            }
            Ok(())
        }
        Some(n) => {
            let seed = seed.unwrap_or(1);
            eprintln!("{count} interleavings; {n} drawn with seed {seed}");
            let drawn = spec.sampled(n, seed);
            spec.markers = vec![Vec::new(); drawn.len()];
            spec.permutations = drawn;
            Ok(())
        }
    }
}

/// A spec file read and parsed, refused whole with its name and line.
fn read(file: &Path) -> Result<(String, interleave::Spec), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let spec = interleave::parse(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok((text, spec))
}

fn all(f: &Flags<'_>) -> Result<(), String> {
    if f.isolation.is_some() {
        return Err("--all runs every level: leave --isolation out".into());
    }
    let dirs: Vec<&str> = if f.dirs.is_empty() {
        SPECS.to_vec()
    } else {
        f.dirs.clone()
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        let dir = PathBuf::from(dir);
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "spec"))
            .collect();
        // Each hazard's wrong form, then the protocol's beside it.
        here.sort_by_key(|p| {
            let name = table::hazard_name(p);
            let wrong = name.ends_with("-wrong");
            (name.trim_end_matches("-wrong").to_owned(), !wrong)
        });
        if here.is_empty() {
            return Err(format!("no .spec file in {}", dir.display()));
        }
        files.extend(here);
    }
    // Every spec is read before any runs: one bad file refuses the whole table, as does one without permutations
    // whose interleavings are more than a run takes whole.
    let specs = files
        .iter()
        .map(|file| read(file).map(|(text, spec)| (file, text, spec)))
        .collect::<Result<Vec<_>, _>>()?;
    for (file, _, spec) in &specs {
        let count = spec.interleavings();
        if spec.permutations.is_empty() && count > WHOLE {
            return Err(format!(
                "{}: {count} interleavings: more than the {WHOLE} a run takes whole; list its permutations",
                file.display()
            ));
        }
    }
    let store = f.store.ok_or_else(|| {
        "--all needs PostgreSQL: give --store postgres or --store postgres://…".to_owned()
    })?;
    if !outbox_core::protocol::pg::server::names_postgres(store) {
        return Err(format!(
            "--all runs on SQLite and PostgreSQL: --store must be postgres or a postgres:// URL, got `{store}`"
        ));
    }
    if super::parse_only() {
        return Ok(());
    }
    if let Some(path) = f.record {
        // Said before the runs, not after them; a file made only to find out goes again.
        let existed = Path::new(path).exists();
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot write {path}: {e}"))?;
        if !existed {
            let _ = std::fs::remove_file(path);
        }
    }
    let target = outbox_core::protocol::pg::server::Target::from_flag_for_specs(store)?;
    let timeout = f.timeout.unwrap_or(Duration::from_secs(60));
    let started = Instant::now();
    let (mut lite, mut pg) = (Clock::default(), Clock::default());
    let mut rows = Vec::new();
    // Each spec on SQLite and at the three levels: four cells a spec.
    let progress = super::progress::Progress::bar(specs.len() as u64 * 4, "interleave --all");
    for (file, text, spec) in &specs {
        let named = |e: String| format!("{}: {e}", file.display());
        let mut cells = Vec::new();
        let t = Instant::now();
        let runs =
            interleave::lite::run_spec(spec, &mut std::io::sink()).map_err(|e| named(e.0))?;
        lite.add(t, &runs);
        cells.extend(table::cell("sqlite", runs));
        progress.step();
        for level in Isolation::ALL {
            let t = Instant::now();
            let runs = interleave::pg::run_spec(
                spec,
                &target.url,
                level,
                timeout,
                Tables::Private,
                &mut std::io::sink(),
            )
            .map_err(|e| named(e.0))?;
            pg.add(t, &runs);
            cells.extend(table::cell(level.name(), runs));
            progress.step();
            progress.say(|| format!("{} permutations", lite.permutations + pg.permutations));
        }
        rows.push(table::Row {
            hazard: table::hazard_name(file),
            title: table::title(text),
            sessions: spec.sessions.iter().map(|s| s.name.clone()).collect(),
            cells,
        });
    }
    drop(progress);
    let table = table::Table {
        postgresql: interleave::pg::server_version(&target.url).map_err(|e| e.0)?,
        sqlite: interleave::lite::sqlite_version(),
        rows,
    };
    let document = serde_json::to_string_pretty(&table).map_err(|e| e.to_string())? + "\n";
    if let Some(path) = f.record {
        std::fs::write(path, &document).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    if f.json {
        print!("{document}");
    } else {
        print!("{}", table.text());
        println!(
            "{} permutations on SQLite ({}/s), {} on PostgreSQL ({}/s); the whole table in {:.1} s",
            lite.permutations,
            lite.rate(),
            pg.permutations,
            pg.rate(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Permutations run and the time they took, on one store.
#[derive(Default)]
struct Clock {
    permutations: usize,
    time: Duration,
}

impl Clock {
    fn add(&mut self, since: Instant, runs: &[Permutation]) {
        self.permutations += runs.len();
        self.time += since.elapsed();
    }

    fn rate(&self) -> u64 {
        (self.permutations as f64 / self.time.as_secs_f64().max(1e-9)).round() as u64
    }
}
