//! F2FS as Linux 6.12 runs it, where the write volume and the resets depend on it: which log a
//! block goes to (`f2fs_write_cache_pages` marks a file hot when a writeback finds at most 16
//! dirty pages; `__get_segment_type_6` sends indirect nodes to the cold node log), when
//! indirect nodes are written (at a checkpoint, not at fsync), foreground cleaning
//! (`f2fs_balance_fs`: what a collection freed stays prefree until the next writer's call),
//! a directory's fsync (a checkpoint, so emptied sections are reset), and the six logs' sections
//! (each holds one from mkfs on, and takes the next the moment one fills).

use super::space::Owner;
use super::tests::{tiny_f2fs, with_fs};
use super::*;
use crate::sim::host::Host;

/// What log `log`'s current zone holds: (data blocks, direct node blocks, indirect ones).
fn head_holds(fs: &Fs, log: usize) -> (u32, u32, u32) {
    let st = fs.inner.st.borrow();
    let Some(z) = st.heads[log] else {
        return (0, 0, 0);
    };
    let zone = &st.space.zones[z as usize];
    let mut n = (0, 0, 0);
    for b in 0..zone.wp {
        match zone.owner_of(b) {
            Some((Owner::Data { .. }, _)) => n.0 += 1,
            Some((Owner::Node { index, .. }, _)) if index as u32 & f2fs::INDIRECT != 0 => n.2 += 1,
            Some((Owner::Node { .. }, _)) => n.1 += 1,
            _ => {}
        }
    }
    n
}

fn roomy_f2fs() -> FsSpec {
    let mut spec = tiny_f2fs(GcPolicyKind::Native);
    // Nothing written back before the fsync: the fsync finds every page the test dirtied.
    spec.cache.page_cache_bytes = 1 << 20;
    spec
}

