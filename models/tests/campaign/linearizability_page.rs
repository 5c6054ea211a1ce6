//! A failing linearizability job of the campaign draws its history as one HTML page
//! (`PIPECHECK_LINEARIZABILITY_HTML`, set by the campaign next to the worker's log),
//! and the page shows the operation no linearization could place, in a headless
//! Chromium (skipped, saying so, where no Chromium is installed; `CHROMIUM=<path>`
//! picks one).
#![cfg(feature = "shuttle")]

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn a_failing_linearizability_job_draws_a_page_that_shows_the_failing_operation() {
    let dir = std::env::temp_dir().join(format!("pipecheck-page-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new(env!("CARGO_BIN_EXE_pipecheck"))
        .args(["worker", "--iterations", "300", "--time", "60", "--loom-bound", "2", "--seed", "1"])
        .arg("0:shuttle-random:pipe/mutex-linearizable:TryLockFailsAfterRelease")
        .env("PIPECHECK_LINEARIZABILITY_HTML", &dir)
        .output()
        .expect("the worker binary starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let result = stdout
        .lines()
        .find(|l| l.starts_with("pipecheck-result"))
        .unwrap_or_else(|| panic!("no result:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    assert!(result.contains(r#""invariant":"linearizable""#), "caught as linearizable: {result}");
    let pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the page's directory was made")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    assert!(!pages.is_empty(), "no page written in {}", dir.display());
    let Some(browser) = chromium() else {
        eprintln!("SKIPPED: no chromium found (install Debian's `chromium`, or set CHROMIUM)");
        return;
    };
    let profile = dir.join("profile");
    for page in &pages {
        let dom = dump_dom(&browser, &profile, page);
        assert!(dom.contains("id=\"op-unplaced\""), "{}: the failing operation is not drawn", page.display());
        assert!(dom.contains("data-drawn=\""), "{}: the page's script did not finish", page.display());
    }
}

/// The browser: `CHROMIUM`, else Debian's.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    path.exists().then_some(path)
}

/// The page's DOM after its script ran, from a headless browser with no network.
fn dump_dom(browser: &Path, profile: &Path, page: &Path) -> String {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("the browser starts");
    String::from_utf8_lossy(&output.stdout).into_owned()
}
