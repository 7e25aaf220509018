//! `key=value` overrides applied to a config tree before it is read (`--set`, sweep `--vary`).

use super::error::{ConfigError, ConfigIssue, abbreviated};

/// Splits `router.vcs=8` into the dotted path and a TOML value. The value is read as a TOML
/// literal (`8`, `0.3`, `true`, `[0, 8]`, `"x"`); anything that is not one is taken as a string,
/// so `traffic.pattern=transpose` works without quotes.
pub fn parse_assignment(text: &str) -> Result<(String, toml::Value), String> {
    let (path, raw) = text
        .split_once('=')
        .ok_or_else(|| format!("`{}` is not of the form key=value", abbreviated(text)))?;
    let path = path.trim();
    if path.is_empty() || path.split('.').any(|part| part.trim().is_empty()) {
        return Err(format!(
            "`{}`: the key must be a dotted path such as router.vcs",
            abbreviated(text)
        ));
    }
    Ok((path.to_string(), parse_literal(raw.trim())))
}

/// Reads a TOML literal, falling back to a bare string.
pub(crate) fn parse_literal(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

/// Removes `path` (dotted) from `table`, so that the key takes its default (`--unset`); a key
/// the tree does not hold is an error naming it.
pub fn unset_path(table: &mut toml::Table, path: &str) -> Result<(), ConfigError> {
    let parts: Vec<&str> = path.split('.').map(str::trim).collect();
    let (last, sections) = parts.split_last().expect("split gives at least one part");
    let mut current = Some(table);
    for part in sections {
        current = match current.and_then(|t| t.get_mut(*part)) {
            Some(toml::Value::Table(t)) => Some(t),
            _ => None,
        };
    }
    match current.and_then(|t| t.remove(*last)) {
        Some(_) => Ok(()),
        None => Err(ConfigError::Invalid(vec![ConfigIssue {
            path: path.to_string(),
            value: None,
            message: "is not set in the configuration, so it cannot be unset".to_string(),
        }])),
    }
}

/// Sets `path` (dotted) in `table` to `value`, creating intermediate tables.
pub fn set_path(
    table: &mut toml::Table,
    path: &str,
    value: toml::Value,
) -> Result<(), ConfigError> {
    let mut parts = path.split('.').map(str::trim).peekable();
    let mut current = table;
    let mut walked = String::new();
    while let Some(part) = parts.next() {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
        if parts.peek().is_none() {
            current.insert(part.to_string(), value);
            return Ok(());
        }
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = match entry {
            toml::Value::Table(t) => t,
            other => {
                return Err(ConfigError::Invalid(vec![ConfigIssue {
                    path: walked,
                    value: Some(super::reader::render(other)),
                    message: format!("is not a table, so `{path}` cannot be set"),
                }]));
            }
        };
    }
    Ok(())
}

/// Overlays `over` on `table`: a key whose value is a table in both is merged recursively; any
/// other key of `over` replaces (or adds) the value in `table`. Used to apply one config file
/// on top of another.
pub fn merge_tables(table: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (table.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(more)) => {
                merge_tables(inner, more)
            }
            (_, value) => {
                table.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_tables_keep_what_the_overlay_does_not_set() {
        let mut table: toml::Table = "seed = 1\n[router]\nvcs = 3\nvc_buffer_flits = 8\n"
            .parse()
            .unwrap();
        let over: toml::Table = "seed = 2\n[router]\nvcs = 4\n[nic]\nejection_rate = 0.5\n"
            .parse()
            .unwrap();
        merge_tables(&mut table, over);
        let expected: toml::Table = "seed = 2\n[router]\nvcs = 4\nvc_buffer_flits = 8\n\
                                     [nic]\nejection_rate = 0.5\n"
            .parse()
            .unwrap();
        assert_eq!(table, expected);
    }

    #[test]
    fn literals_and_bare_strings() {
        assert_eq!(parse_literal("8"), toml::Value::Integer(8));
        assert_eq!(parse_literal("0.25"), toml::Value::Float(0.25));
        assert_eq!(
            parse_literal("transpose"),
            toml::Value::String("transpose".into())
        );
        assert!(parse_literal("[0, 8]").is_array());
    }

    #[test]
    fn set_creates_tables_and_refuses_scalars() {
        let mut t = toml::Table::new();
        set_path(&mut t, "router.vcs", toml::Value::Integer(2)).unwrap();
        assert_eq!(t["router"]["vcs"].as_integer(), Some(2));
        let err = set_path(&mut t, "router.vcs.x", toml::Value::Integer(1)).unwrap_err();
        assert_eq!(err.issues()[0].path, "router.vcs");
    }

    #[test]
    fn assignment_needs_equals_and_key() {
        assert!(parse_assignment("router.vcs").is_err());
        assert!(parse_assignment("=3").is_err());
        assert!(parse_assignment("a..b=3").is_err());
        let (p, v) = parse_assignment(" traffic.rate = 0.3 ").unwrap();
        assert_eq!((p.as_str(), v), ("traffic.rate", toml::Value::Float(0.3)));
    }
}
