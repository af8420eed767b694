#!/usr/bin/env python3
"""Reference measurements of real RocksDB (Debian's db_bench 7.8.3) for ZoneLab's key-value model.

Runs Debian's /usr/bin/db_bench on a plain directory (tmpfs /dev/shm by default), parses what it
reports and prints one JSON object per case on stdout. Two suites:

* validation (default): fillrandom on a fresh DB, overwrite on that DB, (with `--cases ...,mixgraph`)
  mixgraph on that DB, fillseq on a fresh DB, at a scaled-down size that still builds L0, L1
  and L2. Every case ends with the db_bench meta
  benchmarks `flush` (memtable to L0) and `waitforcompaction` (db_bench sleeps 5 s, then polls
  until no flush or compaction is pending or running), so the counters describe a settled tree
  and do not depend on what happened to be in flight at exit. The counters are defined in
  docs/rocksdb-reference.md; the model must define its own identically.
* cpu: CPU time per operation of the db_bench worker thread for fillrandom, overwrite,
  readrandom (every data block from the block cache, and with no block cache so every Get reads
  its data block from the tmpfs file), and a 50/50 Get/Put mix (readrandomwriterandom) with a
  warm block cache, at value sizes 100 and 1000 B and key counts 100k, 1M, 4M, with db_bench's
  default options apart from compression none.

CPU per thread is sampled from /proc/<pid>/task/<tid>/schedstat (ns on CPU) and .../stat
(utime/stime in clock ticks) every 10 ms; whole-process user/sys CPU comes from getrusage of the
child. Only the Python standard library is used.
"""

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time

DB_BENCH = "/usr/bin/db_bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")
POLL_S = 0.010
# Archive obsolete WAL files instead of deleting them, so their physical size can be summed.
# Renaming instead of unlinking changes no byte that RocksDB writes.
WAL_TTL_S = 1_000_000

# The validation suite's db_bench options but the LSM sizes, which come from its shape
# (BASE_LSM below, chosen: 4 MiB memtables and SST targets, a 16 MiB L1 and x10 per level, where
# 1M random puts of 16+100 B leave ~630k distinct keys (~85 MB of
# SST) in L1 and L2 after 36 flushes and ~22 compactions, in about 3 s of writing).
VALIDATION_OPTIONS = [
    "--key_size=16",
    "--max_write_buffer_number=2",
    "--min_write_buffer_number_to_merge=1",
    "--target_file_size_multiplier=1",
    "--num_levels=7",
    "--max_background_jobs=2",
    "--subcompactions=1",
    "--compaction_pri=3",
    "--level_compaction_dynamic_level_bytes=false",
    "--threads=1",
    "--sync=false",
    "--disable_wal=false",
    "--statistics",
    "--stats_level=3",
    "--progress_reports=false",
]

# LSM shapes of the validation suite (chosen), each BASE_LSM with these changed:
# key counts, value sizes, memtable/file/L1 sizes, level multiplier and L0 trigger, so that the
# model is checked where real RocksDB's tree takes another shape, not only at one point.
BASE_LSM = {
    "write_buffer_size": 4194304, "target_file_size_base": 4194304,
    "max_bytes_for_level_base": 16777216, "max_bytes_for_level_multiplier": 10,
    "level0_file_num_compaction_trigger": 4, "level0_slowdown_writes_trigger": 20,
    "level0_stop_writes_trigger": 36,
}
SHAPES = {
    "base": {"num": 1_000_000, "value_size": 100},
    # 4x the keys: one level more (L3) and 4x the compactions.
    "keys-4m": {"num": 4_000_000, "value_size": 100},
    # 1 MiB memtables and files, 4 MiB L1: more, smaller flushes and a deeper tree.
    "small-buffers": {"num": 1_000_000, "value_size": 100, "write_buffer_size": 1048576,
                      "target_file_size_base": 1048576, "max_bytes_for_level_base": 4194304},
    "value-32": {"num": 2_000_000, "value_size": 32},
    "value-400": {"num": 400_000, "value_size": 400},
    # A fan-out of 4 and an L0 trigger of 8: more levels, bigger L0 compactions.
    "fanout-4-l0-8": {"num": 1_000_000, "value_size": 100,
                      "max_bytes_for_level_multiplier": 4,
                      "level0_file_num_compaction_trigger": 8},
}


