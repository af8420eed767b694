//! Host tasks on simulated time: many threads that write and flush, CPU that queues on the
//! modelled cores, locks and condition variables served in order, and deadlocks reported.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::config::ExperimentConfig;
use crate::device::{Command, Op};
use crate::sim::host::Host;
use crate::sim::sync::{Condvar, Mutex, Semaphore};
use crate::testing::fixtures::tiny_device;
use crate::time::{Duration, Instant};

fn experiment(extra: &str) -> Experiment {
    let text = format!("{extra}\n{}", tiny_device());
    ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate_device("t")
        .unwrap()
}

fn run_text(extra: &str) -> RunOutput {
    let exp = experiment(extra);
    run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap()
}

/// Runs `setup`'s tasks on the tiny device.
fn run_tasks(setup: &dyn Fn(&Host)) -> Result<RunOutput, RunError> {
    let exp = experiment("");
    run_with(
        &exp,
        build_device(&exp),
        Inputs::default(),
        0,
        &mut |_| {},
        setup,
    )
}

const THREADS: &str = "[host]\ncores = 4\n[[threads]]\nname = \"w\"\ncount = 1000\nbs = \"4KiB\"\nops = 4\ncpu = \"20us\"\n";

#[test]
fn a_thousand_threads_write_and_flush_deterministically() {
    let a = run_text(THREADS);
    let b = run_text(THREADS);
    let json = |o: &RunOutput| serde_json::to_string(&o.summary).unwrap();
    assert_eq!(json(&a), json(&b), "same seed, same bytes");
    let s = &a.summary;
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(s.ops["append"].count, 4000);
    assert_eq!(s.ops["flush"].count, 4000);
    assert_eq!(s.device_counters.counters.host_write_bytes, 4000 * 4096);
    assert!(s.ops.contains_key("reset"), "the ring of zones wrapped");
    // CPU: 4000 x 20 us of work on 4 cores queues; the run takes at least the CPU time / 4.
    assert_eq!(s.host.cpu_busy_ns, 4000 * 20_000);
    assert!(s.host.cpu_wait_ns > 0, "1000 threads wait for 4 cores");
    assert!(s.simulated_time_ns >= 4000 * 20_000 / 4);
    a.device.check_invariants();
}

#[test]
fn with_a_core_per_thread_cpu_work_never_waits() {
    let out = run_text(&THREADS.replace("cores = 4", "cores = 1000"));
    assert_eq!(out.summary.host.cpu_wait_ns, 0);
    assert_eq!(out.summary.host.cpu_busy_ns, 4000 * 20_000);
}

#[test]
fn a_task_reads_like_the_thread_it_models() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    run_tasks(&move |host| {
        let (h, l) = (host.clone(), l.clone());
        host.spawn("writer", false, async move {
            let t0 = h.now();
            let w = h.io(Command::write(0, 4)).await.unwrap();
            l.borrow_mut().push(("write done", w.done - t0));
            h.io(Command::new(Op::Flush, 0, 0)).await.unwrap();
            h.sleep(Duration::from_ms(1)).await;
            h.cpu(Duration::from_us(7)).await;
            l.borrow_mut().push(("end", h.now() - t0));
        });
    })
    .unwrap();
    let log = log.borrow();
    // One 16 KiB page: host transfer 5.12 us + channel 20.48 us + tPROG 500 us.
    assert_eq!(
        log[0],
        ("write done", Duration::from_ns(5_120 + 20_480 + 500_000))
    );
    assert_eq!(
        log[1],
        (
            "end",
            Duration::from_ns(5_120 + 20_480 + 500_000 + 1_000_000 + 7_000)
        )
    );
}

#[test]
fn a_mutex_serves_waiters_in_order_and_a_condvar_wakes_them() {
    let order = Rc::new(RefCell::new(Vec::new()));
    let o = order.clone();
    run_tasks(&move |host| {
        let lock = Rc::new(Mutex::new(0u32));
        let ready = Rc::new(Condvar::new());
        for i in 0..3u32 {
            let (h, lock, o, ready) = (host.clone(), lock.clone(), o.clone(), ready.clone());
            host.spawn(&format!("t{i}"), false, async move {
                let mut g = lock.lock(&h).await;
                while *g == 0 {
                    g = ready.wait(&h, g).await;
                }
                o.borrow_mut().push((i, h.now()));
                h.sleep(Duration::from_us(10)).await;
                *g += 1;
            });
        }
        let (h, lock, ready) = (host.clone(), lock.clone(), ready.clone());
        host.spawn("starter", false, async move {
            h.sleep(Duration::from_us(100)).await;
            *lock.lock(&h).await = 1;
            ready.notify_all(&h);
        });
    })
    .unwrap();
    let order = order.borrow();
    let who: Vec<u32> = order.iter().map(|x| x.0).collect();
    assert_eq!(who, [0, 1, 2], "first come, first served");
    let t: Vec<u64> = order.iter().map(|x| x.1.ns()).collect();
    assert_eq!(t, [100_000, 110_000, 120_000], "each holds the lock 10 us");
}

