//! CPU affinity: every JVM thread pinned to one CPU (`pin`), and the application threads to
//! the one CPU they share (`pin-app`).

use crate::options::{Options, Pin};

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
    fn sched_getcpu() -> i32;
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