# The mixgraph case (chosen): db_bench's mixgraph on the tree fillrandom and overwrite left,
# `num` operations, half gets and half puts, no seeks, with the ZippyDB-like key and value
# distributions of Cao et al., "Characterizing, Modeling, and Benchmarking RocksDB Key-Value
# Workloads at Facebook", FAST 2020 (the values RocksDB's wiki gives for mixgraph; the model's
# defaults, workload::kv::dbbench::MixGraph). Half puts, so the case flushes and compacts;
# no seeks and no sine-shaped rate, which would tie the run to wall time.
MIXGRAPH_OPTIONS = [
    "--mix_get_ratio=0.5", "--mix_put_ratio=0.5", "--mix_seek_ratio=0",
    "--key_dist_a=0.002312", "--key_dist_b=0.3467",
    "--keyrange_dist_a=14.18", "--keyrange_dist_b=-2.917", "--keyrange_dist_c=0.0164",
    "--keyrange_dist_d=-0.08082", "--keyrange_num=30",
    "--value_k=0.2615", "--value_sigma=25.45", "--iter_k=2.517", "--iter_sigma=14.236",
]
# mixgraph's operations per key of the shape (chosen: 2, so ~1M puts make ~20 flushes and
# both L0->L1 and L1->L2 compactions; at 1 operation per key L1 ended within 1% of its 16 MiB
# target, where one more L1->L2 compaction or none is a matter of a few keys).
MIXGRAPH_OPS_PER_KEY = 2
MIXGRAPH_RE = re.compile(r"Gets:(\d+) Puts:(\d+) Seek:(\d+), reads (\d+) in (\d+) found")


def shape_lsm(shape):
    return {k: shape.get(k, v) for k, v in BASE_LSM.items()}


# Options file entries worth recording beside the counters (what db_bench actually set).
OPTION_KEYS = [
    "write_buffer_size", "max_write_buffer_number", "min_write_buffer_number_to_merge",
    "target_file_size_base", "target_file_size_multiplier", "max_bytes_for_level_base",
    "max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger",
    "level0_slowdown_writes_trigger", "level0_stop_writes_trigger", "num_levels",
    "max_compaction_bytes", "max_background_jobs", "max_background_flushes",
    "max_background_compactions", "compaction_pri", "compression", "block_size",
    "filter_policy", "level_compaction_dynamic_level_bytes", "soft_pending_compaction_bytes_limit",
    "hard_pending_compaction_bytes_limit", "writable_file_max_buffer_size", "bytes_per_sync",
    "wal_bytes_per_sync", "manual_wal_flush", "enable_pipelined_write", "format_version",
    "index_type", "whole_key_filtering", "max_open_files", "compaction_readahead_size",
    "delayed_write_rate", "max_subcompactions", "allow_concurrent_memtable_write",
]


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------- running db_bench


def read_thread(pid, tid):
    """(name, ns on CPU, utime ticks, stime ticks) of one thread, or None if it is gone."""
    base = f"/proc/{pid}/task/{tid}"
    try:
        with open(f"{base}/stat") as f:
            stat = f.read()
        with open(f"{base}/schedstat") as f:
            ns = int(f.read().split()[0])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None
    name = stat[stat.index("(") + 1: stat.rindex(")")]
    rest = stat[stat.rindex(")") + 2:].split()
    # Fields 14 and 15 of stat (utime, stime); rest starts at field 3.
    return name, ns, int(rest[11]), int(rest[12])


def run_db_bench(args):
    """Runs db_bench with args; returns stdout and per-thread and whole-process CPU."""
    cmd = [DB_BENCH] + args
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    threads = {}  # tid -> dict(name, ns, utime, stime, order)
    order = 0
    # Read stdout in a helper thread so a full pipe never blocks db_bench.
    out_chunks, err_chunks = [], []
    t_out = threading.Thread(target=lambda: out_chunks.append(p.stdout.read()))
    t_err = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()))
    t_out.start()
    t_err.start()
    while p.poll() is None:
        try:
            tids = os.listdir(f"/proc/{p.pid}/task")
        except FileNotFoundError:
            tids = []
        for tid in tids:
            s = read_thread(p.pid, tid)
            if s is None:
                continue
            t = threads.get(int(tid))
            if t is None:
                t = threads[int(tid)] = {"order": order}
                order += 1
            t.update(name=s[0], ns=s[1], utime=s[2], stime=s[3])
        time.sleep(POLL_S)
    wall = time.monotonic() - t0
    t_out.join()
    t_err.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = out_chunks[0] if out_chunks else ""
    err = err_chunks[0] if err_chunks else ""
    if p.returncode != 0:
        fail(f"db_bench exited with {p.returncode}: {' '.join(cmd)}\n{err[-2000:]}\n{out[-2000:]}")
    return {
        "stdout": out,
        "stderr": err,
        "wall_s": wall,
        "user_cpu_s": after.ru_utime - before.ru_utime,
        "sys_cpu_s": after.ru_stime - before.ru_stime,
        "pid": p.pid,
        "threads": threads,
    }


