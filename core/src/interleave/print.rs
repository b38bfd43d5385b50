//! A result set as PostgreSQL's isolation tester prints it: libpq's `PQprint` with `align`, `header` and `|` as
//! the field separator (`src/interfaces/libpq/fe-print.c`). A column is right-aligned when every value it holds
//! looks like a number (digits, `.`, `e`, `E`, space and `-`, ending in a digit, not starting with `e`), else
//! left-aligned; widths are bytes, as there.

/// One result set: its columns' names and its rows (`None` for NULL).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ResultSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
}

/// Whether libpq's test takes `value` for a number.
fn numeric(value: &str) -> bool {
    let bytes = value.as_bytes();
    let Some(&last) = bytes.last() else {
        return true;
    };
    bytes
        .iter()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'E' | b'e' | b' ' | b'-'))
        && !matches!(bytes[0], b'E' | b'e')
        && last.is_ascii_digit()
}

/// `set` as `PQprint` writes it, with its row count and the blank line after; nothing for a result of no column.
pub fn result_set(set: &ResultSet) -> String {
    let n = set.columns.len();
    if n == 0 {
        return String::new();
    }
    let mut width: Vec<usize> = set.columns.iter().map(String::len).collect();
    let mut number = vec![true; n];
    for row in &set.rows {
        for (j, value) in row.iter().enumerate().take(n) {
            // An empty value or NULL neither widens a column nor decides its alignment.
            let Some(value) = value.as_deref().filter(|v| !v.is_empty()) else {
                continue;
            };
            width[j] = width[j].max(value.len());
            number[j] &= numeric(value);
        }
    }
    let cell = |text: &str, j: usize| {
        if number[j] {
            format!("{text:>w$}", w = width[j])
        } else {
            format!("{text:<w$}", w = width[j])
        }
    };
    let line = |cells: Vec<String>| cells.join("|");
    let mut out = String::new();
    out.push_str(&line((0..n).map(|j| cell(&set.columns[j], j)).collect()));
    out.push('\n');
    out.push_str(&line(width.iter().map(|w| "-".repeat(*w)).collect()).replace('|', "+"));
    out.push('\n');
    for row in &set.rows {
        let cells = (0..n)
            .map(|j| cell(row.get(j).and_then(|v| v.as_deref()).unwrap_or(""), j))
            .collect();
        out.push_str(&line(cells));
        out.push('\n');
    }
    let count = set.rows.len();
    out.push_str(&format!(
        "({count} row{})\n\n",
        if count == 1 { "" } else { "s" }
    ));
    out
}
