//! Whether measured figures may be judged against a target, and the verdict: a pure
//! function of the figures, so its rules are tested without timing anything.
//!
//! A comparison is a list of **pairs**: the two contenders' whole-process transfers of
//! one round, run seconds apart, and their throughput ratio. The machine is shared, so
//! a pair is **left out** when what happened around it says it measured the machine
//! rather than the contenders ([`Pair::excluded`]):
//!
//! * other processes (or the hypervisor, as steal time) used more than
//!   [`Limits::max_others`] of the machine's CPU time while one of its transfers ran;
//! * the two CPUs did not stay as far apart as they were: the CPU-to-CPU round trip
//!   read around its transfers changed by more than [`Limits::max_round_trip_ratio`] (a
//!   virtual machine's CPUs run wherever the host puts them, and a transfer across them
//!   moves 3× faster on one physical core's two threads than on two cores).
//!
//! Both are read independently of the figure, so leaving a pair out cannot favour a
//! verdict. The kept pairs are judged when they say the machine was quiet:
//!
//! * enough of them ([`Limits::min_pairs`]; `bench_report` runs more rounds, up to a
//!   limit, until every target has them);
//! * they agree: half their range within [`Limits::max_spread`] of the median
//!   (±25 % by default) — a wider spread means the rounds measured the machine's other
//!   work as much as the contenders;
//! * the 1-minute load average before the run, per CPU, was at most
//!   [`Limits::max_start_load_per_cpu`].
//!
//! Otherwise the verdict is [`Verdict::NotJudged`] with every cause found, never "met"
//! or "missed".

use std::fmt;

/// A list of figures summarized: how many, median, least and greatest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// How many figures.
    pub n: usize,
    /// Their median (the mean of the middle two for an even count).
    pub median: f64,
    /// The least.
    pub min: f64,
    /// The greatest.
    pub max: f64,
}

impl Spread {
    /// The summary of `values`; `None` when there are none or one is not a finite number.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        let median = if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 };
        Some(Spread { n: v.len(), median, min: v[0], max: v[v.len() - 1] })
    }

    /// Half the range over the median: the figures lie within ± this share of it.
    /// Infinite when the median is not positive.
    pub fn relative(&self) -> f64 {
        if self.median > 0.0 { (self.max - self.min) / 2.0 / self.median } else { f64::INFINITY }
    }

    /// `median (min–max, ±x %)` with `decimals` decimals (no `±` when the median is not
    /// positive).
    pub fn text(&self, decimals: usize) -> String {
        if self.n == 1 {
            return format!("{:.decimals$}", self.median);
        }
        let spread = self.relative();
        if !spread.is_finite() {
            return format!("{:.decimals$} ({:.decimals$}–{:.decimals$})", self.median, self.min, self.max);
        }
        format!(
            "{:.decimals$} ({:.decimals$}–{:.decimals$}, ±{:.0} %)",
            self.median,
            self.min,
            self.max,
            spread * 100.0
        )
    }
}

/// When figures say the machine was quiet enough to judge (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Fewest pairs to judge.
    pub min_pairs: usize,
    /// Widest spread of the judged figures, as [`Spread::relative`].
    pub max_spread: f64,
    /// Greatest share of the machine's CPU time (wall time × CPUs) that other
    /// processes used while one of a pair's transfers ran.
    pub max_others: f64,
    /// Greatest 1-minute load average per CPU before the run.
    pub max_start_load_per_cpu: f64,
    /// Greatest ratio of the slowest to the fastest CPU-to-CPU round trip read around a
    /// pair's transfers (and the run's typical one, as `bench_report` passes them): above
    /// it, the host moved the two virtual CPUs between a physical core's two threads
    /// (some 30 ns) and two cores (105–300 ns), and the pair's transfers ran on another
    /// machine, in effect, than each other or the run. Readings on one placement ranged
    /// over 2.2× in a run (2026-12-07), a move over 4–7×.
    pub max_round_trip_ratio: f64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            min_pairs: 5,
            max_spread: 0.25,
            max_others: 0.10,
            max_start_load_per_cpu: 0.25,
            max_round_trip_ratio: 2.5,
        }
    }
}

