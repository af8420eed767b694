//! The read path: gets (memtables, then L0 newest first, then one file per level, through the
//! bloom filters, index and filter blocks and the block cache) and scans.

use super::*;

impl<F: KvFiles + 'static> Db<F> {
    /// Gets `key`: memtables, then L0 files newest first, then one file per level.
    pub async fn get(&self, h: &Host, key: u64) -> Result<Option<Found>, KvError> {
        let i = &*self.inner;
        let (mem_hit, candidates) = {
            let mut st = i.st.borrow_mut();
            st.stats.gets += 1;
            let mem_hit = st
                .mem
                .get(key)
                .cloned()
                .or_else(|| st.imm.iter().rev().find_map(|m| m.mem.get(key).cloned()));
            let mut c: Vec<Rc<Table>> = Vec::new();
            if mem_hit.is_none() {
                let v = &st.version;
                c.extend(v.levels[0].iter().filter(|t| t.covers(key)).cloned());
                for l in 1..v.num_levels() {
                    if let Some(t) = v.file_for(l, key) {
                        c.push(t.clone());
                    }
                }
            }
            (mem_hit, c)
        };
        if let Some(v) = mem_hit {
            h.cpu(i.opts.cpu.get(0, 0, 0)).await;
            return Ok(self.found(v.vlen, v.payload));
        }
        let (mut probes, mut misses, mut filtered) = (0u32, 0u32, 0u32);
        let mut result = None;
        for t in &candidates {
            let (b, pos) = t.locate(key);
            if i.opts.bloom_bits > 0 {
                if i.opts.cache_index_and_filter_blocks {
                    misses += self.meta_block(h, t, true).await? as u32;
                }
                if pos.is_err() && !bloom_false_positive(key, t.number, i.opts.bloom_bits) {
                    filtered += 1;
                    continue;
                }
            }
            probes += 1;
            if i.opts.cache_index_and_filter_blocks {
                misses += self.meta_block(h, t, false).await? as u32;
            }
            misses += self.data_block(h, t, b).await? as u32;
            if let Ok(x) = pos {
                let e = t.entries[x];
                result = Some((e.vlen, t.payload(x)));
                break;
            }
        }
        drop(candidates);
        {
            let mut st = i.st.borrow_mut();
            st.stats.get_probes += probes as u64;
            st.stats.filter_skips += filtered as u64;
        }
        h.cpu(i.opts.cpu.get(probes, misses, filtered)).await;
        Ok(result.and_then(|(vlen, p)| self.found(vlen, p)))
    }

    fn found(&self, vlen: u32, payload: Option<Payload>) -> Option<Found> {
        (vlen != TOMBSTONE).then(|| {
            self.inner.st.borrow_mut().stats.gets_found += 1;
            Found { vlen, payload }
        })
    }

    /// Looks data block `b` of `t` up in the block cache, reading it on a miss. Returns
    /// whether it missed.
    async fn data_block(&self, h: &Host, t: &Table, b: usize) -> Result<bool, KvError> {
        let i = &*self.inner;
        let k = block_key(t.number, b);
        let hit = {
            let mut st = i.st.borrow_mut();
            let hit = st.cache.lookup(k);
            if hit {
                st.stats.block_cache_hits += 1;
            } else {
                st.stats.block_cache_misses += 1;
            }
            hit
        };
        if hit {
            return Ok(false);
        }
        let (off, len) = t.block_range(b);
        let reader = t.reader.get().expect("a table in the tree has a reader");
        i.files.read(h, reader, off, len).await?;
        let mut st = i.st.borrow_mut();
        st.stats.read_bytes += len;
        st.cache.insert(k, len);
        Ok(true)
    }

    /// The index (or filter) block of `t` through the block cache, when
    /// `cache_index_and_filter_blocks` puts them there.
    async fn meta_block(&self, h: &Host, t: &Table, filter: bool) -> Result<bool, KvError> {
        let i = &*self.inner;
        let which = if filter { (1 << 24) - 2 } else { (1 << 24) - 1 };
        let k = block_key(t.number, which);
        if i.st.borrow_mut().cache.lookup(k) {
            return Ok(false);
        }
        let (off, len) = if filter {
            (t.sizes.data + t.sizes.index, t.sizes.filter)
        } else {
            (t.sizes.data, t.sizes.index)
        };
        if len == 0 {
            return Ok(false);
        }
        let reader = t.reader.get().expect("a table in the tree has a reader");
        i.files.read(h, reader, off, len).await?;
        let mut st = i.st.borrow_mut();
        st.stats.read_bytes += len;
        st.cache.insert(k, len);
        Ok(true)
    }

    /// A range scan: seeks to `start` and reads up to `count` live keys in order, as RocksDB's
    /// merging iterator does (each sorted run positioned on its block, blocks read as the scan
    /// crosses them). Returns the keys read.
    pub async fn scan(&self, h: &Host, start: u64, count: usize) -> Result<usize, KvError> {
        let i = &*self.inner;
        let (keys, runs, blocks) = {
            let mut st = i.st.borrow_mut();
            st.stats.scans += 1;
            plan_scan(&st, start, count)
        };
        let mut misses = 0u32;
        for (t, b) in &blocks {
            misses += self.data_block(h, t, *b).await? as u32;
        }
        drop(blocks);
        h.cpu(i.opts.cpu.get(runs, misses, 0) + i.opts.cpu.nexts(keys as u64))
            .await;
        Ok(keys)
    }
}

