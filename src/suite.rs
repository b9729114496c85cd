//! Program manifests (`manifest.toml`) of `contest-bench/` and `tests/programs/`: see
//! `contest-bench/MANIFEST.md`. Not built yet.
