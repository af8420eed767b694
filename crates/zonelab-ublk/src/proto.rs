//! What the Linux block layer and the ublk driver exchange with a zoned ublk server, written out
//! without the kernel: the operation codes of `include/uapi/linux/ublk_cmd.h`, the
//! `struct blk_zone` a REPORT_ZONES answer is made of (`include/uapi/linux/blkzoned.h`), and the
//! errno values a failed command must complete with so the block layer sees the status a real
//! NVMe ZNS SSD would give. Pure functions, tested without a kernel; `server.rs` checks the
//! constants against libublk's generated bindings.

use zonelab::device::{Status, ZoneDescriptor, ZoneState};

/// Bytes in a sector, the unit of every address and length ublk passes.
pub const SECTOR_BYTES: u64 = 512;

/// `UBLK_IO_OP_*` (ublk_cmd.h).
pub mod op {
    pub const READ: u32 = 0;
    pub const WRITE: u32 = 1;
    pub const FLUSH: u32 = 2;
    pub const DISCARD: u32 = 3;
    pub const WRITE_SAME: u32 = 4;
    pub const WRITE_ZEROES: u32 = 5;
    pub const ZONE_OPEN: u32 = 10;
    pub const ZONE_CLOSE: u32 = 11;
    pub const ZONE_FINISH: u32 = 12;
    pub const ZONE_APPEND: u32 = 13;
    pub const ZONE_RESET_ALL: u32 = 14;
    pub const ZONE_RESET: u32 = 15;
    pub const REPORT_ZONES: u32 = 18;
}

/// A command from the block layer, as the ublk driver describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    Flush,
    Discard,
    WriteZeroes,
    ZoneOpen,
    ZoneClose,
    ZoneFinish,
    ZoneAppend,
    ZoneResetAll,
    ZoneReset,
    ReportZones,
}

impl Op {
    /// From the low byte of `ublksrv_io_desc.op_flags`; `None` for operations a zoned device
    /// does not serve (WRITE_SAME, anything newer).
    pub fn from_ublk(op_flags: u32) -> Option<Op> {
        Some(match op_flags & 0xff {
            op::READ => Op::Read,
            op::WRITE => Op::Write,
            op::FLUSH => Op::Flush,
            op::DISCARD => Op::Discard,
            op::WRITE_ZEROES => Op::WriteZeroes,
            op::ZONE_OPEN => Op::ZoneOpen,
            op::ZONE_CLOSE => Op::ZoneClose,
            op::ZONE_FINISH => Op::ZoneFinish,
            op::ZONE_APPEND => Op::ZoneAppend,
            op::ZONE_RESET_ALL => Op::ZoneResetAll,
            op::ZONE_RESET => Op::ZoneReset,
            op::REPORT_ZONES => Op::ReportZones,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Flush => "flush",
            Op::Discard => "discard",
            Op::WriteZeroes => "write_zeroes",
            Op::ZoneOpen => "zone_open",
            Op::ZoneClose => "zone_close",
            Op::ZoneFinish => "zone_finish",
            Op::ZoneAppend => "zone_append",
            Op::ZoneResetAll => "zone_reset_all",
            Op::ZoneReset => "zone_reset",
            Op::ReportZones => "report_zones",
        }
    }

    /// The server copies the command's data from the ublk char device before serving it.
    pub fn takes_data(self) -> bool {
        matches!(self, Op::Write | Op::ZoneAppend)
    }

    /// The server copies the answer to the ublk char device after serving it.
    pub fn returns_data(self) -> bool {
        matches!(self, Op::Read | Op::ReportZones)
    }
}

/// One command: `count` is sectors, or zones for REPORT_ZONES (the driver's `nr_zones`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    pub op: Op,
    pub sector: u64,
    pub count: u32,
}

/// `sizeof(struct blk_zone)`.
pub const BLK_ZONE_BYTES: usize = 64;
/// `BLK_ZONE_TYPE_SEQWRITE_REQ`: every ZoneLab zone is sequential-write-required.
pub const BLK_ZONE_TYPE_SEQWRITE_REQ: u8 = 0x2;

/// `enum blk_zone_cond`. Linux took the codes from ZBC/ZAC, and ZNS uses the same values for
/// its zone states, so the mapping is the identity; it is spelled out so a change on either side
/// shows up here.
pub fn blk_zone_cond(state: ZoneState) -> u8 {
    match state {
        ZoneState::Empty => 0x1,
        ZoneState::ImplicitlyOpened => 0x2,
        ZoneState::ExplicitlyOpened => 0x3,
        ZoneState::Closed => 0x4,
        ZoneState::ReadOnly => 0xD,
        ZoneState::Full => 0xE,
        ZoneState::Offline => 0xF,
    }
}

/// Writes `d` as a `struct blk_zone` (native byte order, as the kernel reads it):
/// `start, len, wp` (u64 sectors), `type, cond, non_seq, reset` (u8), 4 reserved bytes,
/// `capacity` (u64 sectors), 24 reserved bytes. `sectors_per_lba` converts ZoneLab's LBAs.
/// A full zone's write pointer is its start plus the zone size, whatever its capacity: what
/// Linux's NVMe driver reports for a ZNS drive (`nvme_zone_parse_entry`,
/// drivers/nvme/host/zns.c), and null_blk too, so tools see ZoneLab's device as a real one.
pub fn encode_blk_zone(
    d: &ZoneDescriptor,
    zone_lbas: u64,
    sectors_per_lba: u64,
    out: &mut [u8; BLK_ZONE_BYTES],
) {
    let wp = match d.state {
        ZoneState::Full => d.zslba + zone_lbas,
        _ => d.wp,
    };
    out.fill(0);
    out[0..8].copy_from_slice(&(d.zslba * sectors_per_lba).to_ne_bytes());
    out[8..16].copy_from_slice(&(zone_lbas * sectors_per_lba).to_ne_bytes());
    out[16..24].copy_from_slice(&(wp * sectors_per_lba).to_ne_bytes());
    out[24] = BLK_ZONE_TYPE_SEQWRITE_REQ;
    out[25] = blk_zone_cond(d.state);
    out[32..40].copy_from_slice(&(d.capacity_lbas * sectors_per_lba).to_ne_bytes());
}

