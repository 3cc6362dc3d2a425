//! `--set KEY=VALUE`: a dotted path into the scenario document and a TOML value.

use toml::Value;

use super::ScenarioError;

/// Parse the right-hand side of `--set` as a TOML value (`0.01`, `true`, `"x"`,
/// `[1, 2]`, `{ model = "uniform", rate = 0.1 }`); anything that is not valid TOML is
/// taken as a bare string, so `--set flows.0.cc=vegas` works without quotes.
pub fn parse_value(text: &str) -> Value {
    let doc = format!("v = {text}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| Value::String(text.to_string())),
        Err(_) => Value::String(text.to_string()),
    }
}

/// Set `path` (e.g. `links.1.ab.loss.rate`) in `doc` to `value`. Missing tables on the
/// way are created; array elements are addressed by index, and the index one past the
/// end appends (`--set flows.2={...}` on a two-flow scenario adds a third flow).
pub fn apply_override(doc: &mut Value, path: &str, value: Value) -> Result<(), ScenarioError> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ScenarioError::new(path, "invalid override path; expected dotted keys like `links.0.rate_mbps`"));
    }
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..i].join(".");
        cur = match cur {
            Value::Table(t) => {
                if last {
                    t.insert((*part).to_string(), value);
                    return Ok(());
                }
                t.entry((*part).to_string()).or_insert_with(|| Value::Table(Default::default()))
            }
            Value::Array(a) => {
                let idx: usize = part.parse().map_err(|_| {
                    ScenarioError::new(here.clone(), format!("is an array; `{part}` is not an index (allowed: 0..{})", a.len()))
                })?;
                let len = a.len();
                if idx == len {
                    a.push(if last { value.clone() } else { Value::Table(Default::default()) });
                    if last {
                        return Ok(());
                    }
                }
                let slot = a.get_mut(idx).ok_or_else(|| {
                    ScenarioError::new(here.clone(), format!("has {len} elements; index {idx} is out of range (0..={len}, {len} appends)"))
                })?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            _ => {
                return Err(ScenarioError::new(here, format!("is a value, not a table; cannot set `{part}` inside it")));
            }
        };
    }
    unreachable!("the loop returns on the last path element")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        toml::from_str("[run]\nduration_s = 1.0\n[[links]]\na = \"x\"\n[[links]]\na = \"y\"\n").unwrap()
    }

    #[test]
    fn values_are_parsed_as_toml_or_taken_as_strings() {
        assert_eq!(parse_value("0.01"), Value::Float(0.01));
        assert_eq!(parse_value("3"), Value::Integer(3));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("vegas"), Value::String("vegas".into()));
        assert_eq!(parse_value("\"a b\""), Value::String("a b".into()));
    }

    #[test]
    fn sets_nested_array_elements_and_creates_tables() {
        let mut d = doc();
        apply_override(&mut d, "links.1.ab.loss.rate", Value::Float(0.5)).unwrap();
        assert_eq!(d["links"][1]["ab"]["loss"]["rate"], Value::Float(0.5));
        apply_override(&mut d, "run.duration_s", Value::Float(9.0)).unwrap();
        assert_eq!(d["run"]["duration_s"], Value::Float(9.0));
    }

    #[test]
    fn out_of_range_index_names_the_array() {
        let mut d = doc();
        apply_override(&mut d, "links.2.a", Value::String("z".into())).unwrap();
        assert_eq!(d["links"][2]["a"], Value::String("z".into()));
        let e = apply_override(&mut d, "links.5.a", Value::Integer(1)).unwrap_err();
        assert_eq!(e.path, "links");
        assert!(e.message.contains("3 elements"), "{}", e.message);
    }

    #[test]
    fn cannot_descend_into_a_value() {
        let mut d = doc();
        let e = apply_override(&mut d, "run.duration_s.x", Value::Integer(1)).unwrap_err();
        assert_eq!(e.path, "run.duration_s");
    }
}
