//! The tiny ZNS device the core's end-to-end tests run on, written once: 2 channels of 2 dies,
//! 4 pages of 16 KiB per block, zones of 256 KiB across all 4 dies, and round timings (50 us
//! reads, 500 us programs, 3 ms erases) so that expected times follow by hand. Tests change the
//! few fields they care about.

/// The tiny device, with the fields tests vary.
#[derive(Clone, Copy, Debug)]
pub struct TinyDevice {
    /// Blocks per die: 16 gives 16 zones of 256 KiB.
    pub blocks_per_die: u32,
    pub zone_capacity: &'static str,
    /// Max Open and Max Active Resources (0: no limit).
    pub max_open_zones: u32,
    pub max_active_zones: u32,
    /// Keep written data (`[data] retention`), for tests that read it back.
    pub retention: bool,
}

impl Default for TinyDevice {
    fn default() -> Self {
        TinyDevice {
            blocks_per_die: 16,
            zone_capacity: "256KiB",
            max_open_zones: 4,
            max_active_zones: 4,
            retention: false,
        }
    }
}

impl TinyDevice {
    /// The device's tables, as an experiment file holds them.
    pub fn toml(&self) -> String {
        let data = if self.retention {
            "[data]\nretention = true\n"
        } else {
            ""
        };
        format!(
            r#"
{data}[device]
name = "tiny"
source = "test"
[device.geometry]
channels = 2
dies_per_channel = 2
blocks_per_die = {blocks}
pages_per_block = 4
page_size_bytes = "16KiB"
lba_size_bytes = 4096
[device.zones]
dies_per_zone = 4
zone_size_bytes = "256KiB"
zone_capacity_bytes = "{capacity}"
max_open_zones = {open}
max_active_zones = {active}
[device.timing]
read_latency_ns = 50000
program_latency_ns = 500000
erase_latency_ns = 3000000
channel_rate_mb_s = 800
host_rate_mb_s = 3200
[device.energy]
read_nj_per_page = 1.0
program_nj_per_page = 10.0
erase_nj_per_block = 100.0
"#,
            blocks = self.blocks_per_die,
            capacity = self.zone_capacity,
            open = self.max_open_zones,
            active = self.max_active_zones,
        )
    }
}

/// The tiny device's NAND as a conventional SSD: 4 dies on 2 channels, 16 KiB pages, 64 KiB
/// blocks, 64 superblocks of 256 KiB (16 MiB raw), 28% over-provisioning.
pub const TINY_CONVENTIONAL: &str = r#"
[device]
kind = "conventional"
name = "tiny-conv"
source = "test"
[device.geometry]
channels = 2
dies_per_channel = 2
blocks_per_die = 64
pages_per_block = 4
page_size_bytes = "16KiB"
lba_size_bytes = 4096
[device.timing]
read_latency_ns = 50000
program_latency_ns = 500000
erase_latency_ns = 3000000
channel_rate_mb_s = 800
host_rate_mb_s = 3200
[device.energy]
read_nj_per_page = 1.0
program_nj_per_page = 10.0
erase_nj_per_block = 100.0
[device.ftl]
over_provisioning_percent = 28
write_buffer_bytes = "64KiB"
"#;

/// The tiny device as most tests take it: 16 zones, 4 open and active at most.
pub fn tiny_device() -> String {
    TinyDevice::default().toml()
}

/// The experiment `text` with the overrides `set` (`key=value`), validated as a device
/// experiment (no workload needed), as the layers' tests build theirs.
pub fn validated(
    text: &str,
    set: &[&str],
) -> Result<crate::experiment::Experiment, crate::ConfigError> {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    crate::config::ExperimentConfig::parse(text, &set)?.validate_device("t")
}
