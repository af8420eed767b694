//! Background work: the flush threads (memtables to L0 files) and the compaction threads
//! (RocksDB's picking, merged outputs written while the inputs are read), and deleting files
//! once no reader holds them.

use super::*;

impl<F: KvFiles + 'static> Db<F> {
    pub(super) async fn flush_thread(&self, h: &Host) {
        let i = &*self.inner;
        loop {
            let picked = {
                let mut st = i.st.borrow_mut();
                let waiting = st.imm.iter().filter(|m| !m.flushing).count();
                if st.error.is_none()
                    && waiting > 0
                    && (waiting >= i.opts.min_write_buffer_number_to_merge as usize
                        || st.force_flush)
                {
                    let mut mems = Vec::new();
                    for m in st.imm.iter_mut().filter(|m| !m.flushing) {
                        m.flushing = true;
                        mems.push(m.mem.clone());
                    }
                    st.flushes_running += 1;
                    Some(mems)
                } else {
                    None
                }
            };
            match picked {
                None => i.bg_cv.notified(h).await,
                Some(mems) => {
                    if let Err(e) = self.run_flush(h, &mems).await {
                        self.fail(h, &e);
                    }
                    i.st.borrow_mut().flushes_running -= 1;
                    self.recalc_stall();
                    i.bg_cv.notify_all(h);
                    i.stall_cv.notify_all(h);
                    i.idle_cv.notify_all(h);
                }
            }
        }
    }

    async fn run_flush(&self, h: &Host, mems: &[Rc<Memtable>]) -> Result<(), KvError> {
        let i = &*self.inner;
        let newest_first: Vec<&Memtable> = mems.iter().rev().map(|m| &**m).collect();
        let builder = compaction::flush_entries(&newest_first, &i.opts, i.key);
        let entries_in: u64 = mems.iter().map(|m| m.entries).sum();
        let table = match builder {
            Some(b) => {
                let number = {
                    let mut st = i.st.borrow_mut();
                    st.next_file += 1;
                    st.next_file - 1
                };
                let t = b.finish(number, file_path(&i.dir, number, "sst"), 0);
                let cpu = i.opts.cpu.flush(t.entries.len() as u64, t.file_size());
                self.write_table(h, &t, WriteHint::Medium, cpu, None)
                    .await?;
                i.files.sync_dir(h, &i.dir).await?;
                i.st.borrow_mut().stats.flush_cpu_ns += cpu.ns();
                Some(Rc::new(t))
            }
            None => None,
        };
        let old_logs = {
            let mut st = i.st.borrow_mut();
            let st = &mut *st;
            if let Some(t) = &table {
                st.stats.flush_bytes += t.file_size();
                st.stats.flush_entries_out += t.entries.len() as u64;
                st.version.add(0, t.clone());
            }
            st.stats.flushes += 1;
            st.stats.flush_entries_in += entries_in;
            st.imm
                .retain(|m| !mems.iter().any(|x| Rc::ptr_eq(x, &m.mem)));
            // Logs older than every unflushed memtable's are obsolete.
            let keep = st
                .imm
                .iter()
                .map(|m| m.mem.log_number)
                .chain(std::iter::once(st.mem.log_number))
                .min()
                .unwrap_or(u64::MAX);
            let (old, live): (Vec<_>, Vec<_>) = std::mem::take(&mut st.logs)
                .into_iter()
                .partition(|l| l.0 < keep);
            st.logs = live;
            old
        };
        self.recalc_stall();
        i.bg_cv.notify_all(h);
        i.stall_cv.notify_all(h);
        for (_, path) in old_logs {
            i.files.delete(h, &path).await?;
            i.st.borrow_mut().stats.files_deleted += 1;
        }
        Ok(())
    }

    /// Writes table `t` as a new file: appends of `writable_file_max_buffer_size` with the
    /// job's CPU spread over them, reading `inputs` (a compaction's) along the way; then sync,
    /// close, and open it for reading (its tail: index, filter, footer).
    async fn write_table(
        &self,
        h: &Host,
        t: &Table,
        hint: WriteHint,
        cpu: Duration,
        mut inputs: Option<&mut InputReader>,
    ) -> Result<(), KvError> {
        let i = &*self.inner;
        let handle = i.files.create(h, &t.path, hint).await?;
        let size = t.file_size();
        let chunk = i.opts.writable_file_max_buffer_size;
        let mut written = 0u64;
        while written < size {
            let n = chunk.min(size - written);
            if let Some(r) = inputs.as_deref_mut() {
                r.read_to(self, h, n).await?;
            }
            h.cpu(Duration::from_ns(
                (cpu.ns() as u128 * n as u128 / size as u128) as u64,
            ))
            .await;
            i.files.append(h, handle, n, None).await?;
            written += n;
        }
        self.count_hint(hint, size);
        i.files.sync(h, handle).await?;
        i.files.close(h, handle).await?;
        let reader = i.files.open(h, &t.path).await?;
        i.files
            .read(h, reader, t.sizes.data, t.tail_bytes())
            .await?;
        t.reader.set(Some(reader));
        let mut st = i.st.borrow_mut();
        st.stats.table_opens += 1;
        st.stats.table_open_read_bytes += t.tail_bytes();
        Ok(())
    }

    // ---- compactions ----

    fn compaction_slots(&self, st: &State) -> u32 {
        let (_, max) = self.inner.opts.job_limits();
        if st.speedup { max } else { 1 }
    }

    pub(super) async fn compaction_thread(&self, h: &Host) {
        let i = &*self.inner;
        loop {
            let picked = {
                let mut st = i.st.borrow_mut();
                if st.error.is_some() || st.compactions_running >= self.compaction_slots(&st) {
                    None
                } else {
                    let running: Vec<Running> = st.running.iter().map(|r| r.1).collect();
                    let c = Picker {
                        v: &st.version,
                        opts: &i.opts,
                        running: &running,
                    }
                    .pick();
                    c.map(|c| {
                        for t in c.all_inputs() {
                            t.being_compacted.set(true);
                        }
                        let id = st.next_job;
                        st.next_job += 1;
                        st.running.push((
                            id,
                            Running {
                                start_level: c.start_level,
                                output_level: c.output_level,
                                smallest: c.smallest,
                                largest: c.largest,
                            },
                        ));
                        st.compactions_running += 1;
                        (id, c)
                    })
                }
            };
            match picked {
                None => i.bg_cv.notified(h).await,
                Some((id, c)) => {
                    let r = self.run_compaction(h, &c).await;
                    {
                        let mut st = i.st.borrow_mut();
                        st.running.retain(|r| r.0 != id);
                        st.compactions_running -= 1;
                        for t in c.all_inputs() {
                            t.being_compacted.set(false);
                        }
                    }
                    drop(c);
                    let r = match r {
                        Ok(()) => self.purge(h).await,
                        e => e,
                    };
                    if let Err(e) = r {
                        self.fail(h, &e);
                    }
                    self.recalc_stall();
                    i.bg_cv.notify_all(h);
                    i.stall_cv.notify_all(h);
                    i.idle_cv.notify_all(h);
                }
            }
        }
    }

    async fn run_compaction(&self, h: &Host, c: &Compaction) -> Result<(), KvError> {
        let i = &*self.inner;
        if c.trivial_move {
            let mut st = i.st.borrow_mut();
            for t in &c.inputs {
                st.version.remove(c.start_level, t.number);
                st.version.add(c.output_level, t.clone());
                st.stats.trivial_move_files += 1;
                st.stats.trivial_move_bytes += t.file_size();
            }
            st.stats.trivial_moves += 1;
            return Ok(());
        }
        let merged = {
            let st = i.st.borrow();
            compaction::merge(c, &st.version, &i.opts, i.key)
        };
        let mut tables = Vec::with_capacity(merged.tables.len());
        for b in merged.tables {
            let number = {
                let mut st = i.st.borrow_mut();
                st.next_file += 1;
                st.next_file - 1
            };
            tables.push(b.finish(number, file_path(&i.dir, number, "sst"), c.output_level));
        }
        let out_bytes: u64 = tables.iter().map(|t| t.file_size()).sum();
        let mut reader = InputReader::new(c, out_bytes, i.opts.compaction_readahead_size);
        let hint = hint_for_level(c.output_level);
        let mut cpu_total = 0u64;
        for t in &tables {
            let cpu = i.opts.cpu.compaction(t.entries.len() as u64, t.file_size());
            cpu_total += cpu.ns();
            self.write_table(h, t, hint, cpu, Some(&mut reader)).await?;
        }
        reader.finish(self, h).await?;
        i.files.sync_dir(h, &i.dir).await?;
        let mut st = i.st.borrow_mut();
        let st = &mut *st;
        for t in c.all_inputs() {
            let level = if c.inputs.iter().any(|x| Rc::ptr_eq(x, t)) {
                c.start_level
            } else {
                c.output_level
            };
            if let Some(t) = st.version.remove(level, t.number) {
                st.obsolete.push(t);
            }
        }
        let files = tables.len() as u64;
        for t in tables {
            st.version.add(c.output_level, Rc::new(t));
        }
        let s = &mut st.stats;
        s.compactions += 1;
        if c.output_level == 0 {
            s.intra_l0_compactions += 1;
        }
        s.compaction_read_bytes += c.input_bytes();
        s.compaction_write_bytes += out_bytes;
        s.compaction_output_files += files;
        s.compaction_input_records += merged.input_entries;
        s.compaction_output_records += merged.output_entries;
        s.compaction_cpu_ns += cpu_total;
        let by = &mut s.compactions_by_output_level[c.output_level];
        by.compactions += 1;
        by.output_files += files;
        by.output_bytes += out_bytes;
        Ok(())
    }

    /// Deletes obsolete tables no reader holds any more.
    pub(super) async fn purge(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        let gone: Vec<Rc<Table>> = {
            let mut st = i.st.borrow_mut();
            let (gone, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut st.obsolete)
                .into_iter()
                .partition(|t| Rc::strong_count(t) == 1);
            st.obsolete = keep;
            gone
        };
        for t in gone {
            if let Some(r) = t.reader.take() {
                i.files.close(h, r).await?;
            }
            i.files.delete(h, &t.path).await?;
            i.st.borrow_mut().stats.files_deleted += 1;
        }
        Ok(())
    }

    /// Checks the tree's invariants (tests): levels above L0 sorted and disjoint.
    pub fn check(&self) -> Result<(), String> {
        self.inner.st.borrow().version.check()
    }
}

