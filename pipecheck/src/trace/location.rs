//! Where what runs find is saved: one rule, [`target_dir`], for every saved trace,
//! shuttle schedule, proptest seed and campaign log: under the target directory of the
//! workspace being checked (`$CARGO_TARGET_DIR`, else its `target/`), never in the
//! source tree. A committed corpus (`traces/corpus/` in the workspace root) is read from
//! there. One naming scheme for traces:
//! `<fault or nofault>-<scenario>-<scheduler>-<seed>.trace`.

use std::path::{Path, PathBuf};

/// The root of the workspace being checked: the nearest directory holding a
/// `Cargo.lock` above the package cargo runs (`CARGO_MANIFEST_DIR`, which cargo sets
/// for `cargo run` and `cargo test`), else above the current directory.
///
/// # Examples
///
/// ```
/// assert!(pipecheck::trace::location::workspace_root().join("Cargo.lock").is_file());
/// ```
pub fn workspace_root() -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    start.ancestors().find(|dir| dir.join("Cargo.lock").is_file()).map_or(start.clone(), Path::to_owned)
}

/// The target directory of the workspace being checked: `CARGO_TARGET_DIR` (relative
/// to the workspace root if relative), else the workspace's `target/`. Everything a run
/// saves goes below it.
///
/// # Examples
///
/// ```
/// let target = pipecheck::trace::location::target_dir();
/// assert!(!target.starts_with(pipecheck::trace::location::workspace_root().join("src")));
/// ```
pub fn target_dir() -> PathBuf {
    let root = workspace_root();
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir))
}

/// The committed corpus: `traces/corpus/`, one minimized trace per planted bug.
///
/// # Examples
///
/// ```
/// assert!(pipecheck::trace::location::corpus_dir().ends_with("traces/corpus"));
/// ```
pub fn corpus_dir() -> PathBuf {
    workspace_root().join("traces").join("corpus")
}

/// Where runs save the failing schedules they find: `pipecheck/traces/` in the target
/// directory (`CARGO_TARGET_DIR`, relative to the workspace root if relative, else the
/// workspace's `target/`). Not created here.
///
/// # Examples
///
/// ```
/// let dir = pipecheck::trace::location::found_dir();
/// assert!(dir.ends_with("pipecheck/traces"));
/// ```
pub fn found_dir() -> PathBuf {
    target_dir().join("pipecheck").join("traces")
}

/// The file name of a trace: `<fault or nofault>-<scenario>-<scheduler>-<seed>.trace`,
/// with the scheduler written without punctuation (`pct(depth=3)` → `pctdepth3`).
///
/// # Examples
///
/// ```
/// use pipecheck::trace::location::file_name;
/// assert_eq!(file_name(Some("LifoPool"), "large-stream", "random", 7), "LifoPool-large-stream-random-7.trace");
/// assert_eq!(file_name(None, "large-cancel", "pct(depth=3)", 1), "nofault-large-cancel-pctdepth3-1.trace");
/// ```
pub fn file_name(fault: Option<&str>, scenario: &str, scheduler: &str, seed: u64) -> String {
    let scheduler: String = scheduler.chars().filter(char::is_ascii_alphanumeric).collect();
    format!("{}-{scenario}-{scheduler}-{seed}.trace", fault.unwrap_or("nofault"))
}

/// `path` as written in a trace's replay command: relative to the workspace root when
/// it lies inside it, as given otherwise.
///
/// # Examples
///
/// ```
/// use pipecheck::trace::location::{corpus_dir, from_root};
/// let path = corpus_dir().join("x.trace");
/// assert_eq!(from_root(&path), std::path::Path::new("traces/corpus/x.trace"));
/// ```
pub fn from_root(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_owned(), |cwd| cwd.join(path))
    };
    absolute.strip_prefix(workspace_root()).map_or_else(|_| path.to_owned(), Path::to_owned)
}

/// Saves `trace` under [`found_dir`] with its [`file_name`]; returns the path.
///
/// # Errors
///
/// The I/O error, naming the directory or the file.
pub fn save_found(
    trace: &crate::trace::trace_file::Trace,
) -> Result<PathBuf, crate::trace::trace_file::TraceError> {
    let dir = found_dir();
    std::fs::create_dir_all(&dir).map_err(|e| {
        crate::trace::trace_file::TraceError::new(&dir, None, format!("cannot create the directory: {e}"))
    })?;
    let path = dir.join(file_name(trace.fault.as_deref(), &trace.scenario, &trace.scheduler, trace.seed));
    trace.save(&path)?;
    Ok(path)
}

/// The `.trace` files directly in `dir`, sorted; none if `dir` does not exist.
///
/// # Examples
///
/// ```
/// use pipecheck::trace::location::{corpus_dir, traces_in};
/// assert!(!traces_in(&corpus_dir()).is_empty());
/// ```
pub fn traces_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .collect();
    files.sort();
    files
}
