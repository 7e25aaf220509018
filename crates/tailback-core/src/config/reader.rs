//! Reads a parsed TOML tree into typed values, collecting every problem instead of stopping at
//! the first one. Each getter returns the default when the key is missing or invalid, so one pass
//! over a config reports all of its errors.

use std::cell::RefCell;

use super::error::ConfigIssue;

/// A closed set of named values that a string key may take.
pub trait Choice: Sized + Copy + 'static {
    /// Every accepted spelling and its value, in documentation order.
    const CHOICES: &'static [(&'static str, Self)];

    /// The canonical name of this value.
    fn name(self) -> &'static str;
}

/// Defines a `Copy` enum whose variants are chosen by name in a config file.
macro_rules! choice_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$vmeta])* $variant),+ }

        impl $crate::config::Choice for $name {
            const CHOICES: &'static [(&'static str, Self)] = &[$(($text, $name::$variant)),+];
            fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($crate::config::Choice::name(*self))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::config::Choice::name(*self))
            }
        }
    };
}
pub(crate) use choice_enum;

/// The sink that collects problems while a config is read.
#[derive(Default)]
pub(crate) struct Issues(RefCell<Vec<ConfigIssue>>);

impl Issues {
    pub(crate) fn push(&self, path: String, value: Option<&toml::Value>, message: String) {
        self.0.borrow_mut().push(ConfigIssue {
            path,
            value: value.map(render),
            message,
        });
    }

    /// Whether a problem was reported at `key`, inside it (`key.x`, `key[i]`) or at a table
    /// that contains it.
    pub(crate) fn touches(&self, key: &str) -> bool {
        let within = |outer: &str, inner: &str| {
            inner.strip_prefix(outer).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')
            })
        };
        self.0
            .borrow()
            .iter()
            .any(|issue| within(key, &issue.path) || within(&issue.path, key))
    }

    pub(crate) fn into_vec(self) -> Vec<ConfigIssue> {
        self.0.into_inner()
    }
}

/// Renders a value the way a user wrote it (TOML syntax).
pub(crate) fn render(value: &toml::Value) -> String {
    match value {
        toml::Value::Table(_) => "{...}".to_string(),
        other => other.to_string(),
    }
}

fn type_name(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

static EMPTY: std::sync::LazyLock<toml::Table> = std::sync::LazyLock::new(toml::Table::new);

/// A view of one TOML table with its dotted path; tracks which keys were read.
pub(crate) struct Section<'a> {
    table: &'a toml::Table,
    path: String,
    used: RefCell<Vec<&'static str>>,
    issues: &'a Issues,
}

impl<'a> Section<'a> {
    pub(crate) fn root(table: &'a toml::Table, issues: &'a Issues) -> Self {
        Section {
            table,
            path: String::new(),
            used: RefCell::new(Vec::new()),
            issues,
        }
    }

    /// The dotted path of `key` inside this section.
    pub(crate) fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// Records a problem with `key` (whose value is reported if present).
    pub(crate) fn problem(&self, key: &str, message: impl Into<String>) {
        self.issues
            .push(self.path_of(key), self.table.get(key), message.into());
    }

