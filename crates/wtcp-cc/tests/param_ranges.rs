//! Every parameter's documented range: defaults inside it, values outside it refused with
//! the parameter's name, every numeric parameter ranged, every field documented.

use serde_json::{json, Map, Value};
use wtcp_cc::{catalog, check_params, CcConfig, ParamInfo, ParamTable, ParamValue, Range};

struct Json<'a>(&'a Map<String, Value>);

impl ParamTable for Json<'_> {
    fn get(&self, key: &str) -> Option<ParamValue<'_>> {
        Some(match self.0.get(key)? {
            Value::Number(n) => ParamValue::Number(n.as_f64().unwrap()),
            Value::Object(o) => ParamValue::Table(Box::new(Json(o))),
            _ => ParamValue::Other,
        })
    }
}

/// Every (dotted name, info) of a parameter list, nested tables included.
fn flatten(params: &'static [ParamInfo], prefix: &str, out: &mut Vec<(String, &'static ParamInfo)>) {
    for p in params {
        let name = format!("{prefix}{}", p.name);
        if let Range::Table(nested) = p.range {
            flatten(nested, &format!("{name}."), out);
        }
        out.push((name, p));
    }
}

/// A table with `value` at the dotted `name`.
fn table_with(name: &str, value: Value) -> Map<String, Value> {
    let mut parts: Vec<&str> = name.split('.').collect();
    let last = parts.pop().unwrap();
    let mut v = Map::new();
    v.insert(last.to_string(), value);
    for part in parts.into_iter().rev() {
        let mut outer = Map::new();
        outer.insert(part.to_string(), Value::Object(v));
        v = outer;
    }
    v
}

fn check(alg: &str, table: &Map<String, Value>) -> Result<(), wtcp_cc::ParamError> {
    let info = catalog().iter().find(|a| a.name == alg).unwrap();
    check_params(info, &Json(table))
}

#[test]
fn every_numeric_default_lies_in_its_range_and_every_number_has_a_range() {
    for info in catalog() {
        let mut all = Vec::new();
        flatten(info.params, "", &mut all);
        for (name, p) in all {
            let Ok(v) = p.default.parse::<f64>() else { continue };
            assert!(matches!(p.range, Range::Num { .. }), "{}.{name}: a numeric default without a numeric range", info.name);
            assert_eq!(p.range.refuse(v), None, "{}.{name}: default {v} outside its range", info.name);
        }
    }
}