#[test]
fn an_fsync_of_at_most_16_pages_goes_to_the_hot_log_and_of_more_to_the_warm_one() {
    let out = with_fs(roomy_f2fs(), None, |fs, h| async move {
        let fd = fs.create(&h, "/a", CreateOptions::default()).await.unwrap();
        fs.write(&h, fd, 0, 16 * BLOCK_BYTES, None).await.unwrap();
        fs.fsync(&h, fd).await.unwrap();
        assert_eq!(head_holds(&fs, HOT_DATA).0, 16);
        assert_eq!(head_holds(&fs, WARM_DATA).0, 0);
        fs.write(&h, fd, 0, 17 * BLOCK_BYTES, None).await.unwrap();
        fs.fsync(&h, fd).await.unwrap();
        assert_eq!(head_holds(&fs, HOT_DATA).0, 16);
        assert_eq!(head_holds(&fs, WARM_DATA).0, 17);
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}

/// Writes file block `fb` of `fd` and fsyncs it.
async fn write_block(fs: &Fs, h: &Host, fd: Fd, fb: u64) {
    fs.write(h, fd, fb * BLOCK_BYTES, BLOCK_BYTES, None)
        .await
        .unwrap();
    fs.fsync(h, fd).await.unwrap();
}

#[test]
fn a_new_direct_node_past_the_inode_writes_its_indirect_nodes_at_the_next_checkpoint_only() {
    let out = with_fs(roomy_f2fs(), None, |fs, h| async move {
        // File block 2959 is in direct node 3, the first under the inode's first indirect
        // node; block 923 + 2038 x 1018 is in the first under the double-indirect node.
        let under_indirect = 923 + 2 * 1018;
        let under_double = 923 + 2038 * 1018;
        let fd = fs.create(&h, "/b", CreateOptions::default()).await.unwrap();
        write_block(&fs, &h, fd, under_indirect).await;
        // The inode and direct node 3 at fsync; the indirect node waits.
        assert_eq!(head_holds(&fs, WARM_NODE), (0, 2, 0));
        assert_eq!(head_holds(&fs, COLD_NODE), (0, 0, 0));
        f2fs::checkpoint(&fs.inner, &h).await.unwrap();
        assert_eq!(head_holds(&fs, COLD_NODE), (0, 0, 1));
        // Overwriting moves the direct node; its parent keeps the node's id and stays put.
        write_block(&fs, &h, fd, under_indirect).await;
        f2fs::checkpoint(&fs.inner, &h).await.unwrap();
        assert_eq!(head_holds(&fs, COLD_NODE), (0, 0, 1));
        // Under the double-indirect node: two indirect nodes more.
        write_block(&fs, &h, fd, under_double).await;
        f2fs::checkpoint(&fs.inner, &h).await.unwrap();
        assert_eq!(head_holds(&fs, COLD_NODE), (0, 0, 3));
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}

#[test]
fn a_foreground_collection_checkpoints_first_and_leaves_what_it_freed_prefree() {
    let out = with_fs(roomy_f2fs(), None, |fs, h| async move {
        let blocks = 160u64;
        let mut fds = Vec::new();
        for f in 0..8 {
            let fd = fs
                .create(&h, &format!("/c{f}"), CreateOptions::default())
                .await
                .unwrap();
            fs.write(&h, fd, 0, blocks * BLOCK_BYTES, None)
                .await
                .unwrap();
            fs.fsync(&h, fd).await.unwrap();
            fds.push(fd);
        }
        let mut runs_seen = 0;
        let mut held_after_a_run = 0;
        for i in 0..4000u64 {
            let fd = fds[(i % 8) as usize];
            write_block(&fs, &h, fd, (i * 37) % blocks).await;
            let runs = fs.report().gc.runs_foreground;
            if runs > runs_seen {
                runs_seen = runs;
                // The section the writer emptied is not free yet: the next writer's call
                // checkpoints it free before collecting again.
                if !fs.inner.st.borrow().dead.is_empty() {
                    held_after_a_run += 1;
                }
            }
        }
        let r = fs.report();
        assert!(r.gc.runs_foreground >= 10, "{:?}", r.gc);
        assert_eq!(held_after_a_run, r.gc.runs_foreground, "{:?}", r.gc);
        // Every collection but the first follows a checkpoint of its predecessor's section.
        assert!(r.checkpoints + 1 >= r.gc.runs_foreground, "{r:?}");
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}

#[test]
fn an_fsync_of_a_directory_checkpoints_and_resets_what_was_emptied() {
    let out = with_fs(roomy_f2fs(), None, |fs, h| async move {
        fs.mkdir(&h, "/db").await.unwrap();
        // Two zones' worth (the tiny device's zones hold 64 blocks), so one zone fills.
        let fd = fs
            .create(&h, "/db/000001.sst", CreateOptions::default())
            .await
            .unwrap();
        fs.write(&h, fd, 0, 128 * BLOCK_BYTES, None).await.unwrap();
        fs.fsync(&h, fd).await.unwrap();
        fs.close(&h, fd).await.unwrap();
        fs.delete(&h, "/db/000001.sst").await.unwrap();
        assert!(!fs.inner.st.borrow().dead.is_empty(), "a full zone died");
        let (cps, resets) = (fs.report().checkpoints, fs.report().zone_resets);
        fs.fsync_dir(&h, "/db").await.unwrap();
        assert_eq!(fs.report().checkpoints, cps + 1);
        assert!(fs.report().zone_resets > resets);
        assert!(fs.inner.st.borrow().dead.is_empty());
        assert!(matches!(
            fs.fsync_dir(&h, "/nowhere").await,
            Err(FsError::NotFound(_))
        ));
        let fd = fs
            .create(&h, "/db/f", CreateOptions::default())
            .await
            .unwrap();
        fs.close(&h, fd).await.unwrap();
        assert!(matches!(
            fs.fsync_dir(&h, "/db/f").await,
            Err(FsError::NotDir(_))
        ));
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}

#[test]
fn every_log_holds_a_section_from_mkfs_and_takes_the_next_as_soon_as_one_fills() {
    let out = with_fs(roomy_f2fs(), None, |fs, h| async move {
        let heads = |fs: &Fs| -> Vec<Option<u32>> {
            let st = fs.inner.st.borrow();
            (0..LOGS).map(|l| st.heads[l]).collect()
        };
        // Six distinct sections before anything is written, as mkfs.f2fs lays them out.
        let first = heads(&fs);
        let mut held: Vec<u32> = first
            .iter()
            .map(|z| z.expect("a log without a section"))
            .collect();
        held.sort_unstable();
        held.dedup();
        assert_eq!(held.len(), 6, "{first:?}");
        assert_eq!(fs.inner.st.borrow().space.free_count(), 32 - 6);
        // Fill the warm data log's section exactly (a tiny zone holds 64 blocks): the log has
        // its next section at once, before any further write asks for it.
        let cap = fs.inner.st.borrow().space.zones[first[WARM_DATA].unwrap() as usize].cap as u64;
        let fd = fs.create(&h, "/w", CreateOptions::default()).await.unwrap();
        fs.write(&h, fd, 0, cap * BLOCK_BYTES, None).await.unwrap();
        fs.fsync(&h, fd).await.unwrap();
        let now = heads(&fs);
        let warm = now[WARM_DATA].expect("the warm log lost its section");
        assert_ne!(Some(warm), first[WARM_DATA]);
        assert_eq!(fs.inner.st.borrow().space.zones[warm as usize].wp, 0);
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}

/// Four writers each fsync four pages at the same moment: their data goes to the hot log's
/// zone in allocation order. With zone write plugs (Linux 6.10+) the first write goes alone and
/// the three queued behind it merge into one command; without, each fsync sends its own.
fn writes_of_four_concurrent_fsyncs(plug: bool) -> u64 {
    let mut spec = roomy_f2fs();
    spec.zone_write_plug = plug;
    let out = with_fs(spec, None, |fs, h| async move {
        let mut fds = Vec::new();
        for i in 0..4 {
            let path = format!("/p{i}");
            fds.push(
                fs.create(&h, &path, CreateOptions::default())
                    .await
                    .unwrap(),
            );
        }
        // Set-up done: count from here, nodes included.
        h.start_measurement();
        let tasks: Vec<_> = fds
            .into_iter()
            .enumerate()
            .map(|(i, fd)| {
                let (fs, h2) = (fs.clone(), h.clone());
                h.spawn(&format!("w{i}"), false, async move {
                    fs.write(&h2, fd, 0, 4 * BLOCK_BYTES, None).await.unwrap();
                    fs.fsync(&h2, fd).await.unwrap();
                })
            })
            .collect();
        for t in tasks {
            h.join(t).await;
        }
        let st = fs.inner.st.borrow();
        let hot = st.heads[HOT_DATA].expect("the hot log holds a section");
        assert_eq!(
            st.space.zones[hot as usize].wp, 16,
            "every fsync's data in the hot log"
        );
        drop(st);
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    let writes = out.summary.table.iter().filter(|r| {
        r.layer == crate::metrics::Layer::Device && r.op == crate::metrics::OpKind::Write
    });
    writes.map(|r| r.summary.count).sum()
}

#[test]
fn zone_write_plugs_merge_the_writes_queued_behind_a_busy_zone() {
    let (plugged, unplugged) = (
        writes_of_four_concurrent_fsyncs(true),
        writes_of_four_concurrent_fsyncs(false),
    );
    // Four data writes and four inode writes unplugged. Plugged, the hot zone's first write goes
    // alone and the other three merge behind it; the node writes follow their data, some alone.
    assert_eq!(unplugged, 8);
    assert!(plugged <= 5, "plugged: {plugged} commands");
}

/// Room left in log `log`'s current section, in blocks.
fn head_room(fs: &Fs, log: usize) -> u32 {
    let st = fs.inner.st.borrow();
    let z = st.heads[log].expect("every log holds a section");
    st.space.zones[z as usize].room()
}

#[test]
fn counting_dirty_sections_cleans_a_part_section_early_when_a_log_lacks_room_for_the_dirty_pages() {
    use super::gc::f2fs::{Short, has_not_enough_free_secs, short_of_free_secs};
    let out = with_fs(roomy_f2fs(), None, |fs, h| async move {
        let reserved = fs.inner.st.borrow().f2.reserved_sections;
        let wanted = |free: u32| has_not_enough_free_secs(&fs.inner.st.borrow(), free);
        // Four dirty data pages of /a, written nowhere yet, and its dirty inode: no whole
        // section, a part section of data and one of nodes.
        let a = fs.create(&h, "/a", CreateOptions::default()).await.unwrap();
        fs.write(&h, a, 0, 4 * BLOCK_BYTES, None).await.unwrap();
        assert!(wanted(reserved), "at the reserved sections");
        assert!(
            !wanted(reserved + 1),
            "every log's section has room for four blocks"
        );
        assert!(
            !wanted(reserved + 4),
            "above the part sections (at most three)"
        );
        // /b's fsyncs of at most 16 pages fill the hot data log's section to 2 blocks from its end.
        let b = fs.create(&h, "/b", CreateOptions::default()).await.unwrap();
        let mut fb = 0;
        while head_room(&fs, HOT_DATA) > 2 {
            let n = (head_room(&fs, HOT_DATA) - 2).min(16) as u64;
            fs.write(&h, b, fb * BLOCK_BYTES, n * BLOCK_BYTES, None)
                .await
                .unwrap();
            fs.fsync(&h, b).await.unwrap();
            fb += n;
        }
        assert_eq!(head_room(&fs, HOT_DATA), 2);
        assert!(
            wanted(reserved + 1),
            "the hot data log has no room for /a's four pages"
        );
        assert!(
            !wanted(reserved + 4),
            "above the part sections (at most three)"
        );
        let why = |free: u32| short_of_free_secs(&fs.inner.st.borrow(), free);
        assert_eq!(why(reserved), Some(Short::Sections));
        assert_eq!(why(reserved + 1), Some(Short::LogRoom(HOT_DATA)));
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}
