//! The HTML picture of a failing history, opened in headless Chromium: after its
//! script ran, the failing operation is drawn (DOM), and it shows on the screenshot in
//! its colour. Skipped, saying so, when no Chromium is installed
//! (`apt-get install -y chromium`; or set `CHROMIUM` to the browser's path).

use std::path::{Path, PathBuf};
use std::process::Command;

mod porcupine_pages;

use pipecheck::linearizability::foreign::{etcd, simulate};
use pipecheck::linearizability::{Budget, Linearization, check_report, html};

/// The browser to drive, if one is installed.
pub(super) fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Runs headless Chromium on `page` with `args`; its stdout.
pub(super) fn headless(browser: &Path, profile: &Path, page: &Path, args: &[&str]) -> String {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The longest vertical run of pixels of colour `rgb` in an RGBA/RGB image.
fn longest_vertical_run(png_bytes: Vec<u8>, rgb: [u8; 3]) -> (usize, usize) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a png");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("a frame");
    let channels = frame.line_size / frame.width as usize;
    let (width, height) = (frame.width as usize, frame.height as usize);
    let at = |x: usize, y: usize| &pixels[y * frame.line_size + x * channels..][..3];
    let mut longest = 0;
    let mut non_white = 0;
    for x in 0..width {
        let mut run = 0;
        for y in 0..height {
            let pixel = at(x, y);
            non_white += usize::from(pixel != [255, 255, 255]);
            run = if pixel == rgb { run + 1 } else { 0 };
            longest = longest.max(run);
        }
    }
    (longest, non_white)
}

#[test]
fn the_failing_operation_is_drawn_in_a_headless_browser() {
    let history = etcd::parse(&simulate::register_log(2, 4, 60, true)).unwrap();
    let report = check_report(&etcd::EtcdRegister, &history, Budget::default()).unwrap();
    let Linearization::NonLinearizable(failure) = &report.verdict else { panic!("the fault is injected") };
    let dir = std::env::temp_dir().join(format!("pipecheck-html-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("profile")).unwrap();
    let page = dir.join("failing.html");
    html::write_html(&page, &etcd::EtcdRegister, &history, &report).unwrap();
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(!text.contains("http://") || !text.contains("src=\"http"), "the page loads nothing");
    assert!(!text.contains("<script src") && !text.contains("<link"), "one self-contained file");

    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: no chromium found (apt-get install -y chromium, or set CHROMIUM); page at {}",
            page.display()
        );
        return;
    };
    let profile = dir.join("profile");
    let dom = headless(&browser, &profile, &page, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert!(dom.contains("id=\"op-unplaced\""), "the script drew the failing operation");
    assert!(dom.contains(&format!("data-op=\"{}\"", failure.unplaced.0)));
    assert!(dom.contains("data-drawn=\""), "the script ran to its end");

    let screenshot = dir.join("failing.png");
    headless(
        &browser,
        &profile,
        &page,
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1400,1000",
            "--virtual-time-budget=5000",
        ],
    );
    let (run, non_white) = longest_vertical_run(std::fs::read(&screenshot).unwrap(), [0xd6, 0x27, 0x28]);
    assert!(non_white > 10_000, "the screenshot is not blank ({non_white} coloured pixels)");
    // The legend's swatch is 12 px tall; only the operation's bar is taller.
    assert!(run >= 16, "the failing operation's bar shows in {} ({run} px)", html::UNPLACED_COLOR);
    if std::env::var_os("PIPECHECK_KEEP_HTML").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
