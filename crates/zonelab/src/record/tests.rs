//! The recorder on its own: what it writes for a command that completes at once, one whose
//! completion comes later, and one the device rejects, with the device's half stubbed out.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::device::Op;
use crate::time::Duration;

#[derive(Clone, Default)]
struct Kept(Rc<RefCell<Vec<TraceRecord>>>);

impl TraceSink for Kept {
    fn record(&mut self, r: &TraceRecord) {
        self.0.borrow_mut().push(r.clone());
    }
}

/// A stub of the device's half of a submission.
type StubDevice<'a> =
    Box<dyn FnOnce(Command<'_>, Option<&mut Seen>) -> Result<Accepted, Status> + 'a>;

fn took(done: Option<Instant>, watched: &mut Vec<bool>) -> StubDevice<'_> {
    Box::new(move |cmd, seen| {
        watched.push(seen.is_some());
        if let Some(seen) = seen {
            seen.zone_size_lbas = Some(64);
        }
        Ok(Accepted {
            done,
            lba: cmd.slba,
            start: Instant::from_ns(10),
            erase_wait: Duration::ZERO,
        })
    })
}

fn refused(_: Command<'_>, _: Option<&mut Seen>) -> Result<Accepted, Status> {
    Err(Status::ZoneInvalidWrite)
}

#[test]
fn a_late_completion_is_traced_when_it_arrives_and_a_rejection_is_logged() {
    let kept = Kept::default();
    let mut r: Recorder = Recorder::new(Some(Box::new(kept.clone())));
    let (fio, task) = (r.source("fio"), r.source("task"));
    assert_eq!(r.source("fio"), fio, "a name keeps its index");
    let mut watched = Vec::new();
    let now = Instant::from_ns(10);

    let at_once = Command::new(Op::Write, 64, 8).tagged(1);
    r.submit(
        now,
        at_once,
        fio,
        took(Some(Instant::from_ns(50)), &mut watched),
    )
    .unwrap();
    let later = Command::new(Op::Read, 128, 8).tagged(2);
    r.submit(now, later, task, took(None, &mut watched))
        .unwrap();
    assert_eq!(
        kept.0.borrow().len(),
        1,
        "the late one waits for its completion"
    );
    r.completed(2, Instant::from_ns(90));

    let bad = Command::new(Op::Write, 0, 1).tagged(3);
    let err = r.submit(now, bad, task, refused).unwrap_err();
    assert_eq!(err, Status::ZoneInvalidWrite);

    let records = kept.0.borrow();
    let got: Vec<_> = records
        .iter()
        .map(|t| (t.lba, t.done.ns(), t.zone, &*t.source, t.status.is_some()))
        .collect();
    assert_eq!(
        got,
        [
            (64, 50, Some(1), "fio", false),
            (128, 90, Some(2), "task", false),
            (0, 10, None, "task", true),
        ]
    );
    assert_eq!(watched, [true, true], "a traced command is watched");
    assert_eq!(r.errors().total(), 1);
    let e = &r.errors().kept()[0];
    assert_eq!((e.source.as_str(), e.lba), ("task", 0));
}

#[test]
#[should_panic(expected = "no traced command waits for")]
fn a_completion_for_a_command_never_sent_is_a_bug() {
    let mut r: Recorder = Recorder::new(Some(Box::new(Kept::default())));
    r.completed(7, Instant::from_ns(70));
}

#[test]
fn without_a_trace_commands_are_not_watched_but_rejections_are_logged() {
    let mut r: Recorder = Recorder::new(None);
    let src = r.source("job");
    let mut watched = Vec::new();
    let cmd = || Command::new(Op::Write, 0, 8);
    r.submit(Instant::ZERO, cmd(), src, took(None, &mut watched))
        .unwrap();
    r.completed(0, Instant::from_ns(5));
    assert_eq!(watched, [false]);
    assert!(r.submit(Instant::ZERO, cmd(), src, refused).is_err());
    assert_eq!(r.errors().total(), 1);
    assert!(r.finish_trace().is_ok());
}

/// A device model that answers before it is asked would run every front end's clock backwards.
#[test]
#[should_panic(expected = "never answers before it is asked")]
fn a_completion_before_its_submission_is_a_bug() {
    let mut r: Recorder = Recorder::new(None);
    let fio = r.source("fio");
    let mut watched = Vec::new();
    // The stub starts every command at 10 ns; this one is sent at 20.
    let _ = r.submit(
        Instant::from_ns(20),
        Command::new(Op::Write, 64, 8).tagged(1),
        fio,
        took(Some(Instant::from_ns(50)), &mut watched),
    );
}

#[test]
#[should_panic(expected = "before it was submitted")]
fn a_late_completion_dated_before_its_submission_is_a_bug() {
    let mut r: Recorder = Recorder::new(Some(Box::new(Kept::default())));
    let fio = r.source("fio");
    let mut watched = Vec::new();
    let now = Instant::from_ns(10);
    r.submit(
        now,
        Command::new(Op::Read, 0, 8).tagged(7),
        fio,
        took(None, &mut watched),
    )
    .unwrap();
    r.completed(7, Instant::from_ns(9));
}