/// The (negative) errno a command failing with `status` completes with. The ublk driver turns it
/// into a block status with `errno_to_blk_status`; the values are those the Linux NVMe driver's
/// `nvme_error_status` (drivers/nvme/host/core.c) gives for the same NVMe status, so file
/// systems and fio see what a real ZNS SSD would give them: Invalid Field is "not supported",
/// LBA Out of Range a target error, the two resource limits their own zone statuses, and every
/// other zone error a plain I/O error.
pub fn errno_for(status: Status) -> i32 {
    match status {
        Status::InvalidOpcode | Status::InvalidField | Status::InvalidNamespace => {
            -libc::EOPNOTSUPP
        }
        Status::LbaOutOfRange => -libc::EREMOTEIO,
        Status::TooManyActiveZones => -libc::EOVERFLOW,
        Status::TooManyOpenZones => -libc::ETOOMANYREFS,
        Status::ZoneBoundaryError
        | Status::ZoneIsFull
        | Status::ZoneIsReadOnly
        | Status::ZoneIsOffline
        | Status::ZoneInvalidWrite
        | Status::InvalidZoneStateTransition
        | Status::InternalError
        | Status::WriteFault
        | Status::UnrecoveredReadError => -libc::EIO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u64_at(b: &[u8], at: usize) -> u64 {
        u64::from_ne_bytes(b[at..at + 8].try_into().unwrap())
    }

    /// Zone 3 of 4 KiB-LBA zones of 16384 LBAs (64 MiB) with 12288 LBAs of capacity, written to
    /// 100, in `state`, as a `struct blk_zone` written over 0xAA bytes.
    fn encoded(state: ZoneState) -> [u8; BLK_ZONE_BYTES] {
        let d = ZoneDescriptor {
            state,
            zslba: 3 * 16384,
            capacity_lbas: 12288,
            wp: 3 * 16384 + 100,
        };
        let mut b = [0xAAu8; BLK_ZONE_BYTES];
        encode_blk_zone(&d, 16384, 8, &mut b);
        b
    }

    #[test]
    fn blk_zone_layout_in_sectors() {
        let b = encoded(ZoneState::ImplicitlyOpened);
        assert_eq!(u64_at(&b, 0), 3 * 131072, "start");
        assert_eq!(u64_at(&b, 8), 131072, "len");
        assert_eq!(u64_at(&b, 16), 3 * 131072 + 800, "wp");
        assert_eq!((b[24], b[25], b[26], b[27]), (2, 2, 0, 0));
        assert_eq!(&b[28..32], &[0; 4], "reserved");
        assert_eq!(u64_at(&b, 32), 98304, "capacity");
        assert!(b[40..].iter().all(|&x| x == 0), "reserved tail is zeroed");
    }

    #[test]
    fn a_full_zone_reports_its_write_pointer_at_the_zone_size_as_linux_nvme_does() {
        // Finished at 100 LBAs into the zone: start + zone size, not the write pointer.
        let b = encoded(ZoneState::Full);
        assert_eq!(u64_at(&b, 16), 4 * 131072, "wp");
        assert_eq!(u64_at(&b, 32), 98304, "capacity");
    }

    #[test]
    fn zone_conditions_are_the_kernel_codes() {
        let want = [
            (ZoneState::Empty, 1),
            (ZoneState::ImplicitlyOpened, 2),
            (ZoneState::ExplicitlyOpened, 3),
            (ZoneState::Closed, 4),
            (ZoneState::ReadOnly, 13),
            (ZoneState::Full, 14),
            (ZoneState::Offline, 15),
        ];
        for (state, cond) in want {
            assert_eq!(blk_zone_cond(state), cond, "{state:?}");
            assert_eq!(
                blk_zone_cond(state),
                state as u8,
                "{state:?} is its ZS code"
            );
        }
    }

    #[test]
    fn errno_mapping_follows_the_nvme_driver() {
        assert_eq!(errno_for(Status::TooManyOpenZones), -libc::ETOOMANYREFS);
        assert_eq!(errno_for(Status::TooManyActiveZones), -libc::EOVERFLOW);
        assert_eq!(errno_for(Status::InvalidField), -libc::EOPNOTSUPP);
        assert_eq!(errno_for(Status::LbaOutOfRange), -libc::EREMOTEIO);
        for s in [
            Status::ZoneBoundaryError,
            Status::ZoneIsFull,
            Status::ZoneIsReadOnly,
            Status::ZoneIsOffline,
            Status::ZoneInvalidWrite,
            Status::InvalidZoneStateTransition,
        ] {
            assert_eq!(errno_for(s), -libc::EIO, "{s}");
        }
    }

    #[test]
    fn op_codes_decode_from_the_low_byte() {
        assert_eq!(Op::from_ublk(op::ZONE_APPEND), Some(Op::ZoneAppend));
        // Flags (FUA, NOUNMAP...) live above bit 8.
        assert_eq!(Op::from_ublk(op::WRITE | 1 << 8), Some(Op::Write));
        assert_eq!(Op::from_ublk(op::REPORT_ZONES), Some(Op::ReportZones));
        assert_eq!(Op::from_ublk(op::WRITE_SAME), None);
        assert_eq!(Op::from_ublk(0x7f), None);
    }
}
