//! The `cargo test` command that runs the calling test again: what a reproduce line
//! prints, for the loom harness and the shuttle engine alike.

use std::sync::OnceLock;

/// The test target of this process when its binary's name cannot tell (a binary's unit
/// tests are named after the crate, as a library's are): set by the test
/// [`campaign_main!`](crate::campaign_main) declares in a campaign binary.
static DECLARED_TARGET: OnceLock<String> = OnceLock::new();

/// Declares this test process a binary's unit tests (`--bin <bin>`), for every
/// [`TestInvocation::current`] after it.
pub(crate) fn declare_bin(bin: &str) {
    let _ = DECLARED_TARGET.set(format!("--bin {bin}"));
}

/// The calling test, as cargo names it: package, test target and test path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestInvocation {
    /// The package cargo ran the test from (`CARGO_PKG_NAME`, which cargo sets for the
    /// test binaries it runs).
    pub package: String,
    /// `--lib` for a library's unit tests, `--bin <bin>` for a binary's, `--test <file>`
    /// for an integration test.
    pub target: String,
    /// The test's full path (`module::test`), the name libtest gives its thread.
    pub test: String,
}

impl TestInvocation {
    /// The test running on this thread. Call it on the test's own thread (libtest names
    /// that thread after the test); elsewhere the test reads `<test name>`.
    pub fn current() -> TestInvocation {
        let package = std::env::var("CARGO_PKG_NAME").unwrap_or_else(|_| "<your package>".to_owned());
        let binary = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .map(|stem| stem.rsplit_once('-').map_or(stem.clone(), |(name, _hash)| name.to_owned()))
            .unwrap_or_else(|| "<test file>".to_owned());
        // A library's unit tests run from a binary named after the crate, and so may a
        // binary's: a campaign binary's test declares which it is.
        let target = match DECLARED_TARGET.get() {
            Some(declared) => declared.clone(),
            None if binary == package.replace('-', "_") => "--lib".to_owned(),
            None => format!("--test {binary}"),
        };
        let test = std::thread::current().name().unwrap_or("<test name>").to_owned();
        TestInvocation { package, target, test }
    }

    /// `cargo test -p <package> --features <features> <target> -- <test> --exact`.
    pub fn command(&self, features: &str) -> String {
        format!(
            "cargo test -p {} --features {features} {} -- {} --exact",
            self.package, self.target, self.test
        )
    }
}
