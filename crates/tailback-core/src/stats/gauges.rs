//! A mechanism's named values in a time-series row.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The values a congestion mechanism reported for a time-series window, by name, in the order
/// the mechanism declares them ([`CongestionControl::GAUGES`]). Written as ordinary fields of
/// the row (`null` where a value is undefined).
///
/// [`CongestionControl::GAUGES`]: crate::hooks::CongestionControl::GAUGES
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gauges(Vec<(String, Option<f64>)>);

impl Gauges {
    /// Pairs each of `names` with its value.
    pub fn new(names: &[&str], values: &[Option<f64>]) -> Gauges {
        Gauges(
            names
                .iter()
                .zip(values)
                .map(|(name, &value)| (name.to_string(), value))
                .collect(),
        )
    }

    /// The value named `name`: `None` if the mechanism has no such gauge or it was undefined.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find(|(n, _)| n == name).and_then(|&(_, v)| v)
    }

    /// Every name and value, in the mechanism's order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<f64>)> {
        self.0.iter().map(|(name, value)| (name.as_str(), *value))
    }

    /// Whether the mechanism reports nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Gauges {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Gauges {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Gauges, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Gauges;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("named gauge values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Gauges, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Option<f64>>()? {
                    entries.push(entry);
                }
                Ok(Gauges(entries))
            }
        }
        d.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_nulls_through_json() {
        let gauges = Gauges::new(&["threshold", "estimate"], &[Some(0.5), None]);
        let text = serde_json::to_string(&gauges).unwrap();
        assert_eq!(text, r#"{"threshold":0.5,"estimate":null}"#);
        let back: Gauges = serde_json::from_str(&text).unwrap();
        assert_eq!(back, gauges);
        assert_eq!(back.get("threshold"), Some(0.5));
        assert_eq!(back.get("estimate"), None);
        assert_eq!(back.get("absent"), None);
    }
}