def thread_cpu(run):
    """Splits sampled CPU into main thread, benchmark workers (in start order) and RocksDB's
    background pools. db_bench runs every benchmark in new threads that keep the process name;
    RocksDB names its pools rocksdb:low / rocksdb:high. Threads that used under 5 ms (the
    periodic-task timer) are not workers."""
    main, workers, bg = None, [], {}
    for tid, t in sorted(run["threads"].items(), key=lambda kv: kv[1]["order"]):
        if tid == run["pid"]:
            main = t
        elif t["name"].startswith("rocksdb:"):
            bg.setdefault(t["name"], []).append(t)
        elif t["ns"] >= 5_000_000:
            workers.append(t)
    return main, workers, bg


def cpu_of(ts):
    return {
        "cpu_s": sum(t["ns"] for t in ts) / 1e9,
        "user_cpu_s": sum(t["utime"] for t in ts) / CLK_TCK,
        "sys_cpu_s": sum(t["stime"] for t in ts) / CLK_TCK,
    }


# ---------------------------------------------------------------- parsing db_bench output

BENCH_RE = re.compile(
    r"^(\w+)\s+:\s+([\d.]+) micros/op (\d+) ops/sec ([\d.]+) seconds (\d+) operations;(.*)$",
    re.M,
)


def parse_bench_lines(out):
    res = []
    for m in BENCH_RE.finditer(out):
        res.append({
            "benchmark": m.group(1),
            "micros_per_op": float(m.group(2)),
            "ops_per_sec": int(m.group(3)),
            "seconds": float(m.group(4)),
            "ops": int(m.group(5)),
            "message": m.group(6).strip(),
        })
    return res


def parse_statistics(out):
    tickers, hists = {}, {}
    if "STATISTICS:" not in out:
        fail("db_bench printed no STATISTICS (was --statistics passed?)")
    for line in out.split("STATISTICS:", 1)[1].splitlines():
        m = re.match(r"^(rocksdb\.[\w.]+) COUNT : (\d+)$", line)
        if m:
            tickers[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r"^(rocksdb\.[\w.]+) P50 : .* COUNT : (\d+) SUM : (\d+)$", line)
        if m:
            hists[m.group(1)] = {"count": int(m.group(2)), "sum": int(m.group(3))}
    return tickers, hists


def parse_sstables(out):
    """The `sstables` meta benchmark prints rocksdb.sstables: '--- level N ---' then one line
    per live file, ' <number>:<size>[...'."""
    levels = {}
    cur = None
    for line in out.splitlines():
        m = re.match(r"^--- level (\d+) --- version# \d+ ---$", line)
        if m:
            cur = int(m.group(1))
            levels[cur] = []
            continue
        m = re.match(r"^ (\d+):(\d+)\[", line)
        if m and cur is not None:
            levels[cur].append((int(m.group(1)), int(m.group(2))))
    if not levels:
        fail("no sstables output found")
    n = max(levels) + 1
    return ([len(levels.get(i, [])) for i in range(n)],
            [sum(s for _, s in levels.get(i, [])) for i in range(n)])


def parse_log(path):
    events, stall_warnings = [], {"slowdown": 0, "stop": 0}
    with open(path, errors="replace") as f:
        for line in f:
            if "EVENT_LOG_v1 " in line:
                events.append(json.loads(line.split("EVENT_LOG_v1 ", 1)[1]))
            elif "Stalling writes because" in line:
                stall_warnings["slowdown"] += 1
            elif "Stopping writes because" in line:
                stall_warnings["stop"] += 1
    return events, stall_warnings


def summarize_events(events):
    flush_jobs = {e["job"] for e in events if e["event"] == "flush_started"}
    created = [e for e in events if e["event"] == "table_file_creation"]
    started = [e for e in events if e["event"] == "compaction_started"]
    finished = [e for e in events if e["event"] == "compaction_finished"]
    moves = [e for e in events if e["event"] == "trivial_move"]
    by_out = {}
    for e in finished:
        lvl = str(e["output_level"])
        d = by_out.setdefault(lvl, {"compactions": 0, "output_files": 0, "output_bytes": 0})
        d["compactions"] += 1
        d["output_files"] += e["num_output_files"]
        d["output_bytes"] += e["total_output_size"]
    reasons = {}
    for e in started:
        reasons[e["compaction_reason"]] = reasons.get(e["compaction_reason"], 0) + 1
    flush_files = [e for e in created if e["job"] in flush_jobs]
    full = [e for e in events
            if e["event"] == "flush_started" and e["flush_reason"] == "Write Buffer Full"]
    flush_reasons = {}
    for e in events:
        if e["event"] == "flush_started":
            flush_reasons[e["flush_reason"]] = flush_reasons.get(e["flush_reason"], 0) + 1
    mean = lambda k: round(statistics.mean(e[k] for e in full), 1) if full else None  # noqa: E731
    return {
        "flush_reasons": flush_reasons,
        "memtable_full_entries_mean": mean("num_entries"),
        "memtable_full_data_bytes_mean": mean("total_data_size"),
        "memtable_full_memory_bytes_mean": mean("memory_usage"),
        "flushes": len([e for e in events if e["event"] == "flush_finished"]),
        "flush_bytes": sum(e["file_size"] for e in flush_files),
        "flush_files": len(flush_files),
        "flush_entries_in": sum(e["num_entries"] for e in events if e["event"] == "flush_started"),
        "flush_entries_out": sum(e["table_properties"]["num_entries"] for e in flush_files),
        "compactions": len(finished),
        "compaction_input_bytes": sum(e["input_data_size"] for e in started),
        "compaction_write_bytes_log": sum(e["total_output_size"] for e in finished),
        "compaction_output_files": sum(e["num_output_files"] for e in finished),
        "compaction_input_records": sum(e["num_input_records"] for e in finished),
        "compaction_output_records": sum(e["num_output_records"] for e in finished),
        "compaction_cpu_s": sum(e["compaction_time_cpu_micros"] for e in finished) / 1e6,
        "compactions_by_output_level": by_out,
        "compaction_reasons": reasons,
        "trivial_moves": len(moves),
        "trivial_move_files": sum(e["files"] for e in moves),
        "trivial_move_bytes": sum(e["total_files_size"] for e in moves),
        "data_block_bytes_flushed": sum(e["table_properties"]["data_size"] for e in flush_files),
        "index_bytes_flushed": sum(e["table_properties"]["index_size"] for e in flush_files),
    }