/// What a target asks of a figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    /// At least this much.
    AtLeast(f64),
    /// At most this much.
    AtMost(f64),
}

impl Goal {
    fn holds(self, value: f64) -> bool {
        match self {
            Goal::AtLeast(bound) => value >= bound,
            Goal::AtMost(bound) => value <= bound,
        }
    }
}

/// One pair: its figure and what the machine did around its two transfers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// The figure (a throughput ratio, or one contender's throughput).
    pub value: f64,
    /// The larger share of the machine other processes (and the hypervisor) used during
    /// one of its transfers, if the kernel says (see [`Limits::max_others`]).
    pub others: Option<f64>,
    /// The fastest and the slowest CPU-to-CPU round trip read around its transfers, in
    /// nanoseconds, if read (not under `--one-core`; see [`Limits::max_round_trip_ratio`]).
    pub round_trip: Option<(f64, f64)>,
}

impl Pair {
    /// A pair whose conditions were not read.
    pub fn bare(value: f64) -> Pair {
        Pair { value, others: None, round_trip: None }
    }

    /// Why this pair measured the machine rather than the contenders, if it did.
    pub fn excluded(&self, limits: &Limits) -> Option<Excluded> {
        if let Some(share) = self.others
            && share > limits.max_others
        {
            return Some(Excluded::Busy(share));
        }
        match self.round_trip {
            Some((fastest, slowest)) if slowest > fastest * limits.max_round_trip_ratio => {
                Some(Excluded::HostMoved { fastest, slowest })
            }
            _ => None,
        }
    }
}

/// Why a pair is left out of a verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Excluded {
    /// Other processes (or the hypervisor) used this share of the CPUs during one of
    /// its transfers, over [`Limits::max_others`].
    Busy(f64),
    /// The host moved the two CPUs closer or apart around its transfers: the round
    /// trip went from `fastest` to `slowest` nanoseconds, over
    /// [`Limits::max_round_trip_ratio`].
    HostMoved {
        /// Nanoseconds.
        fastest: f64,
        /// Nanoseconds.
        slowest: f64,
    },
}

/// The pairs left out of a comparison, summed up by cause: `1 busy (worst 16 %), 2 host
/// moves (28–161 ns)`, or `none`.
pub fn excluded_text(pairs: &[Pair], limits: &Limits) -> String {
    let excluded: Vec<Excluded> = pairs.iter().filter_map(|p| p.excluded(limits)).collect();
    let busy: Vec<f64> =
        excluded.iter().filter_map(|e| if let Excluded::Busy(s) = e { Some(*s) } else { None }).collect();
    let moves: Vec<(f64, f64)> = excluded
        .iter()
        .filter_map(|e| {
            if let Excluded::HostMoved { fastest, slowest } = e { Some((*fastest, *slowest)) } else { None }
        })
        .collect();
    let mut parts = Vec::new();
    if !busy.is_empty() {
        let worst = busy.iter().copied().fold(0.0, f64::max);
        parts.push(format!("{} busy (worst {:.0} %)", busy.len(), worst * 100.0));
    }
    if !moves.is_empty() {
        let fastest = moves.iter().map(|m| m.0).fold(f64::INFINITY, f64::min);
        let slowest = moves.iter().map(|m| m.1).fold(0.0, f64::max);
        let noun = if moves.len() == 1 { "host move" } else { "host moves" };
        parts.push(format!("{} {noun} ({fastest:.0}–{slowest:.0} ns)", moves.len()));
    }
    if parts.is_empty() { "none".into() } else { parts.join(", ") }
}

/// The pairs of one comparison that measured the contenders: those no condition
/// excludes.
pub fn kept(pairs: &[Pair], limits: &Limits) -> Vec<f64> {
    pairs.iter().filter(|p| p.excluded(limits).is_none()).map(|p| p.value).collect()
}

/// The measured figures of one comparison.
#[derive(Clone, Copy, Debug)]
pub struct Figures<'a> {
    /// Every pair measured, kept or not.
    pub pairs: &'a [Pair],
    /// The 1-minute load average before the run, if known.
    pub start_load: Option<f64>,
    /// CPUs of the machine.
    pub cpus: usize,
}

