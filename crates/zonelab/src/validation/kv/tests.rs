use super::*;

/// The committed db_bench reference (experiments/kv/dbbench-reference.json).
fn committed() -> Value {
    serde_json::from_str(include_str!(
        "../../../../../experiments/kv/dbbench-reference.json"
    ))
    .unwrap()
}

/// The committed db_bench reference (no apt needed): fillrandom and overwrite of 1,000,000
/// keys of 16 + 100 B, compression none, each counter within 25%.
#[test]
fn the_model_writes_what_db_bench_wrote() {
    let shape = Shape::base(1_000_000, 100, "none");
    let checks = check_shape(&shape, &reference_cases(&committed())).unwrap();
    let table = table(&checks);
    println!("{table}");
    assert!(checks.iter().filter(|c| c.checked).count() >= 20, "{table}");
    assert!(checks.iter().all(|c| c.ok), "{table}");
}

/// Several runs of db_bench: compared with their mean, the tolerance widened by half their
/// range, and still a check that fails outside it.
#[test]
fn several_runs_widen_the_tolerance_by_half_their_range() {
    let run = |bytes: u64| {
        serde_json::json!({"case": "overwrite", "num": 1, "value_size": 100,
                           "compaction_write_bytes": bytes})
    };
    let check = |model_bytes: u64, refs: &[Value]| {
        let stats = KvStats {
            compaction_write_bytes: model_bytes,
            ..KvStats::default()
        };
        let model = [ModelCase {
            case: "overwrite".into(),
            stats,
        }];
        compare("base", &model, refs)
            .into_iter()
            .find(|c| c.counter == "compaction_write_bytes")
            .unwrap()
    };
    let one = check(130, &[run(100)]);
    assert_eq!(one.tolerance, 25.0);
    assert!(!one.ok);
    let three = check(130, &[run(80), run(100), run(120)]);
    assert_eq!((three.reference, three.tolerance), (100.0, 45.0));
    assert_eq!((three.runs_min, three.runs_max), (80.0, 120.0));
    assert!(three.ok);
    assert!(table(&[three]).contains("| 80.0-120.0 |"));
    assert!(!check(146, &[run(80), run(100), run(120)]).ok);
    assert!(!check(54, &[run(80), run(100), run(120)]).ok);
}

/// db_bench's secondary reference cases: snappy-compressed values, and 1000-byte values
/// (where db_bench's own runs stalled now and then and moved by up to 17%).
#[test]
fn the_model_writes_what_db_bench_wrote_with_snappy_and_large_values() {
    let cases = reference_cases(&committed());
    for (comp, num, vs) in [("snappy", 1_000_000u64, 100u32), ("none", 150_000, 1000)] {
        let checks = check_shape(&Shape::base(num, vs, comp), &cases).unwrap();
        let table = table(&checks);
        assert!(checks.iter().filter(|c| c.checked).count() >= 20, "{table}");
        assert!(checks.iter().all(|c| c.ok), "{comp} {num} {vs}\n{table}");
    }
}

/// The LSM shapes (scripts/rocksdb_reference.py's `SHAPES`: 4x the keys, 1 MiB memtables and
/// files, 32 and 400 B values, fan-out 4 with an L0 trigger of 8), each counter within 25% of
/// db_bench's or a listed known disagreement; with the two above, at least six shapes.
#[test]
fn the_model_writes_what_db_bench_wrote_at_every_lsm_shape() {
    let doc = committed();
    let cases = reference_cases(&doc);
    let shapes = shapes(&cases).unwrap();
    assert!(shapes.len() >= 6, "{shapes:?}");
    let lsm: Vec<&Shape> = shapes.iter().filter(|s| s.name != "base").collect();
    assert!(lsm.len() >= 5, "{lsm:?}");
    let checks: Vec<Vec<Check>> = std::thread::scope(|scope| {
        let runs: Vec<_> = lsm
            .iter()
            .map(|&shape| {
                let cases = &cases;
                scope.spawn(move || check_shape(shape, cases).unwrap())
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for (shape, checks) in lsm.iter().zip(&checks) {
        let table = table(checks);
        assert!(checks.iter().filter(|c| c.checked).count() >= 16, "{table}");
        assert!(
            checks.iter().all(Check::as_expected),
            "{}\n{table}",
            shape.describe()
        );
    }
    // Every known disagreement names a counter that is compared.
    for k in KNOWN {
        assert!(
            lsm.iter().zip(&checks).any(
                |(s, cs)| s.name == k.0 && cs.iter().any(|c| c.case == k.1 && c.counter == k.2)
            ),
            "{k:?} names no compared counter"
        );
    }
}
