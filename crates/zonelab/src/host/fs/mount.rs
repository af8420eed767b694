//! Mounting: the layer's state over its zones, a `[prefill]` taken in as `/prefill`, and the
//! daemons started.

use std::cell::RefCell;
use std::rc::Rc;

use super::space::{self, Owner, Space};
use super::state::{self, Inode, State};
use super::{
    BLOCK_BYTES, FileKind, Fs, FsError, FsSpec, Inner, Lifetime, Personality, STREAMS, f2fs, gc,
    io, map, report, zenfs,
};
use crate::device::LayerReport;
use crate::sim::host::Host;
use crate::sim::sync::Condvar;
use crate::time::Instant;

impl Fs {
    /// Mounts the layer over `spec`'s zones of `host`'s device. Zones the device already holds
    /// data in (a `[prefill]`) become the file `/prefill`, one run per zone, so a file system
    /// "filled with dummy data" starts that way without simulated time. Starts the daemons and
    /// registers the report (`layers.fs` in the summary).
    pub fn mount(host: &Host, spec: &FsSpec) -> Result<Fs, FsError> {
        let info = host.device_info();
        let z = info
            .zoned
            .clone()
            .ok_or_else(|| FsError::Unsupported("the file layer needs a zoned device".into()))?;
        let lba = info.lba_size_bytes;
        assert!(
            BLOCK_BYTES.is_multiple_of(lba),
            "LBA size divides the block (checked by config)"
        );
        let lbas_per_block = BLOCK_BYTES / lba;
        let cap_blocks = (z.zone_capacity_lbas / lbas_per_block) as u32;
        let reserve = match &spec.personality {
            Personality::Zenfs(zs) => zs.reserved_zones,
            Personality::F2fs(_) => 0,
        };
        let limit = |l: Option<u32>| l.map(|v| v.saturating_sub(reserve).max(1));
        let space = Space::new(
            spec.first_zone,
            spec.zone_count,
            z.zone_size_lbas,
            cap_blocks,
            lbas_per_block,
            z.max_open_zones,
            z.max_active_zones,
        );
        let cache_pages = spec.cache.page_cache_bytes / BLOCK_BYTES;
        let mut st = State::new(space, cache_pages, 0, STREAMS);
        st.data = spec.data;
        st.capacity_blocks = match &spec.personality {
            Personality::Zenfs(zs) => {
                zenfs::mkfs(&mut st, zs);
                (spec.zone_count - zs.meta_zones) as u64 * cap_blocks as u64
            }
            Personality::F2fs(fs) => f2fs::mkfs(&mut st, fs, spec, cap_blocks)?,
        };
        st.zen.max_open_io = limit(z.max_open_zones);
        st.zen.max_active_io = limit(z.max_active_zones);
        lay_out(host, &mut st, spec, lbas_per_block);
        // One layer per namespace that has one: its own report and tenants past namespace 0.
        let name = match host.nsid() {
            0 => "fs".to_string(),
            n => format!("fs.ns{n}"),
        };
        let inner = Rc::new(Inner {
            spec: spec.clone(),
            st: RefCell::new(st),
            host: host.for_tenant(&name, &name),
            gc_host: host.for_tenant(&format!("{name}.gc"), &format!("{name}.gc")),
            space_cv: Condvar::new(),
            gc_cv: Condvar::new(),
            flush_cv: Condvar::new(),
            io_cv: Condvar::new(),
            relocate_cv: Condvar::new(),
            gc_lock: crate::sim::sync::Mutex::new(()),
            meta_lock: crate::sim::sync::Mutex::new(()),
            gc: RefCell::new(gc::policy(spec)),
            lbas_per_block,
            plugs: io::Plugs::new(spec.zone_count as usize),
        });
        let fs = Fs { inner };
        fs.start_daemons();
        // The run takes its reports (and so this handle) back before it ends.
        let inner = fs.inner.clone();
        host.add_report(&name, move || LayerReport::FileLayer(report::make(&inner)));
        Ok(fs)
    }

    fn start_daemons(&self) {
        let inner = &self.inner;
        if inner.spec.cache.page_cache_bytes > 0 && !inner.spec.cache.writeback_interval.is_zero() {
            let fs = inner.clone();
            inner
                .host
                .spawn("fs.flusher", true, async move { io::flusher(fs).await });
        }
        match &inner.spec.personality {
            Personality::Zenfs(_) => {
                let fs = inner.clone();
                inner.host.spawn(
                    "fs.mkfs",
                    true,
                    async move { zenfs::write_superblock(fs).await },
                );
            }
            Personality::F2fs(_) => {
                let fs = inner.clone();
                inner.host.spawn(
                    "fs.checkpoint",
                    true,
                    async move { f2fs::cp_daemon(fs).await },
                );
            }
        }
        gc::spawn_daemon(inner);
        if inner.spec.on_zone_error == super::OnZoneError::Relocate {
            let fs = inner.clone();
            inner
                .host
                .spawn("fs.relocate", true, async move { io::relocator(fs).await });
        }
    }
}

/// What a fresh file system holds: the prefill's data as `/prefill`, then F2FS's logs, which
/// hold their sections from mkfs on (the prefill's log keeps the section it left part-written).
fn lay_out(host: &Host, st: &mut State, spec: &FsSpec, lbas_per_block: u64) {
    adopt_prefill(host, st, spec, lbas_per_block);
    if matches!(spec.personality, Personality::F2fs(_)) {
        f2fs::open_logs(st);
    }
}

/// Takes in the data a `[prefill]` left in the region as the file `/prefill`.
fn adopt_prefill(host: &Host, st: &mut State, spec: &FsSpec, lbas_per_block: u64) {
    let (nsid, first_zone, zones) = (host.nsid(), spec.first_zone, spec.zone_count);
    let written: Vec<(u32, u64)> = host.with_device(|d| {
        (0..zones)
            .map(|z| (z, d.written_lbas(nsid, first_zone + z)))
            .filter(|&(_, l)| l > 0)
            .collect()
    });
    if written.is_empty() {
        return;
    }
    let mut inode = Inode::new(FileKind::File, state::ROOT, "prefill", Lifetime::NotSet);
    inode.meta_dirty = false;
    let ino = st.alloc_ino(inode);
    st.inode_mut(state::ROOT)
        .children
        .insert("prefill".into(), ino);
    let mut index = 0u64;
    let last = written.last().map(|&(z, _)| z);
    for (z, lbas) in written {
        let blocks = (lbas / lbas_per_block) as u32;
        assert!(
            st.space.zones[z as usize].role == space::Role::Free,
            "prefill in a metadata zone (checked by config)"
        );
        st.space.claim(z, space::Role::Data);
        let (b, n) = st.space.alloc(z, blocks, Instant::ZERO);
        st.fill(z, b, n, Owner::Data { ino, index });
        let mut old = Vec::new();
        st.inode_mut(ino)
            .map
            .set(index, map::Run::new(z, b, n), &mut old);
        index += n as u64;
    }
    let inode = st.inode_mut(ino);
    inode.size = index * BLOCK_BYTES;
    inode.allocated = index;
    st.used_blocks += index;
    // F2FS wrote the prefill through its data log, which goes on appending where the prefill
    // stopped (a zone it left part-written is that log's current section, not stranded).
    if let (Personality::F2fs(f), Some(z)) = (&spec.personality, last)
        && st.space.zones[z as usize].room() > 0
    {
        let s = f2fs::data_log(f, st.inode(ino));
        io::open_head(st, s, z);
    }
}
