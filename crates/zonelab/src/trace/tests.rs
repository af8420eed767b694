use super::read::{TraceFormat, TraceReader};
use super::*;

fn reader(text: &str, lba: u64) -> Result<TraceReader, read::TraceError> {
    TraceReader::new(Box::new(std::io::Cursor::new(text.to_string())), None, lba)
}

#[test]
fn csv_records_read_back_as_the_same_commands() {
    let mut dies = DieSet::default();
    dies.insert(0);
    dies.insert(2);
    let rec = |submit: u64, op, lba, nlb, status| TraceRecord {
        submit: Instant::from_ns(submit),
        start: Instant::from_ns(submit + 5),
        done: Instant::from_ns(submit + 100),
        op,
        nsid: 0,
        zone: Some(0),
        lba,
        nlb,
        dies: dies.clone(),
        erase_wait: Duration::ZERO,
        source: "job,a\"b".into(),
        status,
    };
    let mut sink = CsvBuffer {
        channels: 2,
        text: String::new(),
    };
    sink.record(&rec(1000, TraceOp::Write, 0, 4, None));
    sink.record(&rec(
        1500,
        TraceOp::Write,
        9,
        1,
        Some(Status::ZoneInvalidWrite),
    ));
    sink.record(&rec(2000, TraceOp::Reset, 0, 0, None));
    let lines: Vec<&str> = sink.text.lines().collect();
    assert_eq!(lines[0], CSV_HEADER);
    assert_eq!(lines[1], "1000,1005,1100,write,0,0,0,4,0;2,0,0,job_a_b,");
    assert!(lines[2].ends_with(",1h/BCh"), "{}", lines[2]);
    let r = reader(&sink.text, 4096).unwrap();
    assert_eq!(r.format(), TraceFormat::ZoneLab);
    let got: Vec<_> = r.map(|x| x.unwrap()).collect();
    assert_eq!(got.len(), 2, "the rejected command is not replayed");
    assert_eq!((got[0].op, got[0].slba, got[0].nlb), (TraceOp::Write, 0, 4));
    assert_eq!(got[0].at, Some(Duration::ZERO));
    assert_eq!(got[1].op, TraceOp::Reset);
    assert_eq!(got[1].at, Some(Duration::from_ns(1000)));
    assert_eq!(got[1].line, 4);
}

#[test]
fn iolog_v2_waits_and_v3_timestamps() {
    let v2 = "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x write 0 8192\n/dev/x wait 250 0\n/dev/x read 4096 4096\n/dev/x sync 0 0\n/dev/x trim 0 65536\n/dev/x close\n";
    let got: Vec<_> = reader(v2, 4096).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(got.len(), 4);
    assert_eq!((got[0].op, got[0].slba, got[0].nlb), (TraceOp::Write, 0, 2));
    assert_eq!(got[1].at, Some(Duration::from_us(250)));
    assert_eq!(got[2].op, TraceOp::Flush);
    assert_eq!((got[3].op, got[3].nlb), (TraceOp::Trim, 16));
    let v3 = "fio version 3 iolog\n100 /dev/x add\n100 /dev/x write 0 4096\n350 /dev/x write 4096 4096\n";
    let got: Vec<_> = reader(v3, 4096).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(got[0].at, Some(Duration::ZERO));
    assert_eq!(got[1].at, Some(Duration::from_us(250)));
}

#[test]
fn msr_lines_become_commands_and_bad_lines_are_named() {
    let msr =
        "128166372003061629,hm,0,Write,8192,4096,100\n128166372003071629,hm,0,Read,0,8192,50\n";
    let got: Vec<_> = reader(msr, 4096).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!((got[0].op, got[0].slba, got[0].nlb), (TraceOp::Write, 2, 1));
    assert_eq!(
        got[1].at,
        Some(Duration::from_ms(1)),
        "10,000 ticks of 100 ns"
    );
    let bad =
        "128166372003061629,hm,0,Write,8192,4096,100\n128166372003071629,hm,0,Write,100,4096,1\n";
    let errors: Vec<_> = reader(bad, 4096).unwrap().filter_map(Result::err).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].line, 2);
    assert!(errors[0].to_string().contains("multiples of the LBA size"));
}

#[test]
fn unknown_formats_are_refused_on_the_first_line() {
    let e = reader("hello,world\n", 4096).err().unwrap();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("unknown trace format"));
}
