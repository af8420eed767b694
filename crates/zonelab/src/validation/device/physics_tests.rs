//! Every shipped preset against what its sources say about the shape of its latencies: a QD1
//! read's P99.9 above its mean where the source documents variability (page types, firmware
//! jitter) and equal to it where the source has none (NVMeVirt's profiles, the prototypes whose
//! papers report no distribution); and the channel law: random-read bandwidth never falls as the
//! queue deepens.

use crate::config::ExperimentConfig;
use crate::experiment::{Inputs, run};
use crate::metrics::Percentile;
use crate::report::Summary;

fn summary(text: &str) -> Summary {
    let cfg = ExperimentConfig::parse(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let exp = cfg.validate("t").unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&exp, Inputs::default(), 0, &mut |_| {})
        .unwrap()
        .summary
}

/// 4 KiB random reads at `qd` over `zones` full zones of a ZNS preset, or over the first 16 MiB
/// of a block preset (written sequentially first): (mean us, P99.9 us, MiB/s).
fn randread(preset: &str, zoned: bool, qd: u32, zones: u32) -> (f64, f64, f64) {
    let region = if zoned {
        format!("[prefill]\nsize = \"{zones}z\"\n")
    } else {
        "[precondition]\nfill = 0.0001\nrandom_overwrite = false\n".to_string()
    };
    let size = if zoned {
        format!("{zones}z")
    } else {
        "16MiB".to_string()
    };
    let s = summary(&format!(
        "seed = 1\npreset = \"{preset}\"\n{region}[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\n\
         iodepth = {qd}\nsize = \"{size}\"\nio_size = \"{}MiB\"\n",
        16 * qd.max(4)
    ));
    let r = &s.ops["read"];
    (
        r.latency_ns.mean / 1e3,
        r.latency_ns.get(Percentile::P999) as f64 / 1e3,
        r.mib_per_s,
    )
}

/// (preset, zoned, the source documents latency variability).
const PRESETS: &[(&str, bool, bool)] = &[
    ("zn540", true, true),
    ("smallzone-4t", true, true),
    ("hynix-1t", true, false),
    ("rezns-40g", true, false),
    ("nvmevirt-zn540", true, false),
    ("cosmos-zns", true, false),
    ("zn540-conv-op7", false, true),
    ("proto-conv-1t-op7", false, false),
];

#[test]
fn qd1_tails_follow_each_presets_source() {
    for &(preset, zoned, varies) in PRESETS {
        let (mean, p999, _) = randread(preset, zoned, 1, 1);
        if varies {
            assert!(
                p999 > mean * 1.05,
                "{preset}: QD1 P99.9 {p999:.1} us should be above the mean {mean:.1} us"
            );
        } else {
            assert!(
                (p999 / mean - 1.0).abs() < 0.03,
                "{preset}: its source has no variability, yet P99.9 {p999:.1} us vs mean {mean:.1} us"
            );
        }
    }
}

#[test]
fn random_read_bandwidth_never_falls_with_queue_depth() {
    for &(preset, zoned, _) in PRESETS.iter().filter(|p| p.1) {
        let mut last = 0.0;
        for qd in [1, 2, 4, 8, 16, 32, 64] {
            let (_, _, mib_s) = randread(preset, zoned, qd, 8);
            assert!(
                mib_s >= last * 0.99,
                "{preset}: {mib_s:.0} MiB/s at QD{qd}, below {last:.0} at half the depth"
            );
            last = mib_s;
        }
    }
}