def parse_options(db):
    files = sorted(f for f in os.listdir(db) if f.startswith("OPTIONS-"))
    if not files:
        return {}
    opts = {}
    with open(os.path.join(db, files[-1])) as f:
        for line in f:
            m = re.match(r"^\s*(\w+)=(.*)$", line)
            if m and m.group(1) in OPTION_KEYS and m.group(1) not in opts:
                opts[m.group(1)] = m.group(2)
    return opts


# ---------------------------------------------------------------- WAL files


def log_sizes(db):
    sizes = {}
    for d in (db, os.path.join(db, "archive")):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".log"):
                    sizes[f] = os.path.getsize(os.path.join(d, f))
    return sizes


# ---------------------------------------------------------------- validation suite


def validation_case(name, db, shape, compression, seed, fresh):
    bench = name
    num, value_size, lsm = shape["num"], shape["value_size"], shape_lsm(shape)
    mix = MIXGRAPH_OPTIONS + [f"--reads={MIXGRAPH_OPS_PER_KEY * num}"] if name == "mixgraph" else []
    flags = VALIDATION_OPTIONS + [f"--{k}={v}" for k, v in lsm.items()] + mix + [
        f"--num={num}",
        f"--value_size={value_size}",
        f"--compression_type={compression}",
        f"--seed={seed}",
        f"--wal_ttl_seconds={WAL_TTL_S}",
        f"--use_existing_db={'false' if fresh else 'true'}",
        f"--benchmarks={bench},flush,waitforcompaction,sstables",
    ]
    if fresh and os.path.exists(db):
        shutil.rmtree(db)
    if not fresh:
        # Archived WAL of the previous case is not part of this one.
        shutil.rmtree(os.path.join(db, "archive"), ignore_errors=True)
    logs_before = log_sizes(db) if os.path.isdir(db) else {}
    run = run_db_bench([f"--db={db}"] + flags)
    out = run["stdout"]
    benches = [b for b in parse_bench_lines(out) if b["benchmark"] == bench]
    if len(benches) != 1:
        fail(f"expected one '{bench}' result line in db_bench output")
    b = benches[0]
    tickers, hists = parse_statistics(out)
    files, bytes_ = parse_sstables(out)
    events, stall_warnings = parse_log(os.path.join(db, "LOG"))
    ev = summarize_events(events)
    logs_after = log_sizes(db)
    wal_file_bytes = sum(s - logs_before.get(f, 0) for f, s in logs_after.items())
    main, workers, bg = thread_cpu(run)
    if len(workers) != 1:
        fail(f"expected one db_bench worker thread, found {len(workers)}")
    w = cpu_of(workers)
    bg_all = [t for ts in bg.values() for t in ts]
    t = lambda k: tickers.get(k, 0)  # noqa: E731
    h = lambda k: hists.get(k, {"count": 0})["count"]  # noqa: E731
    res = {
        "case": name,
        "shape": shape["name"],
        "lsm": lsm,
        "compression": compression,
        "flags": " ".join(flags),
        "num": num,
        "key_size": 16,
        "value_size": value_size,
        "user_bytes": num * (16 + value_size),
        "writes": t("rocksdb.number.keys.written"),
        "batch_bytes": t("rocksdb.bytes.written"),
        "wal_bytes": t("rocksdb.wal.bytes"),
        "wal_file_bytes": wal_file_bytes,
        "flush_bytes": ev["flush_bytes"],
        "flush_write_bytes_ticker": t("rocksdb.flush.write.bytes"),
        "compaction_read_bytes": ev["compaction_input_bytes"],
        "compaction_read_bytes_ticker": t("rocksdb.compact.read.bytes"),
        "compaction_write_bytes": t("rocksdb.compact.write.bytes"),
        "compaction_write_bytes_log": ev["compaction_write_bytes_log"],
        "flushes": ev["flushes"],
        "flushes_histogram": h("rocksdb.db.flush.micros"),
        "compactions": ev["compactions"],
        "compactions_histogram": h("rocksdb.compaction.times.micros"),
        "trivial_moves": ev["trivial_moves"],
        "trivial_move_files": ev["trivial_move_files"],
        "trivial_move_bytes": ev["trivial_move_bytes"],
        "compactions_picked_histogram": h("rocksdb.numfiles.in.singlecompaction"),
        "compactions_by_output_level": ev["compactions_by_output_level"],
        "compaction_reasons": ev["compaction_reasons"],
        "flush_files": ev["flush_files"],
        "flush_reasons": ev["flush_reasons"],
        "memtable_full_entries_mean": ev["memtable_full_entries_mean"],
        "memtable_full_data_bytes_mean": ev["memtable_full_data_bytes_mean"],
        "memtable_full_memory_bytes_mean": ev["memtable_full_memory_bytes_mean"],
        "flush_entries_in": ev["flush_entries_in"],
        "flush_entries_out": ev["flush_entries_out"],
        "flush_data_block_bytes": ev["data_block_bytes_flushed"],
        "flush_index_bytes": ev["index_bytes_flushed"],
        "compaction_output_files": ev["compaction_output_files"],
        "compaction_input_records": ev["compaction_input_records"],
        "compaction_output_records": ev["compaction_output_records"],
        "files_per_level": files,
        "bytes_per_level": bytes_,
        "stall_micros": t("rocksdb.stall.micros"),
        "stall_warnings": stall_warnings,
        "wall_s": b["seconds"],
        "process_wall_s": round(run["wall_s"], 3),
        "user_cpu_s": round(run["user_cpu_s"], 3),
        "sys_cpu_s": round(run["sys_cpu_s"], 3),
        "micros_per_op": b["micros_per_op"],
        "worker_cpu_s": round(w["cpu_s"], 3),
        "worker_user_cpu_s": round(w["user_cpu_s"], 3),
        "worker_sys_cpu_s": round(w["sys_cpu_s"], 3),
        "worker_cpu_us_per_op": round(w["cpu_s"] * 1e6 / b["ops"], 3),
        "background_cpu_s": round(cpu_of(bg_all)["cpu_s"], 3),
        "background_cpu_s_by_pool": {k: round(cpu_of(v)["cpu_s"], 3) for k, v in bg.items()},
        "compaction_cpu_s_log": round(ev["compaction_cpu_s"], 3),
        "main_cpu_s": round(main["ns"] / 1e9, 3) if main else None,
        "options": parse_options(db),
    }
    if name == "mixgraph":
        m = MIXGRAPH_RE.search(b["message"])
        if not m:
            fail(f"no Gets/Puts/found counts in mixgraph's result line: {b['message']!r}")
        res["gets"], res["puts"] = int(m.group(1)), int(m.group(2))
        res["gets_found"] = int(m.group(4))
    return res


