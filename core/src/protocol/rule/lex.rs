//! What a rule may not say, read off its tokens before SQLite sees it: the parts of SQL that the page's trimmed
//! SQLite cannot run (compound SELECT, CAST, floating point; `.cargo/config.toml`) and the nesting it cannot
//! bound, so that a rule is refused alike natively and in the page, with the same message.

/// The most bytes a rule may have (RULE.md).
pub const MAX_BYTES: usize = 4000;
/// The deepest nesting of parentheses: the page's SQLite has no expression-depth limit, the CLI's stops at 1000.
pub const MAX_DEPTH: usize = 50;
/// The most tokens a rule may have: an expression as deep as the CLI's limit needs more, so both builds refuse
/// it here alike.
pub const MAX_TOKENS: usize = 800;

/// A refusal found in the text, with the byte offset of the token it names.
pub type Found = (String, Option<usize>);

/// The keywords the page's SQLite is built without (`SQLITE_OMIT_COMPOUND_SELECT`, `SQLITE_OMIT_CAST`).
const OMITTED: [(&str, &str); 6] = [
    ("VALUES", "VALUES (write a SELECT)"),
    ("UNION", "a compound SELECT (UNION)"),
    ("INTERSECT", "a compound SELECT (INTERSECT)"),
    ("EXCEPT", "a compound SELECT (EXCEPT)"),
    ("CAST", "CAST"),
    ("RECURSIVE", "a recursive WITH"),
];

/// Functions the CLI's SQLite has and the page's does not (date and time, JSON, math, full-text and R-tree,
/// `round` without floating point): refused here with the authorizer's own words, so that both builds say the
/// same (the page's SQLite would say "no such function"). `core/tests/core/rules.rs` finds any left out.
const NOT_IN_THE_PAGE: &[&str] = &[
    "round",
    "fts5",
    "fts5_source_id",
    "highlight",
    "snippet",
    "bm25",
    "sqlite_compileoption_get",
    "sqlite_offset",
    "rtreenode",
    "rtreedepth",
    "rtreecheck",
    "offsets",
    "matchinfo",
    "optimize",
    "soundex",
    "load_extension",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "timediff",
    "current_date",
    "current_time",
    "current_timestamp",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "ceiling",
    "cos",
    "cosh",
    "degrees",
    "exp",
    "floor",
    "ln",
    "log",
    "log10",
    "log2",
    "mod",
    "pi",
    "pow",
    "power",
    "radians",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "sqlite_compileoption_used",
];

/// Tables only the CLI's SQLite has (virtual tables): refused with the authorizer's words for a read.
const TABLES_NOT_IN_THE_PAGE: &[&str] = &[
    "dbstat",
    "sqlite_dbpage",
    "sqlite_stmt",
    "bytecode",
    "tables_used",
    "generate_series",
];

/// The authorizer's refusal of a read (engine.rs says the same).
pub fn refused_table(name: &str) -> String {
    format!("the rule reads {name}: a rule reads only waiting")
}

/// Whether the next token after `rest`'s whitespace and comments is `(`.
fn called(rest: &str) -> bool {
    let mut r = rest;
    loop {
        let t = r.trim_start();
        if let Some(after) = t.strip_prefix("--") {
            r = after.split_once('\n').map_or("", |(_, more)| more);
        } else if let Some(after) = t.strip_prefix("/*") {
            r = after.split_once("*/").map_or("", |(_, more)| more);
        } else {
            return t.starts_with('(');
        }
    }
}

/// The authorizer's refusal of a function (engine.rs says the same).
pub fn refused_function(name: &str) -> String {
    format!(
        "the rule calls {name}(), which a rule may not call (a rule's answer must be fixed by waiting's rows)"
    )
}

