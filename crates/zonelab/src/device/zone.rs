//! The zones of the NVMe Zoned Namespace command set: zone states, zone management actions and
//! report descriptors (TP 4053 / ZNS 1.1; see docs/reference/zns-semantics.md), and how
//! nvme-cli and libzbd print a report.

/// Zone states with their ZS codes.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ZoneState {
    Empty = 0x1,
    ImplicitlyOpened = 0x2,
    ExplicitlyOpened = 0x3,
    Closed = 0x4,
    ReadOnly = 0xD,
    Full = 0xE,
    Offline = 0xF,
}

impl ZoneState {
    pub const ALL: [ZoneState; 7] = [
        ZoneState::Empty,
        ZoneState::ImplicitlyOpened,
        ZoneState::ExplicitlyOpened,
        ZoneState::Closed,
        ZoneState::ReadOnly,
        ZoneState::Full,
        ZoneState::Offline,
    ];

    pub fn is_open(self) -> bool {
        matches!(
            self,
            ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened
        )
    }

    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }

    /// nvme-cli's spelling.
    pub fn nvme_cli_name(self) -> &'static str {
        match self {
            ZoneState::Empty => "EMPTY",
            ZoneState::ImplicitlyOpened => "IMP_OPENED",
            ZoneState::ExplicitlyOpened => "EXP_OPENED",
            ZoneState::Closed => "CLOSED",
            ZoneState::ReadOnly => "READONLY",
            ZoneState::Full => "FULL",
            ZoneState::Offline => "OFFLINE",
        }
    }

    /// libzbd's two-letter condition.
    pub fn zbd_name(self) -> &'static str {
        match self {
            ZoneState::Empty => "em",
            ZoneState::ImplicitlyOpened => "oi",
            ZoneState::ExplicitlyOpened => "oe",
            ZoneState::Closed => "cl",
            ZoneState::ReadOnly => "ro",
            ZoneState::Full => "fu",
            ZoneState::Offline => "ol",
        }
    }

    pub fn parse(name: &str) -> Option<ZoneState> {
        ZoneState::ALL.into_iter().find(|s| {
            s.nvme_cli_name().eq_ignore_ascii_case(name)
                || s.zbd_name() == name
                || format!("{s:?}").eq_ignore_ascii_case(name)
        })
    }
}

/// Zone Management Send actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZoneAction {
    Open,
    Close,
    Finish,
    Reset,
    Offline,
}

impl ZoneAction {
    /// The states a Select All applies the action to.
    pub fn select_all_applies(self, state: ZoneState) -> bool {
        match self {
            ZoneAction::Open => state == ZoneState::Closed,
            ZoneAction::Close => state.is_open(),
            ZoneAction::Finish => state.is_active(),
            ZoneAction::Reset => state.is_active() || state == ZoneState::Full,
            ZoneAction::Offline => state == ZoneState::ReadOnly,
        }
    }
}

/// One Report Zones descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneDescriptor {
    pub state: ZoneState,
    pub zslba: u64,
    pub capacity_lbas: u64,
    pub wp: u64,
}

/// Report Zones' state filter (Reporting Options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReportFilter {
    #[default]
    All,
    State(ZoneState),
}

impl ReportFilter {
    pub fn matches(self, state: ZoneState) -> bool {
        match self {
            ReportFilter::All => true,
            ReportFilter::State(s) => s == state,
        }
    }
}

/// Report Zones' answer: `zone_count` is the number of matching zones from the start LBA on
/// (or, with the partial flag, the number of descriptors returned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneReport {
    pub zone_count: u64,
    pub descriptors: Vec<ZoneDescriptor>,
}

/// The report as nvme-cli's `nvme zns report-zones` prints it.
pub fn format_nvme_cli(report: &ZoneReport) -> String {
    let mut out = format!("nr_zones: {}\n", report.zone_count);
    for d in &report.descriptors {
        out += &format!(
            "SLBA: {:<#18x} WP: {:<#18x} Cap: {:<#10x} State: {:<12} Type: SEQWRITE_REQ   Attrs: 0x0\n",
            d.zslba,
            d.wp,
            d.capacity_lbas,
            d.state.nvme_cli_name()
        );
    }
    out
}

/// The report as libzbd's `zbd report` prints it (offsets and lengths in bytes).
pub fn format_libzbd(report: &ZoneReport, zone_size_lbas: u64, lba_bytes: u64) -> String {
    let mut out = String::new();
    for d in &report.descriptors {
        let zone = d.zslba / zone_size_lbas;
        out += &format!(
            "Zone {zone:05}: swr, ofst {:014}, len {:014}, cap {:014}, wp {:014}, {}, non_seq 0, reset 0\n",
            d.zslba * lba_bytes,
            zone_size_lbas * lba_bytes,
            d.capacity_lbas * lba_bytes,
            d.wp * lba_bytes,
            d.state.zbd_name()
        );
    }
    out
}