/// A scan of up to `count` live keys from `start` as RocksDB's merging iterator makes it, over
/// every memtable, each L0 file and each level's files from `start`: (keys read, sorted runs,
/// the (table, block) pairs it reads, in order).
fn plan_scan(st: &State, start: u64, count: usize) -> (usize, u32, Vec<(Rc<Table>, usize)>) {
    let mut mem_keys: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
    for m in st
        .imm
        .iter()
        .map(|m| &*m.mem)
        .chain(std::iter::once(&st.mem))
    {
        for (&k, v) in m.map.range(start..).take(count) {
            mem_keys.insert(k, v.vlen);
        }
    }
    let mut runs = SortedRuns::seek(&st.version, start);
    let mut mem_iter = mem_keys.iter().peekable();
    let mut got = 0usize;
    while got < count {
        let best = runs.smallest();
        let mk = mem_iter.peek().map(|(k, _)| **k);
        let (k, vlen) = match (best, mk) {
            (None, None) => break,
            (b, Some(m)) if b.is_none_or(|b| m <= b.0) => {
                let (_, &v) = mem_iter.next().expect("peeked");
                (m, v)
            }
            (Some((k, si)), _) => {
                let (ti, e) = runs.cursors[si];
                (k, runs.sources[si][ti].entries[e].vlen)
            }
            (None, Some(_)) => unreachable!("covered above"),
        };
        runs.advance_past(k);
        if vlen != TOMBSTONE {
            got += 1;
        }
    }
    (got, runs.sources.len() as u32, runs.touched)
}

/// A scan's position in every sorted run on the device, newest first (L0 newest first, then
/// the levels), and the data blocks it has read.
struct SortedRuns {
    sources: Vec<Vec<Rc<Table>>>,
    /// (table, entry) in each source.
    cursors: Vec<(usize, usize)>,
    touched: Vec<(Rc<Table>, usize)>,
}

impl SortedRuns {
    /// Every run positioned on the first key at or after `start` (each seek reads a block).
    fn seek(v: &version::Version, start: u64) -> Self {
        let mut sources: Vec<Vec<Rc<Table>>> = Vec::new();
        for t in &v.levels[0] {
            if t.largest >= start {
                sources.push(vec![t.clone()]);
            }
        }
        for l in 1..v.num_levels() {
            let files = &v.levels[l];
            let a = files.partition_point(|f| f.largest < start);
            if a < files.len() {
                sources.push(files[a..].to_vec());
            }
        }
        let cursors = sources
            .iter()
            .map(|s| (0usize, s[0].find(start).unwrap_or_else(|x| x)))
            .collect();
        let mut runs = SortedRuns {
            sources,
            cursors,
            touched: Vec::new(),
        };
        for si in 0..runs.sources.len() {
            let (ti, e) = runs.cursors[si];
            if let Some(t) = runs.sources[si].get(ti)
                && e < t.entries.len()
            {
                note(&mut runs.touched, t, e);
            }
        }
        runs
    }

    /// The key source `si` is on, if it has one left.
    fn head(&self, si: usize) -> Option<u64> {
        let (ti, e) = self.cursors[si];
        self.sources[si]
            .get(ti)
            .and_then(|t| t.entries.get(e))
            .map(|x| x.key)
    }

    /// The smallest key any run is on, and the first (newest) run on it.
    fn smallest(&self) -> Option<(u64, usize)> {
        let mut best: Option<(u64, usize)> = None;
        for si in 0..self.sources.len() {
            if let Some(k) = self.head(si)
                && best.is_none_or(|b| k < b.0)
            {
                best = Some((k, si));
            }
        }
        best
    }

    /// Moves every run past `k` (older versions of it are skipped), reading the blocks entered.
    fn advance_past(&mut self, k: u64) {
        for si in 0..self.sources.len() {
            while self.head(si) == Some(k) {
                let (mut ti, mut e) = self.cursors[si];
                e += 1;
                if e >= self.sources[si][ti].entries.len() {
                    ti += 1;
                    e = 0;
                }
                self.cursors[si] = (ti, e);
                if let Some(t) = self.sources[si].get(ti) {
                    note(&mut self.touched, t, e);
                }
            }
        }
    }
}

/// Records in `touched` that a scan reads the block holding entry `e` of `t` (once per block).
fn note(touched: &mut Vec<(Rc<Table>, usize)>, t: &Rc<Table>, e: usize) {
    let b = t.block_of(e);
    if !touched.iter().any(|(x, y)| x.number == t.number && *y == b) {
        touched.push((t.clone(), b));
    }
}

/// Whether a bloom filter with `bits` per key lets `key` through a table that does not hold
/// it. The rate is the standard bloom filter's with the best number of probes,
/// (1 - e^(-k/bits))^k with k = round(bits x ln 2) (0.82% at 10 bits; RocksDB's cache-local
/// filter measures ~0.95%); the draw is a hash of (key, table), so it is the same every time.
pub fn bloom_false_positive(key: u64, table: u64, bits: u32) -> bool {
    let b = bits as f64;
    let k = (b * std::f64::consts::LN_2).round().max(1.0);
    let rate = (1.0 - (-k / b).exp()).powf(k);
    let x = crate::seed::mix_seed(key, table ^ 0xb1_00f);
    (x as f64 / u64::MAX as f64) < rate
}
