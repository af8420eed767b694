//! `zonelab-swarm`: runs the seed swarm (see the library's documentation). `scripts/swarm.sh`
//! builds and runs it.
//!
//! Usage: zonelab-swarm [--seeds N] [--start S] [--seed S] [--case FILE] [--jobs J]
//!                      [--shrink DIR] [--watchdog SECS]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant as WallClock;

use anyhow::{Context, Result, bail};
use zonelab_swarm::{Case, Outcome, draw, quiet_panics, replay_command, run, shrink};

struct Args {
    seeds: u64,
    start: u64,
    case: Option<String>,
    jobs: u64,
    shrink_dir: Option<String>,
    watchdog_s: u64,
    verbose: bool,
}

fn args() -> Result<Args> {
    let mut a = Args {
        seeds: 1000,
        start: 0,
        case: None,
        jobs: 1,
        shrink_dir: None,
        watchdog_s: 300,
        verbose: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--seeds" => a.seeds = value()?.replace('_', "").parse()?,
            "--start" => a.start = value()?.parse()?,
            "--seed" => {
                a.start = value()?.parse()?;
                a.seeds = 1;
                a.verbose = true;
            }
            "--case" => a.case = Some(value()?),
            "--jobs" => a.jobs = value()?.parse::<u64>()?.max(1),
            "--shrink" => a.shrink_dir = Some(value()?),
            "--watchdog" => a.watchdog_s = value()?.parse()?,
            other => bail!("unknown argument {other}; see the usage at the top of src/main.rs"),
        }
    }
    Ok(a)
}

#[derive(Default)]
struct Totals {
    seeds: u64,
    passed: u64,
    refused: u64,
    commands: u64,
    failed: Vec<(u64, String)>,
    /// Per front end: seeds checked, device commands, seconds of worker time.
    by_front: std::collections::BTreeMap<String, (u64, u64, f64)>,
}

fn front_name(c: &Case) -> String {
    format!("{:?}", c.front)
        .split([' ', '{'])
        .next()
        .unwrap_or("")
        .to_string()
}

/// The checkers build, load and drop a state file of up to several MiB at every step. glibc
/// gives such blocks back to the kernel when they are freed, so each step paid page faults for
/// fresh memory (BENCHMARKS.md, "What the hot path does"). The limits are chosen, not tuned.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: mallopt only changes the allocator's thresholds; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> Result<std::process::ExitCode> {
    keep_freed_memory();
    let a = args()?;
    quiet_panics();
    if let Some(path) = &a.case {
        return replay_case(path);
    }
    println!(
        "zonelab-swarm {} | seeds {}..{} | jobs {}",
        env!("CARGO_PKG_VERSION"),
        a.start,
        a.start + a.seeds,
        a.jobs
    );
    let wall = WallClock::now();
    let totals = run_seeds(&a, wall);
    let t = totals.lock().expect("totals");
    print_totals(&t, wall);
    Ok(exit(!t.failed.is_empty()))
}

/// `--case FILE`: runs one case file.
fn replay_case(path: &str) -> Result<std::process::ExitCode> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let case: Case =
        serde_json::from_str(&text).with_context(|| format!("{path}: not a case file"))?;
    let outcome = run(&case);
    println!("{path}: {outcome:?}");
    Ok(exit(matches!(outcome, Outcome::Failed(_))))
}

/// Checks the seeds on `a.jobs` threads, each taking the next seed when done with one, under
/// the watchdog.
fn run_seeds(a: &Args, wall: WallClock) -> Arc<Mutex<Totals>> {
    let totals = Arc::new(Mutex::new(Totals::default()));
    let next = Arc::new(AtomicU64::new(a.start));
    let end = a.start + a.seeds;
    let busy: Arc<Vec<(AtomicU64, AtomicU64)>> = Arc::new(
        (0..a.jobs)
            .map(|_| (AtomicU64::new(u64::MAX), AtomicU64::new(0)))
            .collect(),
    );
    let done = Arc::new(AtomicBool::new(false));
    watchdog(busy.clone(), done.clone(), a.watchdog_s, wall);
    let workers: Vec<_> = (0..a.jobs)
        .map(|w| {
            let worker = Worker {
                totals: totals.clone(),
                next: next.clone(),
                busy: busy.clone(),
                end,
                wall,
                shrink_dir: a.shrink_dir.clone(),
                verbose: a.verbose,
            };
            std::thread::spawn(move || worker.run(w as usize))
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    done.store(true, Ordering::Relaxed);
    totals
}

/// What a worker thread shares with the others and the watchdog.
struct Worker {
    totals: Arc<Mutex<Totals>>,
    next: Arc<AtomicU64>,
    /// Per worker: the seed it runs (`u64::MAX` for none) and when it took it (wall seconds).
    busy: Arc<Vec<(AtomicU64, AtomicU64)>>,
    end: u64,
    wall: WallClock,
    shrink_dir: Option<String>,
    verbose: bool,
}

impl Worker {
    /// Worker `w`: draws, runs and records seeds until none are left.
    fn run(self, w: usize) {
        let Worker {
            totals,
            next,
            busy,
            end,
            wall,
            shrink_dir,
            verbose,
        } = self;
        loop {
            let seed = next.fetch_add(1, Ordering::Relaxed);
            if seed >= end {
                break;
            }
            busy[w].1.store(wall.elapsed().as_secs(), Ordering::Relaxed);
            busy[w].0.store(seed, Ordering::Relaxed);
            let case = draw(seed);
            if verbose {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&case).unwrap_or_default()
                );
            }
            let began = WallClock::now();
            let outcome = run(&case);
            let took_s = began.elapsed().as_secs_f64();
            busy[w].0.store(u64::MAX, Ordering::Relaxed);
            record(&totals, &case, &outcome, took_s, shrink_dir.as_deref());
            let t = totals.lock().expect("totals");
            if t.seeds % 10_000 == 0 {
                println!(
                    "{} seeds, {} device commands, {} failed, {:.0} s",
                    t.seeds,
                    t.commands,
                    t.failed.len(),
                    wall.elapsed().as_secs_f64()
                );
            }
        }
    }
}

