//! Every number a paper states, beside ZoneLab's, with the error: the table each reproduction's
//! summary opens with (also `claims.md` and `claims.json`), and the tally the reproductions are
//! judged by (issue 40): the direction right in every row, at least two thirds of the numbers
//! within 25%, and every other row linked to the experiment that shows why it differs.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

/// How far a number may be from the paper's and still count as reproduced.
pub const TOLERANCE: f64 = 0.25;

/// What the paper states.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stated {
    /// A number (read off a figure, "about", where the paper gives no table).
    Number(f64),
    /// Only that the value falls below the reference, with no number.
    Lower,
    /// Only that the value rises above the reference, with no number.
    Higher,
}

/// One number (or direction) the paper states and what ZoneLab measured for it.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub what: String,
    pub unit: &'static str,
    pub paper: Stated,
    pub zonelab: f64,
    /// The value a change is measured from (0 for a change in %, 1 for a ratio): the sign of
    /// `paper - reference` is the claim's direction. None for a plain magnitude.
    pub reference: Option<f64>,
    /// Where an experiment shows why ZoneLab differs (a file and its section), for a row outside
    /// the tolerance or with the direction wrong.
    pub cause: Option<String>,
}

impl Claim {
    /// A magnitude (a latency, a bandwidth, seconds): no direction to get wrong.
    pub fn value(what: impl Into<String>, unit: &'static str, paper: f64, zonelab: f64) -> Self {
        Claim {
            what: what.into(),
            unit,
            paper: Stated::Number(paper),
            zonelab,
            reference: None,
            cause: None,
        }
    }

    /// A ratio ("1.9x"): its direction is whether it is above or below 1.
    pub fn ratio(what: impl Into<String>, paper: f64, zonelab: f64) -> Self {
        Claim {
            reference: Some(1.0),
            ..Claim::value(what, "x", paper, zonelab)
        }
    }

    /// A change in percent ("-29%"): its direction is its sign.
    pub fn change(what: impl Into<String>, paper_pct: f64, zonelab_pct: f64) -> Self {
        Claim {
            reference: Some(0.0),
            ..Claim::value(what, "%", paper_pct, zonelab_pct)
        }
    }

    /// A direction with no number ("lower"), of a change in percent.
    pub fn direction(what: impl Into<String>, paper: Stated, zonelab_pct: f64) -> Self {
        Claim {
            paper,
            ..Claim::change(what, 0.0, zonelab_pct)
        }
    }

    /// Links the experiment that shows why ZoneLab differs.
    pub fn cause(mut self, cause: impl Into<String>) -> Self {
        self.cause = Some(cause.into());
        self
    }

    /// ZoneLab's error relative to the paper's number (None for a direction or a paper's 0).
    pub fn error(&self) -> Option<f64> {
        match self.paper {
            Stated::Number(p) if p != 0.0 => Some((self.zonelab - p) / p.abs()),
            _ => None,
        }
    }

    /// Within the tolerance (None when the paper gives no number to compare with).
    pub fn within(&self) -> Option<bool> {
        self.error().map(|e| e.abs() <= TOLERANCE)
    }

    /// Whether ZoneLab moves the same way from the reference as the paper (None for a
    /// magnitude, or a paper's number equal to the reference). A change smaller than
    /// [`NO_CHANGE`] is no direction at all.
    pub fn direction_right(&self) -> Option<bool> {
        let r = self.reference?;
        let band = NO_CHANGE * if self.unit == "%" { 100.0 } else { 1.0 };
        let paper = match self.paper {
            Stated::Number(p) => sign(p - r, 0.0)?,
            Stated::Lower => -1,
            Stated::Higher => 1,
        };
        Some(sign(self.zonelab - r, band) == Some(paper))
    }

    /// The row needs an experiment that shows why it differs.
    pub fn needs_cause(&self) -> bool {
        self.within() == Some(false) || self.direction_right() == Some(false)
    }
}

/// A change within 1% (one percentage point, or 0.01 of a ratio) of the reference counts as none:
/// CHOSEN, so that rounding noise never passes for the paper's direction.
pub const NO_CHANGE: f64 = 0.01;

fn sign(x: f64, band: f64) -> Option<i8> {
    if x > band {
        Some(1)
    } else if x < -band {
        Some(-1)
    } else {
        None
    }
}

/// The counts the reproduction is judged by.
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub rows: usize,
    pub with_direction: usize,
    pub direction_right: usize,
    pub numbers: usize,
    pub within: usize,
    pub outside_with_cause: usize,
    pub outside_without_cause: usize,
}

impl Tally {
    pub fn of(claims: &[Claim]) -> Tally {
        let mut t = Tally {
            rows: claims.len(),
            ..Tally::default()
        };
        for c in claims {
            if let Some(right) = c.direction_right() {
                t.with_direction += 1;
                t.direction_right += usize::from(right);
            }
            if let Some(within) = c.within() {
                t.numbers += 1;
                t.within += usize::from(within);
            }
            if c.needs_cause() {
                if c.cause.is_some() {
                    t.outside_with_cause += 1;
                } else {
                    t.outside_without_cause += 1;
                }
            }
        }
        t
    }

