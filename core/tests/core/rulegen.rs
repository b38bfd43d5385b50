//! Rules for the tests that feed many to both builds: SELECTs over `waiting` that SQLite mostly accepts, with
//! every function name SQLite knows. `below(n)` is the caller's random number under `n`.

/// Every function name SQLite knows, in either build (RULE.md: a rule may call only those fixed by their
/// arguments, and the same in the page and the CLI).
pub const FUNCTIONS: &[&str] = &[
    "abs",
    "changes",
    "char",
    "coalesce",
    "concat",
    "concat_ws",
    "format",
    "glob",
    "hex",
    "if",
    "ifnull",
    "iif",
    "instr",
    "last_insert_rowid",
    "length",
    "like",
    "likelihood",
    "likely",
    "load_extension",
    "lower",
    "ltrim",
    "max",
    "min",
    "nullif",
    "octet_length",
    "printf",
    "quote",
    "random",
    "randomblob",
    "replace",
    "round",
    "rtrim",
    "sign",
    "soundex",
    "sqlite_compileoption_get",
    "sqlite_compileoption_used",
    "sqlite_offset",
    "sqlite_source_id",
    "sqlite_version",
    "substr",
    "substring",
    "total_changes",
    "trim",
    "typeof",
    "unhex",
    "unicode",
    "unlikely",
    "upper",
    "zeroblob",
    "avg",
    "count",
    "group_concat",
    "string_agg",
    "sum",
    "total",
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "timediff",
    "acos",
    "ceil",
    "floor",
    "ln",
    "log",
    "mod",
    "pi",
    "pow",
    "sqrt",
    "json",
    "json_extract",
    "json_valid",
    "json_object",
    "json_each",
    "fts5",
    "highlight",
    "nope_no_such",
];

/// A SELECT over `waiting` that SQLite mostly accepts: the answer's two columns, a condition of comparisons
/// and function calls, an order.
pub fn well_formed_rule(below: &mut dyn FnMut(usize) -> usize) -> String {
    const COLS: &[&str] = &outbox_core::rule::COLUMNS;
    let mut pick = |items: &[&'static str]| items[below(items.len())];
    let term = |pick: &mut dyn FnMut(&[&'static str]) -> &'static str| -> String {
        match pick(&["f", "lit", "col", "col"]) {
            "f" => format!("{}({})", pick(FUNCTIONS), pick(COLS)),
            "lit" => pick(&["1", "0", "'pending'", "NULL", "last_seq + 1", "'A1'"]).to_owned(),
            _ => pick(COLS).to_owned(),
        }
    };
    let id = pick(&[
        "event_id",
        "coalesce(event_id, 'A1')",
        "'A1'",
        "seq",
        "CASE WHEN problem IS NULL THEN event_id END",
        "upper(event_id)",
    ]);
    let action = pick(&[
        "'apply'",
        "'block'",
        "'skip'",
        "CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END",
        "kind",
        "'nope'",
    ]);
    let mut text = format!("SELECT {id}, {action} FROM waiting");
    if pick(&["", "w", "w"]) == "w" {
        let n = pick(&["1", "2", "3"]).parse::<usize>().unwrap_or(1);
        let cond: Vec<String> = (0..n)
            .map(|_| {
                let (a, op, b) = (
                    term(&mut pick),
                    pick(&["=", "<", ">", "<>", "IS", "IS NOT"]),
                    term(&mut pick),
                );
                format!("{a} {op} {b}")
            })
            .collect();
        text.push_str(&format!(" WHERE {}", cond.join(pick(&[" AND ", " OR "]))));
    }
    if pick(&["", "o"]) == "o" {
        let order = term(&mut pick);
        text.push_str(&format!(" ORDER BY {order} {}", pick(&["", "DESC"])));
    }
    if pick(&["", "l"]) == "l" {
        text.push_str(" LIMIT 1");
    }
    text
}
