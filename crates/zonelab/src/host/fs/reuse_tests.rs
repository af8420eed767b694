//! A file's number goes to the next file created once the file is gone, while the flusher's
//! writes of the old one may still be in flight: their completion must not count against the
//! new file. (It did: the new file's in-flight count wrapped below zero, and its next fsync
//! waited forever while the flusher's timer kept the run going: a RocksDB-like store on the
//! F2FS-like layer with a 1 s dirty expiry stalled for good.)

use super::tests::{tiny_f2fs, with_fs};
use super::*;
use crate::time::Duration;

#[test]
fn writes_of_a_deleted_file_do_not_count_against_the_next_file_with_its_number() {
    let mut spec = tiny_f2fs(GcPolicyKind::Native);
    // Write back at once and often, so the flusher has writes in flight when a file goes.
    spec.cache.page_cache_bytes = 1 << 20;
    spec.cache.dirty_expire = Duration::ZERO;
    spec.cache.writeback_interval = Duration::from_us(50);
    let out = with_fs(spec, None, |fs, h| async move {
        for i in 0..40u32 {
            let path = format!("/f{i}");
            let fd = fs
                .create(&h, &path, CreateOptions::default())
                .await
                .unwrap();
            fs.append(&h, fd, 8 * BLOCK_BYTES, None).await.unwrap();
            fs.close(&h, fd).await.unwrap();
            // Give the flusher time to start on it, not to finish.
            h.sleep(Duration::from_us(60)).await;
            fs.delete(&h, &path).await.unwrap();
            // The next file takes the number; its fsync waits for its own writes only.
            let keep = format!("/k{i}");
            let fd = fs
                .create(&h, &keep, CreateOptions::default())
                .await
                .unwrap();
            fs.append(&h, fd, BLOCK_BYTES, None).await.unwrap();
            fs.fsync(&h, fd).await.unwrap();
            fs.close(&h, fd).await.unwrap();
            fs.delete(&h, &keep).await.unwrap();
        }
        fs.check();
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}
