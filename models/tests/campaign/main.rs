//! The campaign's worker binary, run as the campaign runs it: a loom worker survives its
//! verdicts (`loom_worker`), a loom job's printed reproduce line reruns it
//! (`reproduce`), a worker built beforehand runs without a build (`prebuilt`), and a shuttle worker draws the picture of a failing
//! linearizability job that opens in a headless browser (`linearizability_page`).

mod linearizability_page;
mod loom_worker;
mod prebuilt;
mod reproduce;