#[test]
fn out_of_range_values_are_refused_with_the_parameter_name() {
    let mut checked = 0;
    for info in catalog() {
        let mut all = Vec::new();
        flatten(info.params, "", &mut all);
        for (name, p) in all {
            let Range::Num { min, min_open, max, max_open } = p.range else { continue };
            let mut bad = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, min - 1.0];
            if min_open {
                bad.push(min);
            }
            if max.is_finite() {
                bad.push(max * 2.0 + 1.0);
                if max_open {
                    bad.push(max);
                }
            }
            for v in bad {
                let value = if v.is_finite() { json!(v) } else { Value::String("nonfinite".into()) };
                if !v.is_finite() {
                    // JSON has no NaN: check the range directly.
                    assert!(p.range.refuse(v).is_some(), "{}.{name} accepts {v}", info.name);
                    continue;
                }
                let err = check(info.name, &table_with(&name, value)).expect_err(&format!("{}.{name} = {v} accepted", info.name));
                assert_eq!(err.path, name, "{}", err.message);
                assert!(err.message.contains("allowed:"), "{}", err.message);
                checked += 1;
            }
            // Both ends themselves, when closed, are accepted.
            for v in [(!min_open).then_some(min), (!max_open && max.is_finite()).then_some(max)].into_iter().flatten() {
                let result = check(info.name, &table_with(&name, json!(v)));
                // A cross-parameter constraint may still object, but never to this range.
                if let Err(e) = result {
                    assert!(e.message.contains(" <= ") && e.message.contains(", but "), "{}.{name} = {v}: {}", info.name, e.message);
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} refusals checked");
}

#[test]
fn vegas_alpha_must_not_exceed_beta_given_or_defaulted() {
    // Brakmo & Peterson: grow while Diff < alpha, shrink while Diff > beta.
    let e = check("vegas", &table_with("alpha", json!(5))).unwrap_err();
    assert_eq!(e.path, "alpha");
    assert!(e.message.contains("alpha <= beta"), "{}", e.message);
    let e = check("vegas", json!({"alpha": 2, "beta": 1}).as_object().unwrap()).unwrap_err();
    assert_eq!(e.path, "beta");
    assert!(check("vegas", json!({"alpha": 4, "beta": 4}).as_object().unwrap()).is_ok());
    assert!(check("vegas", json!({"alpha": 0, "beta": 0}).as_object().unwrap()).is_ok());
}

#[test]
fn ewr_and_dynamic_thresholds_are_ordered() {
    assert_eq!(check("ewr", &table_with("alpha", json!(10))).unwrap_err().path, "alpha");
    assert_eq!(check("dynamic", &table_with("beta_bytes", json!(30000))).unwrap_err().path, "beta_bytes");
    assert_eq!(check("dynamic", &table_with("cwnd_max_bytes", json!(5000))).unwrap_err().path, "cwnd_max_bytes");
}

#[test]
fn nested_tables_are_checked_with_their_dotted_path() {
    let e = check("prairie", &table_with("abw.filter_gain", json!(1.5))).unwrap_err();
    assert_eq!(e.path, "abw.filter_gain");
    let e = check("njplus", &table_with("new_jersey.window_rtts", json!(0))).unwrap_err();
    assert_eq!(e.path, "new_jersey.window_rtts");
}

#[test]
fn jtcp_history_is_bounded_and_its_memory_known() {
    let e = check("jtcp", &table_with("history", json!(1_099_511_627_776u64))).unwrap_err();
    assert_eq!(e.path, "history");
    let cfg = CcConfig::from_name("jtcp", json!({"history": 1 << 20})).unwrap();
    assert_eq!(cfg.extra_state_bytes(), (1u64 << 20) * 24);
}

#[test]
fn every_field_of_every_parameter_struct_is_documented() {
    // serde lists the accepted fields when it meets an unknown one.
    for info in catalog() {
        let err = CcConfig::from_name(info.name, json!({"no_such_parameter": 1})).unwrap_err().to_string();
        let Some(list) = err.split("expected one of ").nth(1) else {
            assert!(info.params.is_empty() || err.contains("expected"), "{}: {err}", info.name);
            continue;
        };
        let fields: Vec<&str> = list.split(", ").map(|f| f.trim().trim_matches('`')).collect();
        let documented: Vec<&str> = info.params.iter().map(|p| p.name).collect();
        let mut a = fields.clone();
        let mut b = documented.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{}: fields vs ParamInfo", info.name);
    }
}

#[test]
fn an_unknown_algorithm_name_suggests_the_close_ones() {
    let e = wtcp_cc::CcConfig::default_for("newrno").unwrap_err().to_string();
    assert!(e.contains("unknown algorithm `newrno` (did you mean newreno?)"), "{e}");
    let e = wtcp_cc::CcConfig::default_for("Westwod").unwrap_err().to_string();
    assert!(e.contains("did you mean westwood"), "{e}");
    let e = wtcp_cc::CcConfig::default_for("hybla").unwrap_err().to_string();
    assert!(!e.contains("did you mean") && e.contains("allowed: reno, newreno"), "{e}");
}

/// A documented default as the JSON value a scenario would give: an integer, a number, a
/// boolean or a string (None for a nested table or no literal default).
fn default_value(p: &ParamInfo) -> Option<Value> {
    if matches!(p.range, Range::Table(_)) || p.default.is_empty() {
        return None;
    }
    Some(if let Ok(i) = p.default.parse::<i64>() {
        json!(i)
    } else if let Ok(f) = p.default.parse::<f64>() {
        json!(f)
    } else if let Ok(b) = p.default.parse::<bool>() {
        json!(b)
    } else {
        json!(p.default)
    })
}

#[test]
fn the_documented_defaults_are_the_ones_the_algorithm_runs_with() {
    // Each parameter's documented default, given explicitly, builds the same configuration
    // as leaving it out: the doc row and the struct's `Default` agree.
    for info in catalog() {
        let mut table = Map::new();
        for p in info.params {
            if let Some(v) = default_value(p) {
                table.insert(p.name.to_string(), v);
            }
        }
        let given = CcConfig::from_name(info.name, Value::Object(table.clone()))
            .unwrap_or_else(|e| panic!("{}: the documented defaults {table:?} do not parse: {e}", info.name));
        assert_eq!(given, CcConfig::default_for(info.name).unwrap(), "{}: documented defaults {table:?} differ from the struct's", info.name);
    }
}
