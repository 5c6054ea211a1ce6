//! The `cargo test` command that runs the calling test again: what a reproduce line
//! prints, for the loom harness and the shuttle engine alike.

/// The calling test, as cargo names it: package, test target and test path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestInvocation {
    /// The package cargo ran the test from (`CARGO_PKG_NAME`, which cargo sets for the
    /// test binaries it runs).
    pub package: String,
    /// `--lib` for a library's unit tests, `--test <file>` for an integration test.
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
        // A library's unit tests run from a binary named after the crate.
        let target =
            if binary == package.replace('-', "_") { "--lib".to_owned() } else { format!("--test {binary}") };
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