/// The swarm's totals, per front end, and each failed seed with its replay command.
fn print_totals(t: &Totals, wall: WallClock) {
    println!(
        "swarm: {} seeds ({} checked, {} refused by check naming a field), {} device commands, {} failed, {:.1} s wall",
        t.seeds,
        t.passed,
        t.refused,
        t.commands,
        t.failed.len(),
        wall.elapsed().as_secs_f64()
    );
    for (front, (n, c, s)) in &t.by_front {
        println!("  {front}: {n} seeds, {c} device commands, {s:.1} s of worker time");
    }
    for (seed, msg) in &t.failed {
        println!(
            "FAILED seed {seed}: {msg}\n  replay: {}",
            replay_command(*seed)
        );
    }
}

fn exit(failed: bool) -> std::process::ExitCode {
    std::process::ExitCode::from(failed as u8)
}

fn record(
    totals: &Mutex<Totals>,
    case: &Case,
    outcome: &Outcome,
    took_s: f64,
    shrink_dir: Option<&str>,
) {
    let mut t = totals.lock().expect("totals");
    t.seeds += 1;
    match outcome {
        Outcome::Passed { commands } => {
            t.passed += 1;
            t.commands += commands;
            let e = t.by_front.entry(front_name(case)).or_default();
            e.0 += 1;
            e.1 += commands;
            e.2 += took_s;
        }
        Outcome::Refused(why) => {
            t.refused += 1;
            if std::env::var_os("ZONELAB_SWARM_REFUSALS").is_some() {
                println!("refused seed {} ({}): {why}", case.seed, front_name(case));
            }
        }
        Outcome::Failed(f) => {
            let what = if f.panic { "panic: " } else { "" };
            let msg = format!("{what}{}", f.message);
            println!(
                "FAILED seed {} ({}): {msg}\n  replay: {}",
                case.seed,
                front_name(case),
                replay_command(case.seed)
            );
            t.failed.push((case.seed, msg));
            drop(t);
            if let Some(dir) = shrink_dir {
                let mut small = shrink::shrink(case, 2_000);
                small.note = format!(
                    "seed {}: {}",
                    case.seed,
                    f.message.chars().take(300).collect::<String>()
                );
                let _ = std::fs::create_dir_all(dir);
                let path = format!("{dir}/seed-{}.json", case.seed);
                match std::fs::write(
                    &path,
                    serde_json::to_string_pretty(&small).unwrap_or_default(),
                ) {
                    Ok(()) => println!(
                        "  shrunk ({} commands) to {path}; replay: zonelab-swarm --case {path}",
                        small.commands.len()
                    ),
                    Err(e) => println!("  cannot write {path}: {e}"),
                }
            }
        }
    }
}

/// The last resort against a hang the budgets miss: a seed still running after `limit_s` of wall
/// time is reported with its replay command and the process exits (a thread stuck in a loop
/// cannot be stopped otherwise).
fn watchdog(
    busy: Arc<Vec<(AtomicU64, AtomicU64)>>,
    done: Arc<AtomicBool>,
    limit_s: u64,
    wall: WallClock,
) {
    std::thread::spawn(move || {
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_secs(1));
            for (seed, since) in busy.iter() {
                let s = seed.load(Ordering::Relaxed);
                if s != u64::MAX
                    && wall.elapsed().as_secs() > since.load(Ordering::Relaxed) + limit_s
                {
                    println!(
                        "FAILED seed {s}: hang: no result after {limit_s} s of wall time\n  replay: {}",
                        replay_command(s)
                    );
                    std::process::exit(3);
                }
            }
        }
    });
}
