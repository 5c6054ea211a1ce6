//! Prints the litmus table of `docs/engines.md`: each classic weak-memory shape at the
//! orderings that decide it, C11's verdict, and what each engine shows.
//!
//! `cargo run -p pipecheck --example litmus --features loom` prints loom's table (loom
//! alone and pipecheck on loom); `--features shuttle` prints shuttle's.

#[allow(dead_code, unreachable_pub)]
#[path = "../tests/litmus/suite.rs"]
mod suite;

fn main() {
    #[cfg(feature = "loom")]
    println!("{}", suite::loom_table().0);
    #[cfg(all(feature = "shuttle", not(feature = "loom")))]
    println!("{}", suite::shuttle_table().0);
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    eprintln!("run with `--features loom` or `--features shuttle`");
}
