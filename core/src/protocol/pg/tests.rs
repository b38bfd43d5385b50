use super::*;

#[test]
fn a_password_is_never_shown() {
    assert_eq!(
        shown("postgresql://me:s3cret@db:5432/lab#outbox_1_2_3"),
        "postgresql://me:***@db:5432/lab#outbox_1_2_3"
    );
    assert_eq!(shown("postgres://me@db/lab"), "postgres://me@db/lab");
}

/// The two stores' schemas name the same tables and columns in the same order (PostgreSQL's inbox adds its
/// explicit `rowid`): the SQL is written for both, so a column added to one must be added to the other.
#[test]
fn both_stores_have_the_same_tables_and_columns() {
    fn columns(schema: &str) -> Vec<(String, Vec<String>)> {
        schema
            .split("CREATE TABLE ")
            .skip(1)
            .map(|t| {
                let t = t.replace("IF NOT EXISTS ", "");
                let (name, body) = t.split_once('(').unwrap();
                let (mut depth, mut part, mut parts) = (0, String::new(), Vec::new());
                for c in body.chars() {
                    match c {
                        '(' => depth += 1,
                        ')' if depth == 0 => break,
                        ')' => depth -= 1,
                        ',' if depth == 0 => {
                            parts.push(std::mem::take(&mut part));
                            continue;
                        }
                        _ => {}
                    }
                    part.push(c);
                }
                parts.push(part);
                let cols = parts
                    .iter()
                    .filter_map(|p| p.split_whitespace().next().map(str::to_owned))
                    .filter(|c| c != "UNIQUE" && c != "rowid")
                    .collect();
                (name.trim().to_owned(), cols)
            })
            .collect()
    }
    use crate::protocol::conn as db;
    let lite = [db::PRODUCER_SCHEMA, db::CONSUMER_SCHEMA]
        .map(columns)
        .concat();
    let pg = [PRODUCER_SCHEMA, CONSUMER_SCHEMA].map(columns).concat();
    assert_eq!(lite.len(), 5, "{lite:?}");
    assert_eq!(lite, pg);
}

#[test]
fn placeholders_are_numbered_outside_quotes() {
    assert_eq!(
        placeholders("SELECT '?' FROM t WHERE a=? AND b>? AND c=?1"),
        "SELECT '?' FROM t WHERE a=$1 AND b>$2 AND c=$1"
    );
}

#[test]
fn an_old_server_is_named() {
    assert!(check_version(150_018).is_ok());
    let m = check_version(100_023).unwrap_err();
    assert!(
        m.contains("PostgreSQL 10.23") && m.contains("11 or later"),
        "{m}"
    );
    assert!(check_version(90_624)
        .unwrap_err()
        .contains("PostgreSQL 9.6;"));
}

#[test]
fn a_place_survives_its_argument_and_refuses_a_foreign_prefix() {
    let place = Place::fresh("postgres://u@h/db").child("03-apply.after");
    assert_eq!(Place::parse(&place.arg()), Ok(place));
    assert!(Place::parse("postgres://u@h/db#public").is_err());
    assert!(Place::parse("postgres://u@h/db#outbox_x; DROP").is_err());
}