/// Checks the rule's text token by token: its size, then the first token that the page cannot run.
/// It also refuses an empty rule, a second statement, and a first word other than `SELECT` or `WITH`.
pub fn check(sql: &str) -> Result<(), Found> {
    if sql.len() > MAX_BYTES {
        return Err((
            format!(
                "the rule is {} bytes; at most {MAX_BYTES} are allowed",
                sql.len()
            ),
            None,
        ));
    }
    if sql.trim().is_empty() {
        return Err((
            "the rule is empty: write one SELECT over waiting".into(),
            None,
        ));
    }
    let b = sql.as_bytes();
    let (mut i, mut depth) = (0usize, 0usize);
    let mut first: Option<&str> = None;
    let mut ended = false;
    let mut tokens = 0usize;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if !c.is_ascii_whitespace() {
            tokens += 1;
            if tokens > MAX_TOKENS {
                return Err((
                    format!("the rule has more than {MAX_TOKENS} tokens"),
                    Some(start),
                ));
            }
        }
        let comment = (c == b'-' && b.get(i + 1) == Some(&b'-'))
            || (c == b'/' && b.get(i + 1) == Some(&b'*'));
        if ended && !comment && !c.is_ascii_whitespace() {
            return Err(("the rule must be exactly one statement".into(), Some(start)));
        }
        if c == b';' {
            ended = true;
        }
        match c {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if c == b'[' { b']' } else { c };
                i += 1;
                while i < b.len() {
                    if b[i] == close {
                        // A doubled quote is one quote inside the string.
                        if close != b']' && b.get(i + 1) == Some(&close) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err((
                        format!("the rule nests parentheses deeper than {MAX_DEPTH}"),
                        Some(start),
                    ));
                }
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'0'..=b'9' | b'.' if c != b'.' || b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_')
                {
                    i += 1;
                }
                let number = &sql[start..i];
                if number.starts_with("0x") || number.starts_with("0X") {
                    return Err((
                        format!("the number {number} is written in hex, which the page's SQLite cannot read"),
                        Some(start),
                    ));
                }
                if number.bytes().any(|d| matches!(d, b'.' | b'e' | b'E')) {
                    return Err((
                        format!("the number {number} is not an integer: a rule has integers only (the page's SQLite has no floating point)"),
                        Some(start),
                    ));
                }
                if number.parse::<i64>().is_err() {
                    return Err((
                        format!("the number {number} is not a 64-bit integer"),
                        Some(start),
                    ));
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric()
                        || b[i] == b'_'
                        || b[i] == b'$'
                        || b[i] >= 0x80)
                {
                    i += 1;
                }
                let word = &sql[start..i];
                if first.is_none() {
                    first = Some(word);
                }
                if word.eq_ignore_ascii_case("x") && b.get(i) == Some(&b'\'') {
                    return Err((
                        "the rule uses a blob literal (x'…'), which the page's SQLite cannot read"
                            .into(),
                        Some(start),
                    ));
                }
                let called = called(&sql[i..]);
                let lower = word.to_ascii_lowercase();
                if lower.starts_with("pragma_") || TABLES_NOT_IN_THE_PAGE.contains(&lower.as_str())
                {
                    return Err((refused_table(word), Some(start)));
                }
                let clock = lower.starts_with("current_");
                if clock
                    || (called
                        && (lower.starts_with("json") || NOT_IN_THE_PAGE.contains(&lower.as_str())))
                {
                    return Err((refused_function(word), Some(start)));
                }
                if let Some((_, what)) = OMITTED.iter().find(|(k, _)| k.eq_ignore_ascii_case(word))
                {
                    return Err((
                        format!("the rule uses {what}, which the page's SQLite cannot run"),
                        Some(start),
                    ));
                }
            }
            b'?' | b':' | b'@' | b'$' => {
                return Err((
                    "the rule uses a parameter: a rule reads only waiting".into(),
                    Some(start),
                ));
            }
            b'-' if b.get(i + 1) == Some(&b'>') => {
                return Err((
                    "the rule uses the JSON operator ->, which the page's SQLite cannot run".into(),
                    Some(start),
                ));
            }
            _ => {
                if first.is_none() && !c.is_ascii_whitespace() {
                    first = Some(&sql[start..start + 1]);
                }
                i += 1;
            }
        }
    }
    match first {
        Some(w) if w.eq_ignore_ascii_case("select") || w.eq_ignore_ascii_case("with") => Ok(()),
        Some(w) => Err((
            format!(
                "the rule must be one SELECT (or WITH … SELECT), not {}",
                crate::json::clip(w, 20)
            ),
            sql.find(w),
        )),
        None => Err((
            "the rule is empty: write one SELECT over waiting".into(),
            None,
        )),
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    // Both the text check and SQLite name a token's first byte, always a char boundary; past the end, the end.
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
