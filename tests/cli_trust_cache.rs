//! The runtime cache on first use from many threads of one process at once (as `rankcheck
//! sweep`'s workers do): every thread gets complete files. Its own test binary, so that setting
//! `XDG_CACHE_HOME` happens before any other thread exists.

use std::sync::{Arc, Barrier};

#[test]
fn many_threads_unpack_the_runtime_into_an_empty_cache() {
    let dir = std::env::temp_dir().join(format!("rankcheck-cache-threads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // No other thread runs yet in this test binary.
    std::env::set_var("XDG_CACHE_HOME", &dir);
    for round in 0..5 {
        let _ = std::fs::remove_dir_all(dir.join("rankcheck"));
        let start = Arc::new(Barrier::new(12));
        let handles: Vec<_> = (0..12)
            .map(|_| {
                let start = start.clone();
                std::thread::spawn(move || {
                    start.wait();
                    rankcheck::driver::runtime::runtime().map_err(|e| e.to_string())
                })
            })
            .collect();
        for h in handles {
            let rt = h
                .join()
                .unwrap()
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(
                std::fs::read(&rt.jar).unwrap(),
                java_harness::RUNTIME_JAR,
                "round {round}: the runtime jar is not complete"
            );
            assert_eq!(
                std::fs::read(&rt.agent).unwrap().len(),
                rankcheck::driver::runtime::AGENT_SO.len()
            );
        }
        // No temporary file is left behind.
        let rt = rankcheck::driver::runtime::runtime().unwrap();
        let leftovers: Vec<_> = std::fs::read_dir(rt.jar.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
