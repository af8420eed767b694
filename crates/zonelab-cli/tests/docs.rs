//! The commands README.md and docs/ give, as a reader would type them: the quick-start does
//! what README says it does, every `zonelab ...` command the documents name exists with the
//! options they give it, and the concrete ones run. (README's Python example runs as a script
//! and in a notebook in python/tests/test_readme.py.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md, python/README.md and every document in docs/.
fn documents() -> Vec<(PathBuf, String)> {
    let mut paths = vec![repo().join("README.md"), repo().join("python/README.md")];
    let mut stack = vec![repo().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/ is readable") {
            let p = entry.expect("an entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a readable document");
            (p, text)
        })
        .collect()
}

/// Every `zonelab ...` in inline code, as written (a table's `\|` is an alternative's bar).
fn documented_commands() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (path, text) in documents() {
        let mut rest = text.as_str();
        while let Some(i) = rest.find("`zonelab ") {
            let after = &rest[i + 1..];
            let Some(j) = after.find('`') else { break };
            out.push((path.clone(), after[..j].replace("\\|", "|")));
            rest = &after[j..];
        }
    }
    out
}

/// A fresh directory (removed when dropped) where `experiments` is the repository's, so a
/// documented relative path works and what a command writes lands here.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("zonelab-docs-")
        .tempdir()
        .expect("a temporary directory");
    for d in ["experiments", "presets"] {
        std::os::unix::fs::symlink(repo().join(d), dir.path().join(d)).expect("a symlink");
    }
    dir
}

fn zonelab(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("zonelab runs")
}

/// README's first command runs the quick-start experiment and prints what README says:
/// "the latency table (P50 to P100) per operation, bandwidth, NAND counts, WAF, resets, energy
/// and wear", writing everything to `results/quickstart/`.
#[test]
fn the_readme_quick_start_does_what_it_says() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let first = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("README starts with a sh block");
    let args = first
        .trim()
        .strip_prefix("cargo run --release -p zonelab-cli -- ")
        .unwrap_or_else(|| panic!("README's first command is not the CLI's: {first}"));
    for said in [
        "latency table (P50 to P100) per operation",
        "bandwidth, NAND counts, WAF,\nresets, energy and wear",
        "writes everything to `results/quickstart/`",
    ] {
        assert!(readme.contains(said), "README no longer says: {said}");
    }
    let dir = workspace();
    let args: Vec<&str> = args.split_whitespace().collect();
    let o = zonelab(&args, dir.path());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for column in ["p50 us", "p99 us", "p99.99 us", "p100 us", "IOPS", "MiB/s"] {
        assert!(stdout.contains(column), "no `{column}` column:\n{stdout}");
    }
    for line in ["NAND:", "WAF", "zone resets:", "energy:", "wear:"] {
        assert!(stdout.contains(line), "no `{line}`:\n{stdout}");
    }
    let results = dir.path().join("results/quickstart");
    for file in [
        "summary.json",
        "config.resolved.toml",
        "latency_percentiles.csv",
        "timeseries.csv",
    ] {
        assert!(results.join(file).is_file(), "no results/quickstart/{file}");
    }
    assert!(stdout.contains("results in results/quickstart"), "{stdout}");
}

/// The subcommand a documented command names (`zone report`, `presets list`, `run`).
fn subcommand(words: &[&str]) -> Vec<String> {
    let mut path = vec![words[0].to_string()];
    if matches!(words[0], "presets") && words.len() > 1 && !words[1].starts_with('-') {
        path.push(words[1].to_string());
    }
    path
}

/// Every `zonelab SUBCOMMAND ... --option` in README and docs names a subcommand and options
/// that `zonelab SUBCOMMAND --help` lists (in this build: `ublk` needs `--features ublk`).
#[test]
fn every_documented_command_and_option_exists() {
    let commands = documented_commands();
    assert!(commands.len() >= 20, "{} commands found", commands.len());
    let dir = workspace();
    let mut wrong = Vec::new();
    for (doc, command) in &commands {
        let words: Vec<&str> = command.split_whitespace().skip(1).collect();
        if words.is_empty() || (words[0] == "ublk" && !cfg!(feature = "ublk")) {
            continue;
        }
        let mut args: Vec<String> = subcommand(&words);
        args.push("--help".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = zonelab(&args, dir.path());
        let help = String::from_utf8_lossy(&o.stdout);
        if !o.status.success() {
            wrong.push(format!(
                "{}: `{command}`: no such subcommand",
                doc.display()
            ));
            continue;
        }
        for w in &words {
            let option = w
                .trim_start_matches(['[', '('])
                .split(['=', ']', ')', '|'])
                .next()
                .unwrap_or("");
            if option.starts_with("--") && option.len() > 2 && !help.contains(option) {
                wrong.push(format!(
                    "{}: `{command}`: no option {option}",
                    doc.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The documented commands that are whole (no placeholder, no alternatives) run as written and
/// succeed. Left out: `bench` (a speed measurement), `reproduce` (whole papers; their tests are
/// in cli.rs), `ublk` (root and a kernel: vm/test.sh), and ones that write into docs/.
#[test]
fn every_whole_documented_command_runs() {
    let dir = workspace();
    let mut ran = Vec::new();
    let mut wrong = Vec::new();
    for (doc, command) in documented_commands() {
        let words: Vec<&str> = command.split_whitespace().skip(1).collect();
        let placeholder = |w: &&str| {
            w.contains(&['[', '|', '.'][..]) && !w.contains('/')
                || w.chars().any(|c| c.is_ascii_uppercase())
                || *w == "..."
        };
        if words.len() < 2
            || words.iter().any(placeholder)
            || matches!(words[0], "bench" | "reproduce" | "ublk")
            || command.contains("docs/")
        {
            continue;
        }
        let o = zonelab(&words, dir.path());
        if !o.status.success() {
            wrong.push(format!(
                "{}: `{command}`: {}",
                doc.display(),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        ran.push(command);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    ran.sort();
    ran.dedup();
    eprintln!("ran: {ran:#?}");
    assert!(ran.len() >= 3, "only these ran: {ran:?}");
}

/// The repository stands alone: no file cites the workspace's papers or notes by a path or a
/// file name outside it (a reader has only the repository; papers are cited by authors, title,
/// venue and year in docs/references.md).
#[test]
fn no_reference_points_outside_the_repository() {
    // Built from parts, so that this file does not hold what it looks for.
    let outside_dir = format!("../{}/", "shared");
    let papers_dir = format!("{}/papers", "shared");
    let out = Command::new("git")
        .args(["ls-files"])
        .current_dir(repo())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files failed");
    let files = String::from_utf8_lossy(&out.stdout).to_string();
    let mut outside = Vec::new();
    let mut read = 0;
    for file in files.lines() {
        let Ok(text) = std::fs::read_to_string(repo().join(file)) else {
            continue; // binary or gone
        };
        read += 1;
        for (n, line) in text.lines().enumerate() {
            if line.contains(&outside_dir) || line.contains(&papers_dir) || names_a_paper_file(line)
            {
                outside.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(read > 100, "only {read} files read");
    assert!(outside.is_empty(), "{}", outside.join("\n"));
}

/// A paper named by its file in the workspace: three digits, `_`, 16 hex digits, `.txt`.
fn names_a_paper_file(line: &str) -> bool {
    line.match_indices('_').any(|(i, _)| {
        i >= 3
            && line[..i].ends_with(|c: char| c.is_ascii_digit())
            && line.get(i + 1..i + 21).is_some_and(|s| {
                s[..16].chars().all(|c| c.is_ascii_hexdigit()) && &s[16..] == ".txt"
            })
    })
}
