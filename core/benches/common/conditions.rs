//! What the machine was doing around one whole-process transfer: how much CPU time
//! the transfer's process used (`getrusage(RUSAGE_CHILDREN)`, in microseconds, so the
//! caller must have waited for it), how much every CPU was busy (the root cpuacct
//! cgroup's nanosecond counter where there is one, plus `/proc/stat`'s steal time, else
//! `/proc/stat`'s clock ticks alone), so
//! how much **other** processes used meanwhile, and the load average.
//!
//! A transfer is quiet when other processes used next to nothing of the machine while
//! it ran. (Not Linux's CPU pressure, `/proc/pressure/cpu`: it counts a transfer's own
//! two threads waiting for each other when they share one core, as the rtrb ring's
//! yielding threads often do, and so reads 70–100 % on an otherwise idle machine.)
//! "CPUs used" tells where the scheduler put the two threads: about 1 when they took
//! turns on one core, up to 2 when each had its own.

use std::time::{Duration, Instant};

/// One reading, taken right before and right after a child process runs.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    at: Instant,
    /// Busy time of all CPUs together (`/proc/stat`), when the kernel reports it.
    busy: Option<Duration>,
    /// CPU time (user and system) of every child waited for so far.
    children: Duration,
}

/// Takes a [`Sample`].
pub fn sample() -> Sample {
    Sample { at: Instant::now(), busy: busy_cpu(), children: children_cpu() }
}

/// What happened between two samples around one child process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct During {
    /// Wall time.
    pub wall: Duration,
    /// Share of the machine's CPU time (wall time × CPUs) that other processes used,
    /// if known (to the nanosecond, or at `/proc/stat`'s 10 ms per CPU without cpuacct).
    pub others: Option<f64>,
    /// The child's CPU time over the wall time: CPUs it kept busy on average.
    pub cpus_used: f64,
}

impl During {
    /// From `before` to `after`.
    pub fn between(before: &Sample, after: &Sample, cpus: usize) -> During {
        let wall = after.at.saturating_duration_since(before.at);
        let secs = wall.as_secs_f64().max(1e-9);
        let used = after.children.saturating_sub(before.children).as_secs_f64();
        let others = match (before.busy, after.busy) {
            (Some(a), Some(b)) => Some(
                ((b.saturating_sub(a).as_secs_f64() - used) / (secs * cpus.max(1) as f64)).clamp(0.0, 1.0),
            ),
            _ => None,
        };
        During { wall, others, cpus_used: used / secs }
    }
}

/// Busy time of every CPU together: the root cpuacct cgroup's counter (nanoseconds,
/// every task on the machine) when this process sits in that root, so the reading
/// covers everyone, plus the steal time, which no task of this machine's is charged
/// with (on a virtual machine, the hypervisor running someone else on our CPU); else
/// `/proc/stat` alone (10 ms ticks, steal included).
fn busy_cpu() -> Option<Duration> {
    match root_cpuacct_usage() {
        Some(tasks) => Some(tasks + proc_stat_ticks().map_or(Duration::ZERO, |t| t.steal)),
        None => proc_stat_ticks().map(|t| t.busy),
    }
}

/// `cpuacct.usage` of the cgroup-v1 root, if this process is in it (its cpuacct line in
/// `/proc/self/cgroup` is `…:cpuacct:/`): total CPU time of all tasks, in nanoseconds.
/// At `/proc/stat`'s 10 ms a tick, a 20 ms transfer's "others" would be ±25 % of two
/// CPUs from rounding alone.
fn root_cpuacct_usage() -> Option<Duration> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // Lines are `ID:CONTROLLERS:PATH`.
    let in_root = groups.lines().any(|line| {
        let mut fields = line.splitn(3, ':').skip(1);
        let (controllers, path) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        controllers.split(',').any(|c| c == "cpuacct") && path == "/"
    });
    if !in_root {
        return None;
    }
    let text = std::fs::read_to_string("/sys/fs/cgroup/cpuacct/cpuacct.usage").ok()?;
    text.trim().parse().ok().map(Duration::from_nanos)
}

/// Two sums of `/proc/stat`'s first line.
struct StatTicks {
    /// All but idle and iowait (steal counts: the hypervisor gave the CPU to someone else).
    busy: Duration,
    /// Steal alone.
    steal: Duration,
}

/// The first line of `/proc/stat`: user, nice, system, idle, iowait, irq, softirq,
/// steal, … in clock ticks, summed over the CPUs.
fn proc_stat_ticks() -> Option<StatTicks> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = line.split_whitespace().map(|t| t.parse().unwrap_or(0)).collect();
    let busy: u64 = ticks.iter().take(8).enumerate().filter(|&(i, _)| i != 3 && i != 4).map(|(_, t)| t).sum();
    let steal = ticks.get(7).copied().unwrap_or(0);
    // SAFETY: `sysconf` only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let seconds = |t: u64| Duration::from_secs_f64(t as f64 / hz as f64);
    (hz > 0).then(|| StatTicks { busy: seconds(busy), steal: seconds(steal) })
}

fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes one `rusage` through the pointer, which points to
    // writable memory of that size; `RUSAGE_CHILDREN` is a valid `who`.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    // SAFETY: `getrusage` returned 0, so it filled the struct (zeroed before, so every
    // field is initialized either way).
    let usage = unsafe { usage.assume_init() };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The 1-, 5- and 15-minute load averages, if the kernel reports them.
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut fields = text.split_whitespace().map(str::parse::<f64>);
    Some([fields.next()?.ok()?, fields.next()?.ok()?, fields.next()?.ok()?])
}