#[test]
fn semaphores_bound_concurrency_and_join_waits_for_a_task() {
    let peak = Rc::new(RefCell::new((0u32, 0u32)));
    let p = peak.clone();
    run_tasks(&move |host| {
        let slots = Rc::new(Semaphore::new(2));
        let mut ids = Vec::new();
        for i in 0..5 {
            let (h, slots, p) = (host.clone(), slots.clone(), p.clone());
            ids.push(host.spawn(&format!("io{i}"), false, async move {
                let _permit = slots.acquire(&h).await;
                {
                    let mut p = p.borrow_mut();
                    p.0 += 1;
                    p.1 = p.1.max(p.0);
                }
                h.sleep(Duration::from_us(5)).await;
                p.borrow_mut().0 -= 1;
            }));
        }
        let h = host.clone();
        host.spawn("joiner", false, async move {
            for id in ids {
                h.join(id).await;
            }
            assert_eq!(h.now().ns(), 15_000, "five 5 us jobs, two at a time");
        });
    })
    .unwrap();
    assert_eq!(peak.borrow().1, 2);
}

#[test]
fn tasks_that_wait_forever_are_a_deadlock() {
    let err = run_tasks(&|host| {
        let never = Rc::new(Condvar::new());
        let h = host.clone();
        host.spawn("stuck", false, async move {
            never.notified(&h).await;
        });
    })
    .err()
    .expect("a deadlock");
    assert!(matches!(&err, RunError::Deadlock(t) if t == &["stuck".to_string()]));
    assert!(err.to_string().contains("deadlock"));
}

#[test]
fn daemons_do_not_keep_a_run_going() {
    let out = run_tasks(&|host| {
        let h = host.clone();
        host.spawn("gc", true, async move {
            loop {
                h.sleep(Duration::from_secs(10)).await;
            }
        });
        let h = host.clone();
        host.spawn("work", false, async move {
            h.io(Command::write(0, 4)).await.unwrap();
        });
    })
    .unwrap();
    assert_eq!(out.summary.ops["write"].count, 1);
}

#[test]
fn a_timed_wait_ends_at_its_deadline_or_at_the_notification() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    run_tasks(&move |host| {
        let cv = Rc::new(Condvar::new());
        let (h, c, s2) = (host.clone(), cv.clone(), s.clone());
        host.spawn("timed", false, async move {
            // Times out at 50 us (nobody notifies yet): no waiter stays behind.
            let first = c.notified_until(&h, Instant::from_ns(50_000)).await;
            s2.borrow_mut().push((first, h.now().ns(), c.waiting()));
            // Notified at 80 us, well before its 1 ms deadline.
            let second = c.notified_until(&h, Instant::from_ns(1_000_000)).await;
            s2.borrow_mut().push((second, h.now().ns(), c.waiting()));
        });
        let h = host.clone();
        host.spawn("notifier", false, async move {
            h.sleep(Duration::from_us(80)).await;
            cv.notify_all(&h);
        });
    })
    .unwrap();
    assert_eq!(*seen.borrow(), [(false, 50_000, 0), (true, 80_000, 0)]);
}

/// Regression (issue 36, item 13, found by the swarm's seed 11044): host tasks waiting for each
/// other on a device whose firmware timer comes back forever (ReZNS's zombie daemon every
/// 5 ms) never emptied the event queue, so the run went on in simulated time instead of
/// saying it cannot progress.
#[test]
fn a_deadlock_is_reported_while_the_device_timer_runs_on() {
    let exp = experiment("[firmware]\npolicy = \"renewable\"\nzombie_scan_period = \"5ms\"\n");
    let inputs = Inputs {
        limits: RunLimits {
            max_simulated: Some(Duration::from_secs(3_600)),
            ..RunLimits::default()
        },
        ..Inputs::default()
    };
    let err = run_with(&exp, build_device(&exp), inputs, 0, &mut |_| {}, &|host| {
        let never = Rc::new(Condvar::new());
        let h = host.clone();
        host.spawn("stuck", false, async move {
            h.io(Command::new(Op::Write, 0, 1)).await.unwrap();
            never.notified(&h).await;
        });
    })
    .err()
    .expect("a deadlock, not a run to the budget");
    assert!(
        matches!(&err, RunError::Deadlock(t) if t == &["stuck".to_string()]),
        "{err}"
    );
}

/// A run stops at its event budget, its simulated-time budget, or its stop flag, and ends
/// with its results so far, saying why (the swarm's hang checks; Ctrl-C in `zonelab run`).
#[test]
fn a_run_stops_at_its_limits_with_its_results_so_far() {
    let job = "[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\ntime_based = true\nruntime = \"10s\"\n";
    let exp = experiment(job);
    let limited = |limits: RunLimits| {
        let inputs = Inputs {
            limits,
            ..Inputs::default()
        };
        run(&exp, inputs, 0, &mut |_| {}).unwrap().summary
    };
    let s = limited(RunLimits {
        max_events: Some(1000),
        ..RunLimits::default()
    });
    assert_eq!(s.stopped_early, Some(crate::report::EarlyStop::Events));
    let writes = s.ops.get("write").map_or(0, |o| o.count);
    assert!(writes > 0 && writes <= 1000, "{writes}");
    let s = limited(RunLimits {
        max_simulated: Some(Duration::from_ms(10)),
        ..RunLimits::default()
    });
    assert_eq!(
        s.stopped_early,
        Some(crate::report::EarlyStop::SimulatedTime)
    );
    assert!(s.simulated_time_ns <= 11_000_000, "{}", s.simulated_time_ns);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let s = limited(RunLimits {
        stop: Some(stop),
        ..RunLimits::default()
    });
    assert_eq!(s.stopped_early, Some(crate::report::EarlyStop::Interrupted));
    let full = limited(RunLimits::default());
    assert_eq!(full.stopped_early, None);
    assert!(full.ops["write"].count > 1000);
}
