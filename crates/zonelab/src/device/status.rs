//! NVMe completion statuses a device returns: generic (SCT 0h) or command specific (SCT 1h).

use std::fmt;

/// NVMe completion statuses the device returns. Generic (SCT 0h) or command specific (SCT 1h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    InvalidOpcode,
    InvalidField,
    InvalidNamespace,
    LbaOutOfRange,
    ZoneBoundaryError,
    ZoneIsFull,
    ZoneIsReadOnly,
    ZoneIsOffline,
    ZoneInvalidWrite,
    TooManyActiveZones,
    TooManyOpenZones,
    InvalidZoneStateTransition,
    /// Generic: the controller failed the command (NVMe base 2.0, Figure 102); faults only.
    InternalError,
    /// Media errors (NVMe base 2.0, Figure 104); faults only.
    WriteFault,
    UnrecoveredReadError,
}

impl Status {
    /// (status code type, status code)
    pub fn code(self) -> (u8, u8) {
        match self {
            Status::InvalidOpcode => (0x0, 0x01),
            Status::InvalidField => (0x0, 0x02),
            Status::InvalidNamespace => (0x0, 0x0B),
            Status::LbaOutOfRange => (0x0, 0x80),
            Status::ZoneBoundaryError => (0x1, 0xB8),
            Status::ZoneIsFull => (0x1, 0xB9),
            Status::ZoneIsReadOnly => (0x1, 0xBA),
            Status::ZoneIsOffline => (0x1, 0xBB),
            Status::ZoneInvalidWrite => (0x1, 0xBC),
            Status::TooManyActiveZones => (0x1, 0xBD),
            Status::TooManyOpenZones => (0x1, 0xBE),
            Status::InvalidZoneStateTransition => (0x1, 0xBF),
            Status::InternalError => (0x0, 0x06),
            Status::WriteFault => (0x2, 0x80),
            Status::UnrecoveredReadError => (0x2, 0x81),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Status::InvalidOpcode => "Invalid Command Opcode",
            Status::InvalidField => "Invalid Field in Command",
            Status::InvalidNamespace => "Invalid Namespace or Format",
            Status::LbaOutOfRange => "LBA Out of Range",
            Status::ZoneBoundaryError => "Zone Boundary Error",
            Status::ZoneIsFull => "Zone Is Full",
            Status::ZoneIsReadOnly => "Zone Is Read Only",
            Status::ZoneIsOffline => "Zone Is Offline",
            Status::ZoneInvalidWrite => "Zone Invalid Write",
            Status::TooManyActiveZones => "Too Many Active Zones",
            Status::TooManyOpenZones => "Too Many Open Zones",
            Status::InvalidZoneStateTransition => "Invalid Zone State Transition",
            Status::InternalError => "Internal Error",
            Status::WriteFault => "Write Fault",
            Status::UnrecoveredReadError => "Unrecovered Read Error",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sct, sc) = self.code();
        write!(f, "{} (SCT {sct:X}h, SC {sc:02X}h)", self.name())
    }
}

impl std::error::Error for Status {}
