//! Swept keys: `key=start:stop:step` ranges and `key=v1,v2,...` lists.

use tailback_core::config::{abbreviated, parse_assignment};

/// Most values one axis may take.
const MAX_VALUES: usize = 100_000;

/// One swept configuration key and its values, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<toml::Value>,
}

/// Parses one `--vary` argument.
pub fn parse_axis(text: &str) -> Result<Axis, String> {
    let (key, _) = parse_assignment(text)?;
    let raw = text.split_once('=').map_or("", |(_, v)| v.trim());
    let values = if raw.contains(':') && !raw.starts_with('"') {
        range(raw).map_err(|e| format!("--vary {}: {e}", abbreviated(text)))?
    } else {
        split_list(raw)
            .into_iter()
            .map(|item| parse_assignment(&format!("v={item}")).map(|(_, v)| v))
            .collect::<Result<_, _>>()?
    };
    if values.is_empty() {
        return Err(format!("--vary {}: no values", abbreviated(text)));
    }
    Ok(Axis { key, values })
}

/// Splits `a,b,[c,d]` at top-level commas.
fn split_list(raw: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, ch) in raw.char_indices() {
        match ch {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(raw[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(raw[start..].trim());
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// `start:stop:step`, inclusive of `stop` (up to rounding); integers stay integers.
fn range(raw: &str) -> Result<Vec<toml::Value>, String> {
    let parts: Vec<&str> = raw.split(':').map(str::trim).collect();
    let [start, stop, step] = parts[..] else {
        return Err("a range is start:stop:step".into());
    };
    if let (Ok(a), Ok(b), Ok(s)) = (
        start.parse::<i64>(),
        stop.parse::<i64>(),
        step.parse::<i64>(),
    ) {
        if s <= 0 || b < a {
            return Err("a range needs start <= stop and a positive step".into());
        }
        let count = ((b - a) / s + 1) as usize;
        if count > MAX_VALUES {
            return Err(format!("{count} values; at most {MAX_VALUES} are allowed"));
        }
        return Ok((0..count as i64)
            .map(|i| toml::Value::Integer(a + i * s))
            .collect());
    }
    let number = |x: &str| {
        x.parse::<f64>()
            .map_err(|_| format!("`{x}` is not a number"))
    };
    let (a, b, s) = (number(start)?, number(stop)?, number(step)?);
    if !s.is_finite() || s <= 0.0 || b < a || !a.is_finite() || !b.is_finite() {
        return Err("a range needs start <= stop and a positive step".into());
    }
    // Tolerate rounding so that 0.05:0.60:0.05 includes 0.60.
    let count = ((b - a) / s + 1e-9).floor() as usize + 1;
    if count > MAX_VALUES {
        return Err(format!("{count} values; at most {MAX_VALUES} are allowed"));
    }
    Ok((0..count)
        .map(|i| toml::Value::Float(round(a + i as f64 * s)))
        .collect())
}

/// Rounds away binary noise (0.15000000000000002 -> 0.15).
fn round(x: f64) -> f64 {
    let scaled = (x * 1e10).round() / 1e10;
    if scaled == 0.0 { 0.0 } else { scaled }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_range_is_inclusive_and_clean() {
        let axis = parse_axis("traffic.rate=0.05:0.60:0.05").unwrap();
        assert_eq!(axis.key, "traffic.rate");
        assert_eq!(axis.values.len(), 12);
        assert_eq!(axis.values[2], toml::Value::Float(0.15));
        assert_eq!(axis.values[11], toml::Value::Float(0.6));
    }

    #[test]
    fn integer_range_and_lists() {
        let vcs = parse_axis("router.vcs=2:8:2").unwrap();
        assert_eq!(vcs.values, [2, 4, 6, 8].map(toml::Value::Integer).to_vec());
        let patterns = parse_axis("traffic.pattern=uniform,transpose").unwrap();
        assert_eq!(patterns.values[1], toml::Value::String("transpose".into()));
        let lines = parse_axis("routing.datelines=[0,4],[0,2]").unwrap();
        assert_eq!(lines.values.len(), 2);
    }

    #[test]
    fn bad_ranges_are_refused() {
        assert!(parse_axis("traffic.rate=0.5:0.1:0.1").is_err());
        assert!(parse_axis("traffic.rate=0.1:0.5:0").is_err());
        assert!(parse_axis("traffic.rate=0.1:x:0.1").is_err());
        assert!(parse_axis("traffic.rate=").is_err());
        assert!(parse_axis("traffic.rate").is_err());
    }
}
