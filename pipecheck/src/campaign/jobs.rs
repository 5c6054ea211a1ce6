//! The campaign's unit of work: one scenario, under one engine, with or without one
//! planted bug — and how a campaign is planned and split into shards.

use std::fmt;
use std::str::FromStr;

use crate::target::{EngineClass, Target};
use pipecheck_sync::PlantedFault;
use serde::{Deserialize, Serialize};

use crate::campaign::registry;

/// A checking engine.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Engine {
    /// Loom: every interleaving within a preemption bound.
    Loom,
    /// Shuttle's random scheduler.
    ShuttleRandom,
    /// Shuttle's PCT scheduler.
    ShuttlePct,
    /// Proptest operation sequences against the reference model.
    Proptest,
}

impl Engine {
    pub(crate) const ALL: [Engine; 4] =
        [Engine::Loom, Engine::ShuttleRandom, Engine::ShuttlePct, Engine::Proptest];

    /// The cargo feature a worker for this engine is built with (`None`: std).
    pub(crate) fn feature(self) -> Option<&'static str> {
        match self {
            Engine::Loom => Some("loom"),
            Engine::ShuttleRandom | Engine::ShuttlePct => Some("shuttle"),
            Engine::Proptest => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Engine::Loom => "loom",
            Engine::ShuttleRandom => "shuttle-random",
            Engine::ShuttlePct => "shuttle-pct",
            Engine::Proptest => "proptest",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The pseudo-scenario of the proptest engine: random operation sequences.
pub(crate) const OP_SEQUENCES: &str = "op-sequences";

/// One unit of work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Job {
    /// Stable index in the full plan (the same whatever the shard).
    pub(crate) id: usize,
    pub(crate) engine: Engine,
    /// The target whose scenario (and planted bug) it runs.
    pub(crate) target: String,
    pub(crate) scenario: String,
    /// The planted bug switched on, if any, by its name in the target.
    pub(crate) fault: Option<String>,
}

impl Job {
    /// `id:engine:target/scenario:fault` (fault `-` for none), as passed to workers.
    pub(crate) fn spec(&self) -> String {
        let fault = self.fault.as_deref().unwrap_or("-");
        format!("{}:{}:{}/{}:{}", self.id, self.engine, self.target, self.scenario, fault)
    }

    /// The planted bug switched on, as its target declares it.
    pub(crate) fn planted(&self) -> Option<&'static PlantedFault> {
        registry::fault(&self.target, self.fault.as_deref()?)
    }
}

impl FromStr for Job {
    type Err = String;

    fn from_str(spec: &str) -> Result<Job, String> {
        let parts: Vec<&str> = spec.split(':').collect();
        let [id, engine, scenario, fault] = parts[..] else {
            return Err(format!("job spec `{spec}`: expected id:engine:target/scenario:fault"));
        };
        let Some((target, scenario)) = scenario.split_once('/') else {
            return Err(format!("job spec `{spec}`: expected target/scenario, got `{scenario}`"));
        };
        Ok(Job {
            id: id.parse().map_err(|e| format!("job spec `{spec}`: bad id: {e}"))?,
            engine: <Engine as clap::ValueEnum>::from_str(engine, true)
                .map_err(|e| format!("job spec `{spec}`: {e}"))?,
            target: target.to_owned(),
            scenario: scenario.to_owned(),
            fault: (fault != "-").then(|| fault.to_owned()),
        })
    }
}

/// Which part of the plan this machine runs: shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    pub(crate) index: usize,
    pub(crate) count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s.split_once('/').ok_or_else(|| format!("shard `{s}`: expected i/n, e.g. 1/4"))?;
        let index: usize = i.parse().map_err(|e| format!("shard `{s}`: {e}"))?;
        let count: usize = n.parse().map_err(|e| format!("shard `{s}`: {e}"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard `{s}`: need 1 <= i <= n"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether this shard owns job `id`: jobs are dealt round-robin, so shards never
    /// overlap and together cover the plan.
    pub(crate) fn owns(self, id: usize) -> bool {
        id % self.count == self.index - 1
    }
}

/// The full plan: clean runs of every scenario of every target each engine can afford,
/// then (with `faults`) every planted bug under every engine that can see it, on the
/// scenarios built to expose it. Proptest runs a target's operation sequences (if it
/// declares them) with the bugs they reach.
pub(crate) fn plan(targets: &[Target], engines: &[Engine], clean: bool, faults: bool) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut push = |engine: Engine, target: &Target, scenario: &str, fault: Option<&PlantedFault>| {
        jobs.push(Job {
            id: jobs.len(),
            engine,
            target: target.name().to_owned(),
            scenario: scenario.to_owned(),
            fault: fault.map(|f| f.name().to_owned()),
        });
    };
    for &engine in engines {
        for target in targets {
            if engine == Engine::Proptest {
                if target.sequences_runner().is_none() {
                    continue;
                }
                if clean {
                    push(engine, target, OP_SEQUENCES, None);
                }
                if faults {
                    for fault in target.planted().iter().filter(|f| f.reached_by_sequences()) {
                        push(engine, target, OP_SEQUENCES, Some(fault));
                    }
                }
                continue;
            }
            // What loom and shuttle can afford and see: `Target::runs`.
            let class = if engine == Engine::Loom { EngineClass::Exhaustive } else { EngineClass::Sampling };
            for (scenario, fault) in target.runs(class) {
                if (fault.is_none() && clean) || (fault.is_some() && faults) {
                    push(engine, target, scenario.name, fault);
                }
            }
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_specs_round_trip() {
        let job = Job {
            id: 7,
            engine: Engine::ShuttlePct,
            target: "counter".into(),
            scenario: "x-y".into(),
            fault: Some("LostUpdate".into()),
        };
        assert_eq!(job.spec().parse::<Job>(), Ok(job));
        assert!("1:loom:x".parse::<Job>().is_err());
        assert!("1:loom:x:-".parse::<Job>().is_err());
        assert!("1:nope:t/x:-".parse::<Job>().is_err());
    }

    // The plans are the fixture campaign's (`campaign::fixture`).
    #[test]
    fn shards_partition_the_plan() {
        let jobs = plan(registry::targets(), &Engine::ALL, true, true);
        assert!(jobs.len() > 3, "{jobs:?}");
        let n = 3;
        let mut seen = vec![0; jobs.len()];
        for i in 1..=n {
            let shard = Shard { index: i, count: n };
            for job in jobs.iter().filter(|j| shard.owns(j.id)) {
                seen[job.id] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
        assert!("0/2".parse::<Shard>().is_err() && "3/2".parse::<Shard>().is_err());
    }

    #[test]
    fn weak_memory_bugs_are_planned_for_loom_only() {
        let jobs = plan(registry::targets(), &Engine::ALL, false, true);
        let weak: Vec<&Job> =
            jobs.iter().filter(|j| j.planted().is_some_and(|f| f.needs_weak_memory())).collect();
        assert!(!weak.is_empty());
        assert!(weak.iter().all(|j| j.engine == Engine::Loom));
    }
}
