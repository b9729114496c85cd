//! The instrumented program's site table (`META-INF/rankcheck/sites.tsv`), reduced to what the
//! agent needs: which field a data-access site touches.

use crate::hash::mix;
use java_harness::hooks::{Hook, SiteKind, SiteRecord};
use std::collections::HashMap;

/// What the harness needs to know about a site (from the site table).
#[derive(Clone, Copy, Debug)]
pub struct SiteInfo {
    /// Identity of the field (hash of `owner.name:descriptor`), 0 for arrays and non-data sites.
    pub field: u64,
    pub is_static: bool,
    /// In a static initializer: never a scheduling point. A thread preempted inside `<clinit>`
    /// would block every other thread that touches the class in the JVM's class-initialization
    /// lock, where rankcheck cannot see (JVMS §5.5).
    pub clinit: bool,
    /// An allocation site that makes a plain object or a `java.util.concurrent` one: the object
    /// is the execution's own, though its class's loader cannot tell (pinned.rs gives it a
    /// hash).
    pub jdk_alloc: bool,
    /// The entry of a lock's or a semaphore's acquisition (`rewriter::passes::atomics::acquires`).
    pub acquires: bool,
}

/// One site table, parsed.
#[derive(Debug, Default)]
pub struct Parsed {
    pub infos: HashMap<i64, SiteInfo>,
    /// Where each site is, as people read it (`pkg.Cls.method line 12`), for messages.
    pub places: HashMap<i64, Box<str>>,
    /// Each site's table line, for traces: the CLI knows the program's sites, not those of
    /// JDK classes rewritten at load time.
    pub lines: HashMap<i64, Box<str>>,
    /// A site calls `ManagementFactory.getPlatformMBeanServer()` ([`Hook::PlatformMBeanServer`]).
    pub uses_mbean_server: bool,
}

/// The place of a site as people read it: `pkg.Cls.method line 12`.
pub fn place(rec: &SiteRecord) -> String {
    let class = rec.class.replace('/', ".");
    match rec.line {
        Some(line) => format!("{class}.{} line {line}", rec.method),
        None => format!("{class}.{}", rec.method),
    }
}

/// Parses the concatenated site tables: the site infos and places, and the allocation-site
/// records (for `naming`). Lines that do not parse are skipped (an older or newer rewriter's
/// extra columns must not stop a run).
pub fn parse_records(text: &str) -> (Parsed, Vec<SiteRecord>) {
    let mut sites = HashMap::new();
    let mut places = HashMap::new();
    let mut lines = HashMap::new();
    let mut allocs = Vec::new();
    let mut uses_mbean_server = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(rec) = SiteRecord::parse_line(line) else {
            continue;
        };
        uses_mbean_server |= rec.kind == SiteKind::Call(Hook::PlatformMBeanServer);
        if rec.kind == SiteKind::Alloc {
            allocs.push(rec.clone());
        }
        let field = match rec.kind {
            SiteKind::FieldRead
            | SiteKind::FieldWrite
            | SiteKind::StaticRead
            | SiteKind::StaticWrite => field_key(&rec.detail),
            _ => 0,
        };
        let is_static = matches!(rec.kind, SiteKind::StaticRead | SiteKind::StaticWrite);
        let clinit = rec.method == "<clinit>";
        let jdk_alloc = rec.kind == SiteKind::Alloc && makes_jdk_object(&rec.detail);
        let acquires = rec.bci == 0
            && matches!(rec.kind, SiteKind::FieldRead | SiteKind::FieldWrite)
            && rewriter::passes::atomics::acquires(&rec.class, &rec.method);
        places.insert(rec.id, place(&rec).into_boxed_str());
        lines.insert(rec.id, line.into());
        sites.insert(
            rec.id,
            SiteInfo {
                field,
                is_static,
                clinit,
                jdk_alloc,
                acquires,
            },
        );
    }
    (
        Parsed {
            infos: sites,
            places,
            lines,
            uses_mbean_server,
        },
        allocs,
    )
}

/// Whether an allocation site makes an object whose identity hash a program plausibly asks
/// for and only the agent can pin: a plain `java/lang/Object` (the usual token, lock or
/// sentinel) or a `java.util.concurrent` object (an atomic, a lock). Not arrays, strings or
/// builders: programs make those by the million in loops, each recorded one would cost a JVMTI
/// tag, and their identity hashes rarely matter. Not `Thread`: a thread gets its identity when
/// it starts (threads.rs notices one that started without rankcheck by its missing tag).
fn makes_jdk_object(ty: &str) -> bool {
    ty == "java/lang/Object" || ty.starts_with("java/util/concurrent/")
}

/// A stable 64-bit key for a field named `owner.name:descriptor`.
pub fn field_key(detail: &str) -> u64 {
    detail
        .bytes()
        .fold(crate::hash::FOLD_SEED, |h, b| mix(h, u64::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use java_harness::hooks::site_id;

    #[test]
    fn reads_and_writes_of_one_field_share_a_key() {
        let a = site_id("a/B", 0);
        let b = site_id("a/B", 1);
        let table = format!(
            "{:016x}\ta/B\trun\t()V\t3\t10\tfield-read\ta/B.count:I\n\
             {:016x}\ta/B\trun\t()V\t9\t10\tfield-write\ta/B.count:I\n\
             garbage line\n",
            a as u64, b as u64
        );
        let (parsed, _) = parse_records(&table);
        let sites = parsed.infos;
        assert_eq!(sites.len(), 2);
        assert_eq!(&*parsed.places[&a], "a.B.run line 10");
        assert_eq!(sites[&a].field, sites[&b].field);
        assert_ne!(sites[&a].field, field_key("a/B.other:I"));
        assert!(!parsed.uses_mbean_server);
    }

    #[test]
    fn allocations_of_hashable_jdk_objects_are_told_apart() {
        for ty in ["java/lang/Object", "java/util/concurrent/atomic/AtomicLong"] {
            assert!(makes_jdk_object(ty), "{ty}");
        }
        for ty in ["a/B", "java/lang/Thread", "[I", "java/lang/StringBuilder"] {
            assert!(!makes_jdk_object(ty), "{ty}");
        }
    }

    #[test]
    fn a_call_of_the_platform_mbean_server_is_noticed() {
        let rec = SiteRecord {
            id: site_id("a/Pool", 0),
            class: "a/Pool".into(),
            method: "register".into(),
            descriptor: "()V".into(),
            bci: 4,
            line: Some(31),
            kind: SiteKind::Call(Hook::PlatformMBeanServer),
            detail: String::new(),
        };
        let (parsed, _) = parse_records(&rec.to_line());
        assert!(parsed.uses_mbean_server);
    }
}