/// Why figures were not judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Noise {
    /// Fewer pairs kept than [`Limits::min_pairs`] (none, or not finite numbers: 0).
    TooFewPairs {
        /// Pairs kept.
        pairs: usize,
        /// Pairs needed.
        needed: usize,
    },
    /// The kept pairs spread wider than [`Limits::max_spread`].
    WideSpread {
        /// Half the range over the median.
        spread: f64,
        /// The limit.
        limit: f64,
    },
    /// The machine was loaded before the run.
    Loaded {
        /// The 1-minute load average.
        load: f64,
        /// The limit (per CPU times the CPUs).
        limit: f64,
    },
}

impl fmt::Display for Noise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Noise::TooFewPairs { pairs, needed } => write!(f, "{pairs} quiet pairs, {needed} needed"),
            Noise::WideSpread { spread, limit } => {
                // One decimal where whole percents would print the same number twice.
                let decimals = usize::from((spread * 100.0).round() == (limit * 100.0).round());
                write!(f, "spread ±{:.decimals$} % > ±{:.decimals$} %", spread * 100.0, limit * 100.0)
            }
            Noise::Loaded { load, limit } => write!(f, "load average {load:.2} > {limit:.2} at the start"),
        }
    }
}

/// A target's verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The figures were judged and meet the goal.
    Met,
    /// The figures were judged and miss the goal.
    Missed,
    /// The figures say the machine was noisy (every cause found): no verdict.
    NotJudged(Vec<Noise>),
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Met => f.write_str("met"),
            Verdict::Missed => f.write_str("**missed**"),
            Verdict::NotJudged(causes) => {
                f.write_str("noisy: not judged (")?;
                for (i, cause) in causes.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{cause}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Judges the **median** of the kept pairs' figures against `goal`, if they (their
/// count and spread) and the load say the machine was quiet.
pub fn judge_median(goal: Goal, figures: &Figures<'_>, limits: &Limits) -> Verdict {
    let spread = Spread::of(&kept(figures.pairs, limits));
    let mut causes = conditions(spread, figures, limits);
    if let Some(s) = spread
        && s.relative() > limits.max_spread
    {
        causes.push(Noise::WideSpread { spread: s.relative(), limit: limits.max_spread });
    }
    match spread {
        Some(s) if causes.is_empty() => verdict(goal.holds(s.median)),
        _ => Verdict::NotJudged(causes),
    }
}

/// Judges the **spread** of the kept pairs' figures (as [`Spread::relative`]) against
/// `at_most`: a target on how much a figure moves from run to run, so only the count of
/// quiet pairs and the load can make it unjudgeable.
pub fn judge_spread(at_most: f64, figures: &Figures<'_>, limits: &Limits) -> Verdict {
    let spread = Spread::of(&kept(figures.pairs, limits));
    let causes = conditions(spread, figures, limits);
    match spread {
        Some(s) if causes.is_empty() => verdict(s.relative() <= at_most),
        _ => Verdict::NotJudged(causes),
    }
}

fn verdict(holds: bool) -> Verdict {
    if holds { Verdict::Met } else { Verdict::Missed }
}

/// The causes other than the spread: too few quiet pairs (`kept`, their summary), load.
fn conditions(kept: Option<Spread>, figures: &Figures<'_>, limits: &Limits) -> Vec<Noise> {
    let mut causes = Vec::new();
    let pairs = kept.map_or(0, |s| s.n);
    if pairs < limits.min_pairs {
        causes.push(Noise::TooFewPairs { pairs, needed: limits.min_pairs });
    }
    if let Some(load) = figures.start_load {
        let limit = limits.max_start_load_per_cpu * figures.cpus.max(1) as f64;
        if load > limit {
            causes.push(Noise::Loaded { load, limit });
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUIET: [f64; 5] = [0.0, 0.01, 0.0, 0.02, 0.0];

    /// Pairs of `values`, with `others` (when given) read around them.
    fn pairs(values: &[f64], others: &[f64]) -> Vec<Pair> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| Pair { others: others.get(i).copied(), ..Pair::bare(v) })
            .collect()
    }

    fn figures(pairs: &[Pair], start_load: Option<f64>) -> Figures<'_> {
        Figures { pairs, start_load, cpus: 2 }
    }

    #[test]
    fn a_spread_is_half_the_range_over_the_median() {
        let s = Spread::of(&[1.0, 3.0, 2.0, 2.0]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max), (4, 2.0, 1.0, 3.0));
        assert_eq!(s.relative(), 0.5);
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[1.0, f64::NAN]), None, "a figure that is not a number spoils the list");
        assert_eq!(Spread::of(&[0.0, 0.0]).unwrap().relative(), f64::INFINITY);
        assert_eq!(Spread::of(&[0.0, 0.5, 0.0]).unwrap().text(1), "0.0 (0.0–0.5)");
        assert_eq!(Spread::of(&[1.0, 3.0, 2.0]).unwrap().text(1), "2.0 (1.0–3.0, ±50 %)");
    }

    #[test]
    fn quiet_narrow_figures_are_judged_by_their_median() {
        let p = pairs(&[1.6, 1.7, 1.55, 1.65, 1.6], &QUIET);
        let f = figures(&p, Some(0.1));
        assert_eq!(judge_median(Goal::AtLeast(1.5), &f, &Limits::default()), Verdict::Met);
        assert_eq!(judge_median(Goal::AtLeast(1.62), &f, &Limits::default()), Verdict::Missed);
        assert_eq!(judge_median(Goal::AtMost(1.62), &f, &Limits::default()), Verdict::Met);
    }

    #[test]
    fn a_wide_spread_is_not_judged_even_when_the_median_meets_the_goal() {
        // The published 64 B rtrb ratio of the old report: median 1.86, 1.41–2.42.
        let p = pairs(&[1.41, 1.86, 2.42, 1.7, 2.0], &QUIET);
        let verdict = judge_median(Goal::AtLeast(0.67), &figures(&p, Some(0.1)), &Limits::default());
        match verdict {
            Verdict::NotJudged(causes) => {
                assert_eq!(causes.len(), 1);
                assert!(
                    matches!(causes[0], Noise::WideSpread { spread, .. } if (spread - 0.2715).abs() < 1e-3)
                );
            }
            other => panic!("expected not judged, got {other:?}"),
        }
    }

    #[test]
    fn busy_pairs_are_left_out_and_too_few_quiet_ones_are_not_judged() {
        let limits = Limits::default();
        let p = pairs(&[0.2, 5.0, 0.2, 0.19, 9.0], &[0.0, 0.3, 0.0, 0.0, 0.5]);
        assert_eq!(kept(&p, &limits), [0.2, 0.2, 0.19], "the busy pairs' figures are gone");
        assert_eq!(excluded_text(&p, &limits), "2 busy (worst 50 %)");
        assert_eq!(
            judge_median(Goal::AtLeast(0.67), &figures(&p, Some(0.1)), &limits),
            Verdict::NotJudged(vec![Noise::TooFewPairs { pairs: 3, needed: 5 }]),
            "a missed goal on a noisy machine is not called missed either"
        );
        // Two more quiet rounds make five quiet pairs: judged on those alone.
        let mut more = p.clone();
        more.extend(pairs(&[0.21, 0.2], &[0.0, 0.01]));
        assert_eq!(judge_median(Goal::AtLeast(0.67), &figures(&more, Some(0.1)), &limits), Verdict::Missed);
    }

    #[test]
    fn pairs_across_a_host_move_are_left_out() {
        // 2026-12-07: 161 ns before most transfers, 28 ns before the one that ran at
        // 18 GiB/s instead of 6.
        let limits = Limits::default();
        let round_trips = [(150.0, 161.0), (28.0, 161.0), (140.0, 160.0), (100.0, 250.0), (26.0, 150.0)];
        let p: Vec<Pair> = [1.0, 3.0, 0.98, 1.01, 2.9]
            .iter()
            .zip(round_trips)
            .map(|(&v, rt)| Pair { round_trip: Some(rt), ..Pair::bare(v) })
            .collect();
        assert_eq!(kept(&p, &limits), [1.0, 0.98, 1.01], "2.5× exactly is one placement's variation");
        assert_eq!(excluded_text(&p, &limits), "2 host moves (26–161 ns)");
        let f = figures(&p, Some(0.1));
        let too_few = Verdict::NotJudged(vec![Noise::TooFewPairs { pairs: 3, needed: 5 }]);
        assert_eq!(judge_median(Goal::AtLeast(0.67), &f, &limits), too_few);
        assert_eq!(judge_spread(0.25, &f, &limits), too_few, "the spread target too");
    }

    #[test]
    fn every_cause_is_listed() {
        let p = pairs(&[1.0, 3.0, 8.0], &[0.0, 0.0, 0.9]);
        let verdict = judge_median(Goal::AtLeast(1.0), &figures(&p, Some(3.0)), &Limits::default());
        assert_eq!(
            verdict,
            Verdict::NotJudged(vec![
                Noise::TooFewPairs { pairs: 2, needed: 5 },
                Noise::Loaded { load: 3.0, limit: 0.5 },
                Noise::WideSpread { spread: 0.5, limit: 0.25 },
            ])
        );
        assert_eq!(
            verdict.to_string(),
            "noisy: not judged (2 quiet pairs, 5 needed; load average 3.00 > 0.50 at the start; spread ±50 % > ±25 %)"
        );
    }

    #[test]
    fn a_spread_just_over_the_limit_prints_as_over_it() {
        let noise = Noise::WideSpread { spread: 0.2532, limit: 0.25 };
        assert_eq!(noise.to_string(), "spread ±25.3 % > ±25.0 %");
    }

    #[test]
    fn no_figures_are_never_met() {
        let verdict = judge_median(Goal::AtMost(f64::INFINITY), &figures(&[], None), &Limits::default());
        assert_eq!(verdict, Verdict::NotJudged(vec![Noise::TooFewPairs { pairs: 0, needed: 5 }]));
        assert_eq!(excluded_text(&[], &Limits::default()), "none");
    }

    #[test]
    fn unknown_other_use_and_load_do_not_stop_a_verdict() {
        let p = pairs(&[2.0, 2.1, 1.9, 2.0, 2.0], &[]);
        assert_eq!(judge_median(Goal::AtLeast(1.5), &figures(&p, None), &Limits::default()), Verdict::Met);
    }

    #[test]
    fn the_load_limit_scales_with_the_cpus() {
        let p = pairs(&[2.0; 5], &QUIET);
        let mut f = figures(&p, Some(0.9));
        assert!(matches!(judge_median(Goal::AtLeast(1.5), &f, &Limits::default()), Verdict::NotJudged(_)));
        f.cpus = 4;
        assert_eq!(judge_median(Goal::AtLeast(1.5), &f, &Limits::default()), Verdict::Met);
    }

    #[test]
    fn a_spread_target_judges_the_spread_and_ignores_the_spread_limit() {
        // The pipe's own 64 B figure, run to run: 437–1364 MiB/s is far outside ±25 %.
        let wide = pairs(&[437.0, 900.0, 1364.0, 700.0, 800.0], &QUIET);
        assert_eq!(judge_spread(0.25, &figures(&wide, Some(0.1)), &Limits::default()), Verdict::Missed);
        let narrow = [900.0, 950.0, 1000.0, 920.0, 980.0];
        assert_eq!(
            judge_spread(0.25, &figures(&pairs(&narrow, &QUIET), Some(0.1)), &Limits::default()),
            Verdict::Met
        );
        assert!(matches!(
            judge_spread(0.25, &figures(&pairs(&narrow, &[0.2; 5]), Some(0.1)), &Limits::default()),
            Verdict::NotJudged(_)
        ));
    }

    #[test]
    fn figures_at_the_limits_are_judged() {
        // ±25 % exactly, other processes at 10 % exactly, load 0.5 on 2 CPUs exactly.
        let p = pairs(&[0.75, 1.0, 1.25, 1.0, 1.0], &[0.1; 5]);
        assert_eq!(
            judge_median(Goal::AtLeast(1.0), &figures(&p, Some(0.5)), &Limits::default()),
            Verdict::Met
        );
    }
}