def validation_suite(a, emit):
    db = os.path.join(a.dir, "validation")
    results = []
    for shape_name in a.shapes:
        shape = dict(SHAPES[shape_name], name=shape_name)
        if a.num is not None:
            shape["num"] = a.num
        if a.value_size is not None:
            shape["value_size"] = a.value_size
        for r in range(a.runs):
            for name, seed, fresh in (("fillrandom", 1, True), ("overwrite", 2, False),
                                      ("mixgraph", 3, False), ("fillseq", 1, True)):
                if name not in a.cases:
                    continue
                if name == "overwrite" and "fillrandom" not in a.cases:
                    fail("overwrite runs on the DB fillrandom leaves; keep fillrandom in --cases")
                if name == "mixgraph" and not {"fillrandom", "overwrite"} <= set(a.cases):
                    fail("mixgraph runs on the DB fillrandom and overwrite leave; keep both in "
                         "--cases")
                res = validation_case(name, db, shape, a.compression, seed, fresh)
                res["run"] = r + 1
                results.append(res)
                emit(res)
        shutil.rmtree(db, ignore_errors=True)
        if a.runs > 1:
            for name in a.cases:
                rs = [x for x in results if x["case"] == name and x["shape"] == shape_name]
                emit(spread(name, rs))
    return results


