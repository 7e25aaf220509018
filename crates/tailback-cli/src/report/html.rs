//! HTML pieces of the report: escaping, the page frame with its inline style and sorting
//! script, tables, and the formatting of numbers, durations and command lines.

use std::collections::BTreeSet;
use std::fmt::Write;

/// The `generator` meta tag's content begins with this, which marks a folder as a report.
pub const GENERATOR: &str = "tailback report";

/// `text` with the characters that mean something in HTML replaced by entities, safe in element
/// content and in quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page: `title` in the tab and `body` (HTML) under a link to the index at `home`
/// (none on the index itself).
pub fn page(title: &str, home: Option<&str>, body: &str) -> String {
    let nav = home.map_or(String::new(), |href| {
        format!(
            "<nav><a href=\"{}\">&larr; all results</a></nav>\n",
            escape(href)
        )
    });
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{GENERATOR} {version}\">\n\
         <title>{title}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>\n{STYLE}</style>\n\
         </head>\n<body>\n{nav}<main>\n{body}</main>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = escape(title),
    )
}

/// The style of every page: system fonts only, nothing fetched.
const STYLE: &str = r#"body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1d232b; background: #fafbfc; }
main { max-width: 1180px; margin: 0 auto; padding: 8px 24px 40px; }
nav { max-width: 1180px; margin: 0 auto; padding: 12px 24px 0; }
a { color: #0b5cad; }
h1 { font-size: 1.6em; margin: 0.6em 0 0.2em; }
h2 { font-size: 1.2em; margin: 1.6em 0 0.5em; border-bottom: 1px solid #dde2e8; padding-bottom: 0.2em; }
.lead { margin: 0 0 0.8em; color: #3a4552; }
.muted { color: #5b6673; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.92em; }
pre { background: #f0f3f6; border: 1px solid #dde2e8; border-radius: 4px; padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.4em 0 1em; background: #fff; font-size: 0.93em; }
th, td { border: 1px solid #dde2e8; padding: 4px 9px; text-align: left; vertical-align: top; }
th { background: #eef2f6; white-space: nowrap; }
#entries td:first-child { white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
th button::after { content: " \2195"; color: #8a96a3; font-weight: normal; }
th[aria-sort="ascending"] button::after { content: " \2191"; color: #1d232b; }
th[aria-sort="descending"] button::after { content: " \2193"; color: #1d232b; }
.verdict { white-space: nowrap; font-weight: 600; border-radius: 3px; }
.agrees { background: #e2f3e5; color: #0f5a22; }
.differs { background: #fbe3e3; color: #8c1515; }
.not-judged { background: #f0f1f3; color: #4e5863; }
.badge { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 0.85em; font-weight: 600; }
.badge.quick { background: #fff2cc; color: #6b4e00; }
.badge.full { background: #dfeafb; color: #183f78; }
figure { margin: 0 0 1.4em; background: #fff; border: 1px solid #dde2e8; border-radius: 4px; padding: 10px; display: inline-block; max-width: calc(100% - 22px); }
figure img { max-width: 100%; height: auto; display: block; }
figcaption { margin-top: 6px; color: #3a4552; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; }
dl.facts dt { color: #5b6673; }
dl.facts dd { margin: 0; }
details { margin: 0.6em 0; }
summary { cursor: pointer; }
ul.saturation { padding-left: 1.3em; }
"#;

/// Sorts a table of class `sortable` by the column whose heading is clicked (again: the other
/// way): by number when both cells are numbers (a cell's `data-sort`, else its text).
const SCRIPT: &str = r#"(function () {
  function key(row, column) {
    var cell = row.cells[column];
    if (!cell) return '';
    var sort = cell.getAttribute('data-sort');
    return sort !== null ? sort : cell.textContent.trim();
  }
  function compare(x, y) {
    var a = Number(x), b = Number(y);
    if (x !== '' && y !== '' && isFinite(a) && isFinite(b)) return a - b;
    if (x === '' && y !== '') return 1;
    if (y === '' && x !== '') return -1;
    return x.localeCompare(y);
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headings = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headings, function (th, column) {
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = th.textContent;
      button.title = 'Sort by ' + th.textContent;
      th.textContent = '';
      th.appendChild(button);
      button.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(headings, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r, s) {
          var c = compare(key(r, column), key(s, column));
          return ascending ? c : -c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
"#;

/// A table cell: its HTML, and optionally its sort key, class and tooltip.
#[derive(Debug, Default, Clone)]
pub struct Cell {
    pub html: String,
    pub sort: Option<String>,
    pub class: Option<&'static str>,
    pub title: Option<String>,
}

impl Cell {
    /// A cell showing `text`.
    pub fn text(text: &str) -> Cell {
        Cell {
            html: escape(text),
            ..Cell::default()
        }
    }

    /// A cell of HTML.
    pub fn html(html: String) -> Cell {
        Cell {
            html,
            ..Cell::default()
        }
    }

    /// A cell for a value read from a file: a number is shown short, right-aligned, sorted and
    /// titled by its full value; anything else as text.
    pub fn value(text: &str) -> Cell {
        match text.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => {
                let short = short_number(x);
                let full = text.trim();
                Cell {
                    html: escape(&short),
                    sort: Some(full.to_string()),
                    class: Some("num"),
                    title: (short != full).then(|| full.to_string()),
                }
            }
            _ => Cell::text(text),
        }
    }

    /// A count, right-aligned.
    pub fn count(n: usize) -> Cell {
        Cell {
            html: n.to_string(),
            class: Some("num"),
            ..Cell::default()
        }
    }
}

/// A sortable table with the id `id` (none when empty).
pub fn table(id: &str, headings: &[&str], rows: &[Vec<Cell>]) -> String {
    let mut html = String::new();
    let id_attribute = if id.is_empty() {
        String::new()
    } else {
        format!(" id=\"{}\"", escape(id))
    };
    let _ = writeln!(
        html,
        "<div class=\"wide\"><table class=\"sortable\"{id_attribute}>"
    );
    html.push_str("<thead><tr>");
    for heading in headings {
        let _ = write!(html, "<th scope=\"col\">{}</th>", escape(heading));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        html.push_str("<tr>");
        for cell in row {
            html.push_str("<td");
            if let Some(class) = cell.class {
                let _ = write!(html, " class=\"{class}\"");
            }
            if let Some(sort) = &cell.sort {
                let _ = write!(html, " data-sort=\"{}\"", escape(sort));
            }
            if let Some(title) = &cell.title {
                let _ = write!(html, " title=\"{}\"", escape(title));
            }
            let _ = write!(html, ">{}</td>", cell.html);
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table></div>\n");
    html
}

/// `x` to four significant digits, without trailing zeros (integers as they are).
pub fn short_number(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !(-4..=9).contains(&magnitude) {
        return format!("{x:.3e}");
    }
    let decimals = (3 - magnitude).clamp(0, 8) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A duration in seconds, in words: `12.3 s`, `4 min 5 s`, `2 h 7 min`.
pub fn duration(seconds: f64) -> String {
    if seconds < 10.0 {
        return format!("{seconds:.2} s");
    }
    if seconds < 60.0 {
        return format!("{seconds:.1} s");
    }
    let whole = seconds.round() as u64;
    if whole < 3600 {
        format!("{} min {} s", whole / 60, whole % 60)
    } else {
        format!("{} h {} min", whole / 3600, whole % 3600 / 60)
    }
}

/// Seeds listed with runs of consecutive ones joined: `1–3, 7`.
pub fn seeds(seeds: &BTreeSet<u64>) -> String {
    let mut parts = Vec::new();
    let mut iter = seeds.iter().copied().peekable();
    while let Some(first) = iter.next() {
        let mut last = first;
        while iter.peek() == Some(&(last + 1)) {
            last += 1;
            iter.next();
        }
        parts.push(match last - first {
            0 => first.to_string(),
            1 => format!("{first}, {last}"),
            _ => format!("{first}\u{2013}{last}"),
        });
    }
    parts.join(", ")
}

/// `word` quoted for a POSIX shell when it needs to be.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_data_is_escaped() {
        assert_eq!(
            escape(r#"<img src="x" onerror='y'> & z"#),
            "&lt;img src=&quot;x&quot; onerror=&#39;y&#39;&gt; &amp; z"
        );
    }

    #[test]
    fn numbers_are_shortened_to_four_significant_digits() {
        assert_eq!(short_number(0.10183333333333333), "0.1018");
        assert_eq!(short_number(24.91289105216888), "24.91");
        assert_eq!(short_number(40.0), "40");
        assert_eq!(short_number(0.5), "0.5");
        assert_eq!(short_number(1234.5678), "1235");
        assert_eq!(short_number(-0.031765), "-0.03177");
        assert_eq!(short_number(1.5e-7), "1.500e-7");
    }

    #[test]
    fn seeds_runs_and_durations_read_short() {
        let set: BTreeSet<u64> = [1, 2, 3, 5, 7, 8].into_iter().collect();
        assert_eq!(seeds(&set), "1\u{2013}3, 5, 7, 8");
        assert_eq!(duration(0.0412), "0.04 s");
        assert_eq!(duration(12.34), "12.3 s");
        assert_eq!(duration(245.0), "4 min 5 s");
        assert_eq!(duration(7620.0), "2 h 7 min");
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(
            shell_quote("traffic.rate=0.1:0.5:0.1"),
            "traffic.rate=0.1:0.5:0.1"
        );
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
