//! CPU affinity: every JVM thread pinned to one CPU (`pin`), and the application threads to
//! the one CPU they share (`pin-app`).

use crate::options::{Options, Pin};

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
    fn sched_getcpu() -> i32;
    fn gettid() -> i32;
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

#[repr(C)]
struct Timespec {
    seconds: i64,
    nanos: i64,
}

/// `CLOCK_PROCESS_CPUTIME_ID` (Linux).
const PROCESS_CPU_CLOCK: i32 = 2;

/// CPU time every thread of this process has used, in nanoseconds (0 if the clock fails).
pub fn process_cpu_ns() -> u64 {
    let mut time = Timespec {
        seconds: 0,
        nanos: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to fill.
    if unsafe { clock_gettime(PROCESS_CPU_CLOCK, &mut time) } != 0 {
        return 0;
    }
    (time.seconds.max(0) as u64) * 1_000_000_000 + time.nanos.max(0) as u64
}

/// The operating system's id of the calling thread.
pub fn current_tid() -> i32 {
    // SAFETY: no arguments, no memory.
    unsafe { gettid() }
}

/// Whether the operating system has thread `tid` (of this process) ready to run or running:
/// a thread that is, but gets no CPU, is starved by the machine's load, not blocked. `None`
/// when the kernel does not say (no `/proc`, the thread is gone).
pub fn os_thread_runnable(tid: i32) -> Option<bool> {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    busy_in_stat(&stat)
}

/// Whether a thread of this process other than the calling one is runnable or waits for the
/// disk: while one is, the JVM is working (a collection, class loading reading a jar on a busy
/// disk, a safepoint a starved thread has not reached), so a program thread that waits is
/// waiting for that, not for ever.
pub fn another_thread_busy() -> bool {
    // SAFETY: no arguments.
    let me = unsafe { gettid() };
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    tasks.flatten().any(|task| {
        let tid: i32 = task.file_name().to_string_lossy().parse().unwrap_or(me);
        tid != me
            && std::fs::read_to_string(task.path().join("stat"))
                .ok()
                .and_then(|stat| busy_in_stat(&stat))
                == Some(true)
    })
}

/// Whether the machine has more threads ready to run than CPUs to run them, now (the kernel's
/// count of runnable threads, `/proc/loadavg`'s fourth field): a thread that waits then may
/// wait for one of them (a safepoint the JVM's starved threads have not reached). False when
/// the kernel does not say.
pub fn machine_overloaded() -> bool {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| runnable_in_loadavg(&l))
        .is_some_and(|running| running > cpus)
}

/// The runnable count of a `/proc/loadavg` line (`0.52 0.58 0.59 3/467 12345`: 3).
fn runnable_in_loadavg(line: &str) -> Option<usize> {
    line.split_whitespace()
        .nth(3)?
        .split('/')
        .next()?
        .parse()
        .ok()
}

/// Whether the state letter of a `/proc/…/stat` line (after the command name in parentheses,
/// which may itself hold parentheses and spaces) says the thread is busy: `R` runnable, `D`
/// waiting for the disk (it will go on by itself).
fn busy_in_stat(stat: &str) -> Option<bool> {
    let after = &stat[stat.rfind(')')? + 1..];
    let state = after.trim_start().chars().next()?;
    Some(matches!(state, 'R' | 'D'))
}

/// The CPU the calling thread runs on now.
fn current_cpu() -> u32 {
    // SAFETY: no arguments, no memory.
    unsafe { sched_getcpu() }.max(0) as u32
}

/// Restricts thread `tid` (0: the calling thread) to `cpu`.
fn set_affinity(tid: i32, cpu: u32) {
    if cpu >= 1024 {
        return;
    }
    let mut mask = [0u64; 16];
    mask[(cpu / 64) as usize] |= 1 << (cpu % 64);
    // SAFETY: `mask` is a valid cpu_set_t of 1024 bits.
    unsafe { sched_setaffinity(tid, std::mem::size_of_val(&mask), mask.as_ptr()) };
}

/// Pins every thread of the JVM (those that exist now; later ones inherit it) to one CPU: with
/// one application thread running at a time, hand-offs stay on one core's caches.
pub fn pin(pin: Pin) {
    let cpu = match pin {
        Pin::Off => return,
        Pin::Auto => current_cpu(),
        Pin::Cpu(n) => n,
    };
    let tasks = std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
                .collect()
        })
        .unwrap_or_else(|_| vec![0]);
    for tid in tasks {
        set_affinity(tid, cpu);
    }
}

/// Puts the calling application thread on the CPU all controlled threads share (`pin-app`):
/// the `pin` CPU, or the one the first of them ran on. Only one of them runs at a time, and a
/// hand-off to a thread parked on another CPU is a cross-CPU wake-up, several microseconds
/// each (BlockingQueue, nonpreemptive, 82,000 hand-offs: 2.1 s on two CPUs, 0.7 s on one).
/// The JVM's own threads (JIT compilers, GC) keep every CPU.
pub fn pin_application_thread(options: &Options) {
    static APP_CPU: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    if !options.pin_app {
        return;
    }
    let cpu = *APP_CPU.get_or_init(|| match options.pin {
        Pin::Cpu(n) => n,
        Pin::Off | Pin::Auto => current_cpu(),
    });
    set_affinity(0, cpu);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runnable_count_is_the_fourth_field_of_loadavg() {
        assert_eq!(runnable_in_loadavg("0.52 0.58 0.59 3/467 12345\n"), Some(3));
        assert_eq!(runnable_in_loadavg("0.52 0.58"), None);
    }

    #[test]
    fn the_state_letter_follows_the_last_parenthesis() {
        assert_eq!(busy_in_stat("4242 (java) R 1 2 3"), Some(true));
        assert_eq!(busy_in_stat("4244 (java) D 1 2 3"), Some(true));
        assert_eq!(busy_in_stat("4243 (pool-1 (x) y) S 1 2 3"), Some(false));
        assert_eq!(busy_in_stat("garbage"), None);
    }

    #[test]
    fn a_spinning_thread_makes_the_process_busy() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let spinner = std::thread::spawn(move || {
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        // The spinner is runnable whenever the kernel is asked (running or waiting for a CPU).
        let seen = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            another_thread_busy()
        });
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinner.join().unwrap();
        assert!(seen);
    }

    #[test]
    fn process_cpu_time_grows_with_work() {
        let before = process_cpu_ns();
        let mut x = 1u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        assert!(x != 0 && process_cpu_ns() > before);
    }

    #[test]
    fn the_calling_thread_is_runnable() {
        assert_eq!(os_thread_runnable(current_tid()), Some(true));
    }
}
