//! Every history porcupine ships (`tests/data/porcupine`), drawn and opened in headless
//! Chromium with a checking script appended (`layout_check.js`): no two labels' boxes
//! intersect, thread names stay put while the chart scrolls, the failing operation is
//! on the first screen, the linearization is drawn (the failing step in red), every
//! operation of it shows its state before and after, and no operation without a
//! return is labelled with an outcome.

use std::path::{Path, PathBuf};

use pipecheck::linearizability::foreign::{etcd, kv};
use pipecheck::linearizability::{Budget, CheckReport, History, SequentialModel, check_report, html};

use super::{chromium, headless};

/// The script the test appends to each page.
const CHECK: &str = include_str!("layout_check.js");

/// Porcupine's histories: (name, log path).
fn histories() -> Vec<(String, PathBuf)> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/porcupine");
    let mut found = Vec::new();
    for dir in ["jepsen", "kv"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(data.join(dir))
            .unwrap_or_else(|e| panic!("{}: {e}", data.join(dir).display()))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "log" || ext == "txt"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a readable log");
            if !text.trim().is_empty() {
                let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
                found.push((format!("{dir}_{name}"), path));
            }
        }
    }
    found
}

/// The page of `history` checked against `model`, with the checking script.
fn page<M: SequentialModel>(model: &M, history: &History<M::Input, M::Output>) -> (String, CheckReport) {
    let report = check_report(model, history, Budget::default()).expect("a well-formed history");
    let page = html::render(model, history, &report);
    (page.replace("</body>", &format!("<script>{CHECK}</script>\n</body>")), report)
}

/// `key=value` from the checking script's findings.
fn finding<'a>(findings: &'a str, key: &str) -> &'a str {
    findings
        .split(';')
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in {findings}"))
}

#[test]
fn every_porcupine_history_draws_a_readable_page() {
    let histories = histories();
    assert_eq!(histories.len(), 108, "porcupine's 102 etcd and 6 kv histories");
    let dir = std::env::temp_dir().join(format!("pipecheck-porcupine-pages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut pages = Vec::new();
    for (name, path) in &histories {
        let log = std::fs::read_to_string(path).unwrap();
        let (text, failing) = if name.starts_with("jepsen") {
            let history = etcd::parse(&log).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (text, report) = page(&etcd::EtcdRegister, &history);
            (text, !report.verdict.is_linearizable())
        } else {
            let history = kv::parse(&log).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (text, report) = page(&kv::KvStore, &history);
            (text, !report.verdict.is_linearizable())
        };
        let file = dir.join(format!("{name}.html"));
        std::fs::write(&file, text).unwrap();
        pages.push((name.clone(), file, failing));
    }
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: no chromium found (apt-get install -y chromium, or set CHROMIUM); pages in {}",
            dir.display()
        );
        return;
    };
    // Two browsers at a time: each launch is mostly waiting.
    let results: Vec<(String, bool, String)> = std::thread::scope(|scope| {
        let halves: Vec<_> = pages
            .chunks(pages.len().div_ceil(2))
            .enumerate()
            .map(|(at, chunk)| {
                let (browser, dir) = (&browser, &dir);
                scope.spawn(move || {
                    let profile = dir.join(format!("profile-{at}"));
                    chunk
                        .iter()
                        .map(|(name, file, failing)| {
                            let dom = headless(
                                browser,
                                &profile,
                                file,
                                &["--dump-dom", "--window-size=1400,1000", "--virtual-time-budget=5000"],
                            );
                            let findings = dom
                                .split("data-layout=\"")
                                .find(|rest| rest.starts_with("labels="))
                                .and_then(|rest| rest.split('"').next())
                                .unwrap_or_else(|| panic!("{name}: the checking script did not run"))
                                .to_owned();
                            (name.clone(), *failing, findings)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|half| half.join().expect("a browser thread")).collect()
    });
    let mut problems = Vec::new();
    for (name, failing, findings) in &results {
        let mut expect = |key: &str, ok: bool| {
            if !ok {
                problems.push(format!("{name}: {key} ({findings})"));
            }
        };
        expect("no labels found", finding(findings, "labels") != "0");
        expect("labels overlap", finding(findings, "overlaps") == "0");
        expect("thread names scroll away", finding(findings, "sticky") == "true");
        expect("an operation without a return shows an outcome", finding(findings, "unknownok") == "0");
        expect("states missing on hover", finding(findings, "withstates") == finding(findings, "prefix"));
        if *failing {
            expect("failing operation off the first screen", finding(findings, "failing") == "yes");
            expect("failing step not drawn", finding(findings, "failstep") == "1");
        }
        let drawn: usize = finding(findings, "prefix").parse().unwrap();
        expect("linearization not drawn", drawn < 2 || finding(findings, "order") != "0");
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    if std::env::var_os("PIPECHECK_KEEP_HTML").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