    /// At least two thirds of the numbers within the tolerance.
    pub fn two_thirds_within(&self) -> bool {
        3 * self.within >= 2 * self.numbers
    }

    /// One line a reader can check the reproduction against.
    pub fn line(&self) -> String {
        let numbers = if self.numbers == 0 {
            "no numbers stated, directions only".to_string()
        } else {
            format!(
                "{} of {} numbers within {:.0}% (two thirds: {})",
                self.within,
                self.numbers,
                TOLERANCE * 100.0,
                if self.two_thirds_within() {
                    "met"
                } else {
                    "not met"
                },
            )
        };
        let direction = if self.with_direction == 0 {
            "no directions stated, magnitudes only".to_string()
        } else {
            format!(
                "direction right in {} of {} that state one",
                self.direction_right, self.with_direction
            )
        };
        format!(
            "{} rows: {direction}; {numbers}; of the rows outside or with the direction wrong, {} \
             link to the experiment that shows why, {} do not yet",
            self.rows, self.outside_with_cause, self.outside_without_cause,
        )
    }
}

fn number(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 || a == a.trunc() && a < 1e6 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn stated(c: &Claim) -> String {
    let with_unit = |x: f64| match c.unit {
        "%" if x > 0.0 => format!("+{}%", number(x)),
        "%" => format!("{}%", number(x)),
        "x" => format!("{}x", number(x)),
        u => format!("{} {u}", number(x)),
    };
    match c.paper {
        Stated::Number(p) => with_unit(p),
        Stated::Lower => "lower".into(),
        Stated::Higher => "higher".into(),
    }
}

fn measured(c: &Claim) -> String {
    match c.unit {
        "%" => format!("{:+.1}%", c.zonelab),
        "x" => format!("{:.2}x", c.zonelab),
        u => format!("{} {u}", number(c.zonelab)),
    }
}

/// The markdown section: the table and the tally.
pub fn section(claims: &[Claim]) -> String {
    let mut s = String::from(
        "## Every number the paper states, beside ZoneLab's\n\n\
         | claim | paper | ZoneLab | error | within 25% | direction | why it differs |\n\
         |---|---:|---:|---:|---|---|---|\n",
    );
    let yes_no = |b: Option<bool>, no: &str| match b {
        Some(true) => "yes".to_string(),
        Some(false) => no.to_string(),
        None => "-".to_string(),
    };
    for c in claims {
        let error = c
            .error()
            .map_or("-".into(), |e| format!("{:+.0}%", e * 100.0));
        let why = match (&c.cause, c.needs_cause()) {
            (Some(cause), true) => cause.clone(),
            (None, true) => "**not shown yet**".into(),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {error} | {} | {} | {why} |",
            c.what,
            stated(c),
            measured(c),
            yes_no(c.within(), "**no**"),
            yes_no(c.direction_right(), "**wrong**").replace("yes", "right"),
        );
    }
    let _ = writeln!(s, "\n**Tally:** {}.\n", Tally::of(claims).line());
    s
}

/// Puts the claims section after the summary's opening paragraphs (before its first `## `),
/// writes `claims.md` and `claims.json` into `out`, and prints the tally.
pub fn publish(out: &Path, paper: &str, summary: &str, claims: &[Claim]) -> Result<String> {
    let section = section(claims);
    let tally = Tally::of(claims);
    let at = summary.find("\n## ").map_or(summary.len(), |i| i + 1);
    let with = format!("{}{section}{}", &summary[..at], &summary[at..]);
    std::fs::write(out.join("claims.md"), &section)
        .with_context(|| format!("cannot write {}", out.join("claims.md").display()))?;
    let line = tally.line();
    let json = serde_json::json!({ "paper": paper, "tally": tally, "claims": claims });
    std::fs::write(
        out.join("claims.json"),
        serde_json::to_string_pretty(&json)? + "\n",
    )
    .with_context(|| format!("cannot write {}", out.join("claims.json").display()))?;
    eprintln!("{paper}: {line}");
    Ok(with)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_judged_by_its_error_and_its_direction() {
        let near = Claim::ratio("gain", 1.9, 1.78);
        assert_eq!(near.within(), Some(true));
        assert_eq!(near.direction_right(), Some(true));
        assert!(!near.needs_cause());

        let far = Claim::ratio("multi-thread", 1.13, 2.75);
        assert_eq!(far.within(), Some(false));
        assert!(far.needs_cause());

        let wrong = Claim::change("resets", -29.0, 0.0);
        assert_eq!(
            wrong.direction_right(),
            Some(false),
            "no change is not fewer"
        );
        assert_eq!(wrong.within(), Some(false));

        let sign_only = Claim::direction("separation", Stated::Lower, 13.7);
        assert_eq!(sign_only.within(), None);
        assert_eq!(sign_only.direction_right(), Some(false));
        let sign_only = Claim::direction("separation", Stated::Lower, -6.5);
        assert_eq!(sign_only.direction_right(), Some(true));
        let noise = Claim::change("isolation", -36.0, -0.004);
        assert_eq!(
            noise.direction_right(),
            Some(false),
            "rounding noise is no drop"
        );
        assert_eq!(
            Claim::ratio("gain", 2.0, 1.005).direction_right(),
            Some(false)
        );

        let magnitude = Claim::value("P100", "ms", 23.0, 11.1);
        assert_eq!(magnitude.direction_right(), None);
        assert!((magnitude.error().unwrap() + 0.517).abs() < 1e-3);
        assert!(magnitude.needs_cause());
    }

    #[test]
    fn the_tally_counts_causes_and_the_two_thirds_bar() {
        let claims = vec![
            Claim::ratio("a", 1.9, 1.8),
            Claim::ratio("b", 1.4, 1.5),
            Claim::ratio("c", 1.13, 2.75).cause("experiments/x/README.md"),
            Claim::direction("d", Stated::Lower, 5.0),
        ];
        let t = Tally::of(&claims);
        assert_eq!(
            t,
            Tally {
                rows: 4,
                with_direction: 4,
                direction_right: 3,
                numbers: 3,
                within: 2,
                outside_with_cause: 1,
                outside_without_cause: 1,
            }
        );
        assert!(t.two_thirds_within());
        assert!(
            t.line()
                .starts_with("4 rows: direction right in 3 of 4 that state one; 2 of 3 numbers")
        );
        let only = Tally::of(&claims[3..]).line();
        assert!(
            only.contains("no numbers stated, directions only"),
            "{only}"
        );
        let s = section(&claims);
        assert!(
            s.contains("| c | 1.13x | 2.75x | +143% | **no** | right | experiments/x/README.md |"),
            "{s}"
        );
        assert!(
            s.contains("| d | lower | +5.0% | - | - | **wrong** | **not shown yet** |"),
            "{s}"
        );
        assert!(!Tally::of(&claims[1..3]).two_thirds_within());
    }

    #[test]
    fn the_section_goes_before_the_first_heading_and_into_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let summary = "# Title\n\nSource.\n\n## First\n\nbody\n";
        let with = publish(dir.path(), "p", summary, &[Claim::ratio("a", 2.0, 2.0)]).unwrap();
        assert!(
            with.starts_with("# Title\n\nSource.\n\n## Every number"),
            "{with}"
        );
        assert!(with.ends_with("## First\n\nbody\n"), "{with}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("claims.json")).unwrap())
                .unwrap();
        assert_eq!(json["tally"]["within"], 1);
        assert!(dir.path().join("claims.md").exists());
    }

    /// The causes written into the reproductions' sources (`"FILE.md, \"Section\""`, string
    /// continuations joined), for the check below.
    fn cited_sections(source: &str) -> Vec<(String, String)> {
        let mut joined = String::new();
        let mut rest = source;
        // A `\` at a line's end continues the string past the next line's indentation.
        while let Some(i) = rest.find("\\\n") {
            joined += &rest[..i];
            rest = rest[i + 2..].trim_start();
        }
        joined += rest;
        let mut found = Vec::new();
        let mut at = 0;
        while let Some(i) = joined[at..].find("experiments/") {
            let start = at + i;
            at = start + 1;
            let tail = &joined[start..];
            let Some(md) = tail.find(".md, \\\"") else {
                continue;
            };
            let path = &tail[..md + 3];
            if path.contains(char::is_whitespace) {
                continue;
            }
            let title = &tail[md + 7..];
            let Some(end) = title.find("\\\"") else {
                continue;
            };
            found.push((path.to_string(), title[..end].to_string()));
        }
        found
    }

    /// Every experiment a row links to as its cause exists: the file, and a heading in it with
    /// the section's title (a renamed section would leave a row pointing nowhere).
    #[test]
    fn every_cited_experiment_section_exists() {
        let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let repo = crate_dir.join("../..");
        let mut sources = vec![crate_dir.join("src/reproduce")];
        let mut cited = Vec::new();
        while let Some(dir) = sources.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    sources.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    cited.extend(cited_sections(&text).into_iter().map(|c| (path.clone(), c)));
                }
            }
        }
        assert!(
            cited.len() >= 5,
            "the causes were not found in the sources: {cited:?}"
        );
        for (source, (file, title)) in cited {
            let text = std::fs::read_to_string(repo.join(&file))
                .unwrap_or_else(|e| panic!("{}: cites {file}: {e}", source.display()));
            assert!(
                text.lines()
                    .any(|l| l.starts_with('#') && l.trim_start_matches('#').trim() == title),
                "{}: cites {file}, \"{title}\", which has no such heading",
                source.display()
            );
        }
    }

    #[test]
    fn cited_sections_reads_continued_strings() {
        let src = "c.cause(\"experiments/a/README.md, \\\"What sets \\\n    the tails\\\" (x)\")";
        assert_eq!(
            cited_sections(src),
            [(
                "experiments/a/README.md".to_string(),
                "What sets the tails".to_string()
            )]
        );
    }
}
