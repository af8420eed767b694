use std::collections::BTreeSet;

use super::*;
use crate::config::presets;

#[test]
fn the_committed_table_is_well_formed() {
    let t = Table::committed();
    let mut ids = BTreeSet::new();
    for r in &t.row {
        assert!(ids.insert(r.id.clone()), "row {} appears twice", r.id);
        assert!(
            presets::text(&r.device).is_ok(),
            "row {}: no preset {}",
            r.id,
            r.device
        );
        assert!(!r.source.trim().is_empty(), "row {}: no source", r.id);
        assert!(
            r.tolerance > 0.0 && r.tolerance <= 1.0,
            "row {}: tolerance {}",
            r.id,
            r.tolerance
        );
        // Every placeholder is filled.
        t.render(r, &r.set).unwrap();
    }
    let devices: BTreeSet<&str> = t.row.iter().map(|r| r.device.as_str()).collect();
    assert!(t.row.len() >= 40, "{} rows", t.row.len());
    assert!(devices.len() >= 4, "{devices:?}");
}

#[test]
fn a_missing_placeholder_and_an_unknown_metric_are_errors() {
    let mut t = Table::committed();
    let mut row = t.row[0].clone();
    row.set.clear();
    assert!(
        t.render(&row, &row.set)
            .unwrap_err()
            .contains("no value for")
    );
    row = t.row[0].clone();
    row.metric = "read.median".into();
    t.row = vec![row.clone()];
    let out = check(&t, &mut Runner::default(), &[&row]);
    assert!(
        out[0]
            .model
            .as_ref()
            .unwrap_err()
            .contains("unknown metric")
    );
    assert!(!out[0].ok);
}

#[test]
fn metrics_read_the_summary() {
    let t = Table::committed();
    let row = t
        .row
        .iter()
        .find(|r| r.id == "zn540.randread.4k.qd1.mean")
        .unwrap();
    let text = t.render(row, &row.set).unwrap();
    let mut runner = Runner::default();
    let s = runner.summary(&text, None).unwrap().clone();
    let read = &s.ops["read"];
    assert_eq!(
        metric(&s, "read.mean_us").unwrap(),
        read.latency_ns.mean / 1e3
    );
    assert_eq!(
        metric(&s, "read.mean_ms").unwrap(),
        read.latency_ns.mean / 1e6
    );
    assert_eq!(metric(&s, "read.kiops").unwrap(), read.iops / 1e3);
    assert_eq!(
        metric(&s, "tenant/reader/read.iops").unwrap(),
        metric(&s, "read.iops").unwrap()
    );
    assert!(metric(&s, "write.iops").is_err(), "no writes were issued");
    assert!(metric(&s, "time.s").unwrap() > 0.29);
}

/// `zonelab validate-device` in the test command: every row within its tolerance.
#[test]
fn every_row_is_within_its_tolerance() {
    let t = Table::committed();
    let rows: Vec<&Row> = t.row.iter().collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = check(&t, &mut Runner::with_threads(threads), &rows);
    let off: Vec<String> = out
        .iter()
        .filter(|o| !o.as_expected())
        .map(|o| {
            format!(
                "{}: published {} {}, ZoneLab {:?}",
                o.row.id, o.row.published, o.row.unit, o.model
            )
        })
        .collect();
    assert!(
        off.is_empty(),
        "{} rows not as the table says (outside their tolerance, or a known disagreement that now agrees):\n{}",
        off.len(),
        off.join("\n")
    );
    // docs/validation.md is this run's table.
    let committed = include_str!("../../../../../docs/validation.md");
    assert!(
        document(&out) == committed,
        "docs/validation.md is not current: run `zonelab validate-device --markdown docs/validation.md`"
    );
    let passing: Vec<&Outcome> = out.iter().filter(|o| o.ok).collect();
    let devices: BTreeSet<&str> = passing.iter().map(|o| o.row.device.as_str()).collect();
    assert!(
        passing.len() >= 40 && devices.len() >= 4,
        "{} rows within tolerance over {} devices",
        passing.len(),
        devices.len()
    );
}