    /// Whether `key` is present (does not mark it as read).
    pub(crate) fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    fn raw(&self, key: &'static str) -> Option<&'a toml::Value> {
        let mut used = self.used.borrow_mut();
        if !used.contains(&key) {
            used.push(key);
        }
        self.table.get(key)
    }

    fn wrong_type(&self, key: &str, value: &toml::Value, wanted: &str) {
        self.problem(
            key,
            format!("expected {wanted}, found {}", type_name(value)),
        );
    }

    /// A sub-table; a missing key gives an empty section.
    pub(crate) fn section(&self, key: &'static str) -> Section<'a> {
        let table = match self.raw(key) {
            Some(toml::Value::Table(t)) => t,
            Some(other) => {
                self.wrong_type(key, other, "a table");
                &EMPTY
            }
            None => &EMPTY,
        };
        Section {
            table,
            path: self.path_of(key),
            used: RefCell::new(Vec::new()),
            issues: self.issues,
        }
    }

    /// A section for `table`, element `index` of the array at `key`, sharing this section's
    /// problems (its paths read `key[index].inner`).
    pub(crate) fn element(&self, key: &str, index: usize, table: &'a toml::Table) -> Section<'a> {
        Section {
            table,
            path: format!("{}[{index}]", self.path_of(key)),
            used: RefCell::new(Vec::new()),
            issues: self.issues,
        }
    }

    /// An integer in `lo..=hi`.
    pub(crate) fn int<T>(&self, key: &'static str, default: T, lo: T, hi: T) -> T
    where
        T: TryFrom<i64> + Into<i128> + Copy + std::fmt::Display,
    {
        self.opt_int(key, lo, hi).unwrap_or(default)
    }

    /// An optional integer in `lo..=hi`.
    pub(crate) fn opt_int<T>(&self, key: &'static str, lo: T, hi: T) -> Option<T>
    where
        T: TryFrom<i64> + Into<i128> + Copy + std::fmt::Display,
    {
        let value = self.raw(key)?;
        let Some(i) = value.as_integer() else {
            self.wrong_type(key, value, &format!("an integer from {lo} to {hi}"));
            return None;
        };
        if (i as i128) < lo.into() || (i as i128) > hi.into() {
            self.problem(key, format!("must be an integer from {lo} to {hi}"));
            return None;
        }
        T::try_from(i).ok()
    }

    /// A number (integers accepted) in the range described by `allowed`.
    pub(crate) fn float(
        &self,
        key: &'static str,
        default: f64,
        valid: impl Fn(f64) -> bool,
        allowed: &str,
    ) -> f64 {
        self.opt_float(key, valid, allowed).unwrap_or(default)
    }

    /// An optional number (integers accepted) in the range described by `allowed`.
    pub(crate) fn opt_float(
        &self,
        key: &'static str,
        valid: impl Fn(f64) -> bool,
        allowed: &str,
    ) -> Option<f64> {
        let value = self.raw(key)?;
        let x = match value {
            toml::Value::Float(f) => *f,
            toml::Value::Integer(i) => *i as f64,
            other => {
                self.wrong_type(key, other, &format!("a number {allowed}"));
                return None;
            }
        };
        if !x.is_finite() || !valid(x) {
            self.problem(key, format!("must be a number {allowed}"));
            return None;
        }
        Some(x)
    }

    /// A boolean.
    pub(crate) fn boolean(&self, key: &'static str, default: bool) -> bool {
        match self.raw(key) {
            None => default,
            Some(toml::Value::Boolean(b)) => *b,
            Some(other) => {
                self.wrong_type(key, other, "true or false");
                default
            }
        }
    }

    /// One of the names of `E`.
    pub(crate) fn choice<E: Choice>(&self, key: &'static str, default: E) -> E {
        self.opt_choice(key).unwrap_or(default)
    }

    /// Optionally one of the names of `E`.
    pub(crate) fn opt_choice<E: Choice>(&self, key: &'static str) -> Option<E> {
        let value = self.raw(key)?;
        let allowed = choices_text::<E>();
        let Some(text) = value.as_str() else {
            self.wrong_type(key, value, &format!("one of {allowed}"));
            return None;
        };
        match E::CHOICES.iter().find(|(name, _)| *name == text) {
            Some((_, v)) => Some(*v),
            None => {
                self.problem(key, format!("unknown value; allowed: {allowed}"));
                None
            }
        }
    }

    /// An optional array of integers, each in `lo..=hi`.
    pub(crate) fn opt_int_list(&self, key: &'static str, lo: i64, hi: i64) -> Option<Vec<i64>> {
        let value = self.raw(key)?;
        let Some(items) = value.as_array() else {
            self.wrong_type(key, value, "an array of integers");
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.as_integer() {
                Some(x) if (lo..=hi).contains(&x) => out.push(x),
                _ => {
                    self.issues.push(
                        format!("{}[{i}]", self.path_of(key)),
                        Some(item),
                        format!("must be an integer from {lo} to {hi}"),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// The raw value of `key`, marked as read (for keys with a custom shape).
    pub(crate) fn value(&self, key: &'static str) -> Option<&'a toml::Value> {
        self.raw(key)
    }

    /// Reports every key of this table that no getter asked for; the keys asked for are the
    /// allowed ones, so sections must ask for all their keys, present or not.
    pub(crate) fn finish(self) {
        let used = self.used.borrow();
        for (key, value) in self.table {
            if !used.iter().any(|u| u == key) {
                let path = self.path_of(key);
                self.issues.push(
                    path,
                    Some(value),
                    format!("unknown key; allowed here: {}", used.join(", ")),
                );
            }
        }
    }
}

/// `"a", "b" or "c"` for the names of `E`.
pub(crate) fn choices_text<E: Choice>() -> String {
    let names: Vec<String> = E::CHOICES.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    match names.len() {
        0 => String::new(),
        1 => names[0].clone(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}