SPREAD_FIELDS = [
    "wal_bytes", "wal_file_bytes", "flush_bytes", "compaction_read_bytes",
    "compaction_write_bytes", "flushes", "compactions", "trivial_moves", "stall_micros",
    "wall_s", "user_cpu_s", "sys_cpu_s", "micros_per_op", "worker_cpu_us_per_op",
    "background_cpu_s",
]


def spread(name, rs):
    s = {"case": name, "summary": True, "runs": len(rs)}
    for k in SPREAD_FIELDS:
        v = [x[k] for x in rs]
        mean = statistics.mean(v)
        s[k] = {"min": min(v), "max": max(v), "mean": round(mean, 3),
                "range_pct_of_mean": round(100 * (max(v) - min(v)) / mean, 2) if mean else 0.0}
    s["files_per_level"] = [x["files_per_level"] for x in rs]
    s["bytes_per_level"] = [x["bytes_per_level"] for x in rs]
    return s


# ---------------------------------------------------------------- cpu suite

CPU_CONFIGS = [  # (num, value_size), chosen
    (1_000_000, 100),
    (1_000_000, 1000),
    (100_000, 100),
    (4_000_000, 100),
]


def cpu_process(db, flags, benches, labels, shape=None):
    run = run_db_bench([f"--db={db}"] + flags)
    if shape is not None:
        shape.extend(parse_sstables(run["stdout"]))
    lines = parse_bench_lines(run["stdout"])
    if [b["benchmark"] for b in lines] != benches:
        fail(f"unexpected benchmark lines: {[b['benchmark'] for b in lines]}")
    _, workers, _ = thread_cpu(run)
    if len(workers) != len(benches):
        fail(f"expected {len(benches)} worker threads, found {len(workers)}")
    tickers, hists = parse_statistics(run["stdout"])
    out = []
    for label, b, w in zip(labels, lines, workers):
        c = cpu_of([w])
        out.append({
            "case": f"cpu/{label}",
            "benchmark": b["benchmark"],
            "flags": " ".join(flags),
            "ops": b["ops"],
            "micros_per_op": b["micros_per_op"],
            "wall_s": b["seconds"],
            "worker_cpu_s": round(c["cpu_s"], 3),
            "worker_user_cpu_s": round(c["user_cpu_s"], 3),
            "worker_sys_cpu_s": round(c["sys_cpu_s"], 3),
            "cpu_us_per_op": round(c["cpu_s"] * 1e6 / b["ops"], 3),
            "user_us_per_op": round(c["user_cpu_s"] * 1e6 / b["ops"], 3),
            "sys_us_per_op": round(c["sys_cpu_s"] * 1e6 / b["ops"], 3),
            "message": b["message"],
        })
    if benches == ["readrandom"]:
        # A process that only reads: its statistics describe these Gets alone. Without a block
        # cache every data block a Get looks at is one file read (index blocks stay in the
        # table readers, there are no filters), so this is the number of SST files probed.
        ops = lines[0]["ops"]
        out[0]["sst_block_reads_per_op"] = round(
            hists.get("rocksdb.sst.read.micros", {"count": 0})["count"] / ops, 4)
        for k in ("memtable.hit", "l0.hit", "l1.hit", "l2andup.hit"):
            out[0][f"{k.replace('.', '_')}_per_op"] = round(tickers.get(f"rocksdb.{k}", 0) / ops,
                                                            4)
    return out


def cpu_case(db, num, value_size, compression):
    """Three db_bench processes on one DB.
    1. Fresh DB, 4 GiB block cache, --seed=1: fillrandom, overwrite, flush, waitforcompaction,
       then readrandom twice: the first fills the block cache, the second hits it; sstables
       records the tree the reads ran on.
    2. Same DB, no block cache (--cache_size=0), --seed=4: readrandom. Every Get reads its data
       block from the file (tmpfs page cache): the cost of a block cache miss. db_bench seeds a
       benchmark's thread with seed + (its thread count in the process), so seed 4 + 1 replays
       exactly the keys of the second readrandom of process 1 (seed 1 + 4) on the same tree.
    3. Same DB, 4 GiB block cache, --seed=11: readrandom to fill the cache, then a 50/50 Get/Put
       mix (readrandomwriterandom)."""
    reads = min(num, 1_000_000)
    common = [
        "--key_size=16", f"--value_size={value_size}", f"--num={num}", f"--reads={reads}",
        f"--compression_type={compression}", "--threads=1", "--statistics",
        "--progress_reports=false", "--readwritepercent=50",
    ]
    if os.path.exists(db):
        shutil.rmtree(db)
    big_cache = "--cache_size=4294967296"
    shape = []
    out = cpu_process(
        db, common + [big_cache, "--seed=1", "--use_existing_db=false",
                      "--benchmarks=fillrandom,overwrite,flush,waitforcompaction,"
                      "readrandom,readrandom,sstables"],
        ["fillrandom", "overwrite", "readrandom", "readrandom"],
        ["fillrandom", "overwrite", "readrandom_filling_cache", "readrandom_cached"], shape)
    out += cpu_process(
        db, common + ["--cache_size=0", "--seed=4", "--use_existing_db=true",
                      "--benchmarks=readrandom"],
        ["readrandom"], ["readrandom_no_block_cache"])
    out += cpu_process(
        db, common + [big_cache, "--seed=11", "--use_existing_db=true",
                      "--benchmarks=readrandom,readrandomwriterandom"],
        ["readrandom", "readrandomwriterandom"],
        ["readrandom_filling_cache_2", "readrandomwriterandom_50_cached"])
    for o in out:
        o.update(num=num, key_size=16, value_size=value_size)
        # The tree the reads of processes 1 and 2 saw (settled; process 3 writes on top).
        o["files_per_level_before_reads"], o["bytes_per_level_before_reads"] = shape
    shutil.rmtree(db, ignore_errors=True)
    return out


