//! Causes that lie in lock sections: a thread's check and act in two sections of one monitor
//! with another thread's section between. Every access is then ordered by the lock, so the
//! race and atomicity analyses of the parent module see nothing; the sections do.

use super::{accesses_by_location, is_access, Cause, Step};
use crate::op::OpKind;
use std::collections::HashMap;

/// Whether the section entered at `enter` (through its thread's matching exit) holds an
/// access the program made: then the accesses, not the sections, tell what went wrong.
fn section_touches_data(steps: &[Step], enter: usize) -> bool {
    let (t, monitor) = (steps[enter].thread, steps[enter].target);
    let mut depth = 0u32;
    for s in steps[enter..].iter().filter(|s| s.thread == t) {
        match s.kind {
            OpKind::MonitorEnter if s.target == monitor => depth += 1,
            OpKind::MonitorExit if s.target == monitor => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            _ if is_access(s) => return true,
            _ => {}
        }
    }
    false
}

/// The last pair of a thread's consecutive sections on one monitor with another thread's
/// section begun between them, preferring a pair whose thread was preempted between.
pub(super) fn lock_sections(steps: &[Step], blind_only: bool) -> Option<Cause> {
    // Per (thread, monitor): nesting depth, and where its last finished section began.
    let mut depth: HashMap<(u32, u64), (u32, Option<usize>)> = HashMap::new();
    // Per monitor: the outermost enters so far, in order.
    let mut enters: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut best: Option<((bool, usize), Cause)> = None;
    for (i, s) in steps.iter().enumerate() {
        let key = (s.thread, s.target);
        match s.kind {
            OpKind::MonitorEnter => {
                let (d, last) = depth.entry(key).or_insert((0, None));
                *d += 1;
                if *d > 1 {
                    continue;
                }
                let list = enters.entry(s.target).or_default();
                if let Some(a) = *last {
                    let between = list
                        .iter()
                        .rev()
                        .take_while(|&&e| e > a)
                        .find(|&&e| steps[e].thread != s.thread);
                    let blind = |e: usize| !blind_only || !section_touches_data(steps, e);
                    if let Some(&b) = between.filter(|&&b| blind(a) && blind(b)) {
                        let preempted = steps[a + 1..=b]
                            .iter()
                            .any(|o| o.preempted && o.thread != s.thread);
                        let score = (preempted, i);
                        if best.as_ref().is_none_or(|(sc, _)| score > *sc) {
                            let cause = Cause::LockSections {
                                first: a,
                                between: b,
                                second: i,
                            };
                            best = Some((score, cause));
                        }
                    }
                }
                list.push(i);
            }
            OpKind::MonitorExit => {
                if let Some((d, last)) = depth.get_mut(&key) {
                    *d = d.saturating_sub(1);
                    if *d == 0 {
                        *last = enters
                            .get(&s.target)
                            .and_then(|l| l.iter().rev().find(|&&e| steps[e].thread == s.thread))
                            .copied();
                    }
                }
            }
            _ => {}
        }
    }
    best.map(|(_, c)| c)
}

/// A thread's check and act on one location in two sections of one monitor, with another
/// thread's access of it in a section of that monitor between (`if (account.balance() >= x)
/// account.debit(x);` with both methods synchronized): every access is ordered by the lock, so
/// no race explains the failure, but the lock makes each section atomic, not the two together.
/// The triple most telling (a write on a stale read first), of the failing thread first,
/// nearest the end.
pub(super) fn atomicity_across_sections(steps: &[Step], failing: Option<u32>) -> Option<Cause> {
    let held = outermost_sections(steps);
    let by_loc = accesses_by_location(steps);
    let mut best: Option<((bool, u8, usize, usize), Cause)> = None;
    for list in by_loc.values() {
        for (pos, &c) in list.iter().enumerate() {
            let t = steps[c].thread;
            // The thread's last access of the location in an earlier section: one before it
            // is no nearer the act.
            let Some((a, monitor)) = list[..pos]
                .iter()
                .rev()
                .filter(|&&a| steps[a].thread == t)
                .find_map(|&a| Some((a, split_monitor(&held[a], &held[c])?)))
            else {
                continue;
            };
            let enter_a = section_of(&held[a], monitor);
            let enter_c = section_of(&held[c], monitor);
            for &b in list[..pos].iter().rev().take_while(|&&b| b > a) {
                let inside = section_of(&held[b], monitor).is_some_and(|e| {
                    enter_a.is_some_and(|ea| e > ea) && enter_c.is_some_and(|ec| e < ec)
                });
                if steps[b].thread == t || !inside {
                    continue;
                }
                // A write on a stale check, or a half-done update another thread saw; two
                // reads that disagree are left to the order analysis (a check made too early
                // and read again after the others ran).
                let pattern = match (
                    steps[a].kind == OpKind::Write,
                    steps[b].kind == OpKind::Write,
                    steps[c].kind == OpKind::Write,
                ) {
                    (false, true, true) => 2,
                    (true, false, true) => 1,
                    _ => 0,
                };
                if pattern == 0 {
                    continue;
                }
                let score = (failing == Some(t), pattern, c, b);
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    let cause = Cause::Atomicity {
                        first: a,
                        between: b,
                        second: c,
                        woke: None,
                    };
                    best = Some((score, cause));
                }
            }
        }
    }
    best.map(|(_, c)| c)
}

/// For each step, the monitors its thread held then, each with the index of the enter of its
/// outermost section.
fn outermost_sections(steps: &[Step]) -> Vec<Vec<(u64, usize)>> {
    let mut depth: HashMap<(u32, u64), u32> = HashMap::new();
    let mut held: HashMap<u32, Vec<(u64, usize)>> = HashMap::new();
    let mut out = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        let key = (s.thread, s.target);
        match s.kind {
            OpKind::MonitorEnter => {
                let d = depth.entry(key).or_insert(0);
                if *d == 0 {
                    held.entry(s.thread).or_default().push((s.target, i));
                }
                *d += 1;
            }
            OpKind::MonitorExit => {
                if let Some(d) = depth.get_mut(&key) {
                    *d = d.saturating_sub(1);
                    if *d == 0 {
                        if let Some(list) = held.get_mut(&s.thread) {
                            list.retain(|&(m, _)| m != s.target);
                        }
                    }
                }
            }
            _ => {}
        }
        out.push(held.get(&s.thread).cloned().unwrap_or_default());
    }
    out
}

/// A monitor held at both accesses, in two different sections.
fn split_monitor(a: &[(u64, usize)], c: &[(u64, usize)]) -> Option<u64> {
    a.iter()
        .find(|(m, enter)| c.iter().any(|(n, e)| n == m && e != enter))
        .map(|&(m, _)| m)
}

/// The enter of the section of `monitor` held, if it is.
fn section_of(held: &[(u64, usize)], monitor: u64) -> Option<usize> {
    held.iter().find(|(m, _)| *m == monitor).map(|&(_, e)| e)
}
