//! A table written as an array: serde reads a struct from an array of its fields in order, so
//! `prefill = []` passed as a `[prefill]` of defaults (the whole device filled) and the run then
//! failed far from the cause (the config fuzz test's mutant). Refused naming the field.

use super::{ConfigError, ExperimentConfig};

const BASE: &str = "seed = 1\npreset = \"rezns-40g\"\n[[job]]\nname = \"w\"\nrw = \"write\"\nbs = \"4KiB\"\nio_size = \"1MiB\"\n";

fn refused_at(text: &str) -> String {
    match ExperimentConfig::parse(text, &[]) {
        Err(ConfigError::Field { path, message }) => {
            assert!(message.contains("not an array"), "{path}: {message}");
            path
        }
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => panic!("refused without naming a field: {e}"),
    }
}

#[test]
fn a_table_given_as_an_array_is_refused_naming_it() {
    assert_eq!(refused_at(&format!("prefill = []\n{BASE}")), "prefill");
    assert_eq!(refused_at(&format!("prefill = [0.5]\n{BASE}")), "prefill");
    assert_eq!(
        refused_at(&format!("{BASE}[fs]\npersonality = \"f2fs\"\ncache = []\n")),
        "fs.cache"
    );
}

#[test]
fn arrays_the_configuration_takes_stay_accepted() {
    // A prefill's fill range and a list of widths are arrays in the resolved configuration too.
    let text = format!("{BASE}[prefill]\nfraction = 0.5\nfill = [0.2, 0.8]\n");
    ExperimentConfig::parse(&text, &[]).expect("a fill range");
    let text =
        format!("{BASE}[[job]]\nname = \"v\"\nrw = \"read\"\nbs = \"4KiB\"\nio_size = \"1MiB\"\n");
    ExperimentConfig::parse(&text, &[]).expect("an array of jobs");
}