def cpu_suite(a, emit):
    db = os.path.join(a.dir, "cpu")
    results = []
    for r in range(a.runs):
        for num, vs in a.cpu_configs:
            for res in cpu_case(db, num, vs, a.compression):
                res["run"] = r + 1
                results.append(res)
                emit(res)
    return results


# ---------------------------------------------------------------- aggregation

VALIDATION_FIELDS = [
    "user_bytes", "writes", "batch_bytes", "wal_bytes", "wal_file_bytes", "flush_bytes",
    "flush_write_bytes_ticker", "compaction_read_bytes", "compaction_read_bytes_ticker",
    "compaction_write_bytes", "flushes", "compactions", "trivial_moves", "trivial_move_files",
    "trivial_move_bytes", "flush_files", "flush_entries_in", "flush_entries_out",
    "flush_data_block_bytes", "flush_index_bytes", "memtable_full_entries_mean",
    "memtable_full_data_bytes_mean", "memtable_full_memory_bytes_mean",
    "compaction_output_files", "compaction_input_records", "compaction_output_records",
    "stall_micros", "wall_s", "user_cpu_s", "sys_cpu_s", "micros_per_op", "worker_cpu_s",
    "worker_cpu_us_per_op", "background_cpu_s", "compaction_cpu_s_log",
]
CPU_FIELDS = ["cpu_us_per_op", "user_us_per_op", "sys_us_per_op", "micros_per_op"]


def stats_of(values):
    mean = statistics.mean(values)
    return {"mean": round(mean, 3), "min": min(values), "max": max(values),
            "range_pct_of_mean": round(100 * (max(values) - min(values)) / mean, 2)
            if mean else 0.0}


def aggregate(paths):
    docs = []
    for p in paths:
        with open(p) as f:
            docs.append(json.load(f))
    machines, groups = [], {}
    for doc in docs:
        for o in doc:
            if o["case"] == "machine":
                machines.append(o)
            elif not o.get("summary"):
                key = (o["case"], o.get("compression", "none"), o["num"], o["value_size"],
                       o.get("shape", "base"))
                groups.setdefault(key, []).append(o)
    validation, cpu = [], []
    for (case, comp, num, vs, shape), rs in groups.items():
        entry = {"case": case, "compression": comp, "num": num, "key_size": 16,
                 "value_size": vs, "runs": len(rs), "flags": rs[0]["flags"]}
        if not case.startswith("cpu/"):
            entry["shape"] = shape
            entry["lsm"] = rs[0].get("lsm", BASE_LSM)
        if case.startswith("cpu/"):
            entry["compression"] = "none" if "compression_type=none" in rs[0]["flags"] else comp
            for k in CPU_FIELDS:
                entry[k] = stats_of([r[k] for r in rs])
            entry["message"] = rs[0]["message"]
            for k in ("sst_block_reads_per_op", "memtable_hit_per_op", "l0_hit_per_op",
                      "l1_hit_per_op", "l2andup_hit_per_op"):
                if k in rs[0]:
                    entry[k] = stats_of([r[k] for r in rs])
            entry["files_per_level_before_reads"] = [r["files_per_level_before_reads"]
                                                     for r in rs]
            entry["bytes_per_level_before_reads"] = [r["bytes_per_level_before_reads"]
                                                     for r in rs]
            cpu.append(entry)
        else:
            entry["options"] = rs[0]["options"]
            for k in VALIDATION_FIELDS:
                entry[k] = stats_of([r[k] for r in rs])
            for k in ("gets", "puts", "gets_found"):
                if k in rs[0]:
                    entry[k] = stats_of([r[k] for r in rs])
            for k in ("files_per_level", "bytes_per_level", "compactions_by_output_level",
                      "compaction_reasons", "flush_reasons", "stall_warnings"):
                entry[k] = [r[k] for r in rs]
            validation.append(entry)
    targets = []
    for e in validation:
        t = {k: e[k] for k in ("case", "shape", "compression", "num", "key_size", "value_size",
                               "lsm", "runs")}
        for k in ("wal_bytes", "wal_file_bytes", "flush_bytes", "compaction_read_bytes",
                  "compaction_write_bytes", "flushes", "compactions", "trivial_moves",
                  "stall_micros"):
            t[k] = e[k]["mean"]
        for k in ("gets", "puts", "gets_found"):
            if k in e:
                t[k] = e[k]["mean"]
        n = len(e["files_per_level"])
        t["files_per_level"] = [round(sum(f[i] for f in e["files_per_level"]) / n, 2)
                                for i in range(len(e["files_per_level"][0]))]
        t["bytes_per_level"] = [round(sum(b[i] for b in e["bytes_per_level"]) / n)
                                for i in range(len(e["bytes_per_level"][0]))]
        targets.append(t)
    return {
        "about": "Reference measurements of Debian's db_bench 7.8.3 (rocksdb-tools) for "
                 "ZoneLab's key-value model; definitions in docs/rocksdb-reference.md",
        "targets": targets,
        "machines": machines,
        "validation": validation,
        "cpu": cpu,
    }