/// Reads a compaction's input files in order, in readahead-sized pieces, keeping pace with the
/// bytes written.
struct InputReader {
    files: Vec<(FileHandle, u64)>,
    file: usize,
    offset: u64,
    read: u64,
    input_bytes: u64,
    output_bytes: u64,
    written: u64,
    chunk: u64,
}

impl InputReader {
    fn new(c: &Compaction, output_bytes: u64, readahead: u64) -> Self {
        let mut files: Vec<&Rc<Table>> = c.all_inputs().collect();
        files.sort_by_key(|t| (t.smallest, t.number));
        InputReader {
            files: files
                .iter()
                .map(|t| {
                    (
                        t.reader.get().expect("input tables have readers"),
                        t.file_size(),
                    )
                })
                .collect(),
            file: 0,
            offset: 0,
            read: 0,
            input_bytes: c.input_bytes(),
            output_bytes: output_bytes.max(1),
            written: 0,
            chunk: if readahead > 0 { readahead } else { 128 << 10 },
        }
    }

    /// Reads what writing `n` more output bytes needs.
    async fn read_to<F: KvFiles + 'static>(
        &mut self,
        db: &Db<F>,
        h: &Host,
        n: u64,
    ) -> Result<(), KvError> {
        self.written += n;
        let due = (self.input_bytes as u128 * self.written.min(self.output_bytes) as u128
            / self.output_bytes as u128) as u64;
        self.read_until(db, h, due).await
    }

    async fn read_until<F: KvFiles + 'static>(
        &mut self,
        db: &Db<F>,
        h: &Host,
        due: u64,
    ) -> Result<(), KvError> {
        while self.read < due && self.file < self.files.len() {
            let (handle, size) = self.files[self.file];
            let n = self.chunk.min(size - self.offset);
            db.inner.files.read(h, handle, self.offset, n).await?;
            self.offset += n;
            self.read += n;
            if self.offset >= size {
                self.file += 1;
                self.offset = 0;
            }
        }
        Ok(())
    }

    async fn finish<F: KvFiles + 'static>(&mut self, db: &Db<F>, h: &Host) -> Result<(), KvError> {
        let all = self.input_bytes;
        self.read_until(db, h, all).await
    }
}