/// The CPUs this process may run on, in order.
///
/// # Errors
///
/// The OS error of `sched_getaffinity`.
pub fn allowed_cpus() -> Result<Vec<usize>, String> {
    // SAFETY: a zeroed `cpu_set_t` is a valid empty set; the call writes one set of the
    // size passed, for this thread (pid 0).
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        set
    };
    // SAFETY: `CPU_ISSET` reads the set initialized above, at indices below its size.
    Ok((0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect())
}

/// Pins the calling thread, and every thread it starts from now on, to `cpu`.
///
/// # Errors
///
/// The OS error of `sched_setaffinity` (for instance, `cpu` is not allowed).
pub fn pin_current_thread(cpu: usize) -> Result<(), String> {
    // SAFETY: a zeroed `cpu_set_t` is a valid empty set; `CPU_SET` writes within it
    // (`cpu` is checked against its size); the call reads one set of the size passed,
    // for the calling thread (pid 0).
    unsafe {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(format!("CPU {cpu} is beyond the CPU set"));
        }
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
            return Err(format!("CPU {cpu}: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// Pins this process, and so every child it starts from now on, to the first CPU it
/// may run on. Returns that CPU.
///
/// # Errors
///
/// The OS error of `sched_getaffinity`/`sched_setaffinity`, or none allowed.
pub fn pin_to_one_cpu() -> Result<usize, String> {
    let cpu = *allowed_cpus()?.first().ok_or("no CPU allowed")?;
    pin_current_thread(cpu)?;
    Ok(cpu)
}

/// The environment variable that places a transfer's two threads on two CPUs:
/// `WRITER,READER` (CPU numbers). `bench_report --two-cores` sets it for its children;
/// unset, the scheduler places the threads.
pub const PLACE_VAR: &str = "PIPECHECK_BENCH_PLACE";

/// The writer's and the reader's CPU from [`PLACE_VAR`], if it is set.
///
/// # Panics
///
/// If the variable is set to anything but two CPU numbers: a transfer placed other than
/// asked would be reported under the wrong heading.
pub fn placement() -> Option<(usize, usize)> {
    let text = std::env::var(PLACE_VAR).ok()?;
    let parsed =
        text.split_once(',').and_then(|(w, r)| Some((w.trim().parse().ok()?, r.trim().parse().ok()?)));
    Some(parsed.unwrap_or_else(|| panic!("{PLACE_VAR}={text:?}: expected WRITER,READER CPU numbers")))
}

/// Round trips of one cache line per [`round_trip`] batch: some 0.3 ms at the
/// 105–300 ns measured between this machine's two CPUs, so a whole reading (thread
/// start included) stays around a millisecond.
const ROUND_TRIPS: u64 = 2_000;
/// Batches per reading; the reading is their median.
const BATCHES: usize = 7;

/// How far apart two CPUs are right now: the time one cache line takes to go from `cpus.0`
/// to `cpus.1` and back, the median of a few batches of round trips between two threads
/// pinned there. On a virtual machine two virtual CPUs are wherever the host runs them:
/// on two threads of one physical core they share its caches and a round trip takes some
/// 30 ns; on two cores, 105–300 ns (2026-12-07, this machine). A transfer across the two
/// CPUs moves with that distance (the pipe at 4 KiB: 18 GiB/s against 6 GiB/s), so the
/// report reads it around every transfer and leaves pairs around which the host moved
/// the CPUs out of its verdicts. `None` if a thread cannot be pinned.
pub fn round_trip(cpus: (usize, usize)) -> Option<Duration> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    // Its own cache lines (two: the adjacent-line prefetcher pairs them), so nothing
    // else shares the line that travels.
    #[repr(align(128))]
    struct Line(AtomicU64);
    let padded = Line(AtomicU64::new(0));
    let line = &padded.0;
    // Set by a side that cannot go on (it could not pin), so the other stops waiting.
    let abort = AtomicBool::new(false);
    // Each side stores the next value once it sees the other's: odd from `cpus.0`, even
    // from `cpus.1`; `READY` first, from `cpus.1` once pinned.
    const READY: u64 = u64::MAX;
    let wait_for = |value: u64| loop {
        if line.load(Ordering::Acquire) == value {
            return true;
        }
        if abort.load(Ordering::Relaxed) {
            return false;
        }
        std::hint::spin_loop();
    };
    let sent = |batch: u64, i: u64| 2 * (batch * ROUND_TRIPS + i) + 1;
    std::thread::scope(|scope| {
        scope.spawn(|| {
            if pin_current_thread(cpus.1).is_err() {
                abort.store(true, Ordering::Relaxed);
                return;
            }
            line.store(READY, Ordering::Release);
            for batch in 0..BATCHES as u64 {
                for i in 0..ROUND_TRIPS {
                    if !wait_for(sent(batch, i)) {
                        return;
                    }
                    line.store(sent(batch, i) + 1, Ordering::Release);
                }
            }
        });
        // A thread of its own too: pinning the caller would pin every process it starts.
        let timed = scope.spawn(|| {
            if pin_current_thread(cpus.0).is_err() {
                abort.store(true, Ordering::Relaxed);
                return None;
            }
            if !wait_for(READY) {
                return None;
            }
            let mut batches = Vec::with_capacity(BATCHES);
            for batch in 0..BATCHES as u64 {
                let start = Instant::now();
                for i in 0..ROUND_TRIPS {
                    line.store(sent(batch, i), Ordering::Release);
                    if !wait_for(sent(batch, i) + 1) {
                        return None;
                    }
                }
                batches.push(start.elapsed() / ROUND_TRIPS as u32);
            }
            batches.sort();
            Some(batches[BATCHES / 2])
        });
        timed.join().ok().flatten()
    })
}