# ---------------------------------------------------------------- main


def machine():
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    ver = subprocess.run([DB_BENCH, "--version"], capture_output=True, text=True).stdout.strip()
    pkg = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "rocksdb-tools"],
                         capture_output=True, text=True).stdout.strip()
    return {"cpu_model": model, "cpus": os.cpu_count(), "kernel": os.uname().release,
            "db_bench": ver, "rocksdb_tools": pkg, "loadavg_1m_at_start": os.getloadavg()[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", choices=["validation", "cpu"], default="validation")
    ap.add_argument("--dir", default="/dev/shm",
                    help="plain directory for the DB (default tmpfs /dev/shm)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--compression", choices=["none", "snappy"], default="none")
    ap.add_argument("--shapes", default="base",
                    help="validation: comma-separated LSM shapes (" + ", ".join(SHAPES) +
                    ", or all)")
    ap.add_argument("--num", type=int, help="validation: keys, instead of the shape's")
    ap.add_argument("--value-size", type=int, help="validation: bytes, instead of the shape's")
    ap.add_argument("--cases", default="fillrandom,overwrite,fillseq")
    ap.add_argument("--cpu-configs", default=",".join(f"{n}:{v}" for n, v in CPU_CONFIGS),
                    help="cpu suite: comma-separated num:value_size pairs")
    ap.add_argument("--out", help="also write all objects as one JSON document to this file")
    ap.add_argument("--aggregate", nargs="+", metavar="JSON",
                    help="no runs: merge --out files into one reference document on stdout")
    a = ap.parse_args()
    if a.aggregate:
        print(json.dumps(aggregate(a.aggregate), indent=1))
        return
    a.cases = [c for c in a.cases.split(",") if c]
    for c in a.cases:
        if c not in ("fillrandom", "overwrite", "mixgraph", "fillseq"):
            fail(f"--cases: unknown case '{c}' (known: fillrandom, overwrite, mixgraph, "
                 f"fillseq)")
    try:
        a.cpu_configs = [tuple(int(x) for x in c.split(":")) for c in a.cpu_configs.split(",")]
        if any(len(c) != 2 or c[0] < 1 or c[1] < 1 for c in a.cpu_configs):
            raise ValueError
    except ValueError:
        fail(f"--cpu-configs: expected num:value_size pairs such as 1000000:100, got "
             f"'{a.cpu_configs}'")
    if a.runs < 1:
        fail("--runs must be at least 1")
    if (a.num is not None and a.num < 1) or (a.value_size is not None and a.value_size < 1):
        fail("--num and --value-size must be positive")
    a.shapes = list(SHAPES) if a.shapes == "all" else [x for x in a.shapes.split(",") if x]
    for x in a.shapes:
        if x not in SHAPES:
            fail(f"--shapes: unknown shape '{x}' (known: {', '.join(SHAPES)}, all)")
    if not os.access(DB_BENCH, os.X_OK):
        fail(f"{DB_BENCH} not found; install Debian's rocksdb-tools")
    a.dir = os.path.join(a.dir, f"zonelab-dbbench-{os.getpid()}")
    os.makedirs(a.dir)
    collected = []

    def emit(obj):
        collected.append(obj)
        print(json.dumps(obj, sort_keys=False), flush=True)

    info = machine()
    info.update(case="machine", dir=a.dir, suite=a.suite, compression=a.compression,
                argv=" ".join(sys.argv[1:]), date=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    emit(info)
    try:
        if a.suite == "validation":
            validation_suite(a, emit)
        else:
            cpu_suite(a, emit)
    finally:
        shutil.rmtree(a.dir, ignore_errors=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(collected, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
