//! ARCHITECTURE.md's invariants, checked by reading the sources: no JVM, no build of anything.
//! Each test names the files and lines that break its rule.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file below `dir` (relative to the workspace root), sorted.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    assert!(!out.is_empty(), "no Rust files below {dir}");
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A Rust source split into its code (comments and literals blanked out with spaces, line
/// breaks kept) and its string literals (contents and 1-based line).
struct Source {
    code: String,
    strings: Vec<(String, usize)>,
}

fn lex(text: &str) -> Source {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut strings = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Blank out chars[from..to], keeping line breaks.
    let blank = |code: &mut String, line: &mut usize, from: usize, to: usize| {
        for &c in &chars[from..to] {
            if c == '\n' {
                *line += 1;
                code.push('\n');
            } else {
                code.push(' ');
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = (i..chars.len())
                .find(|&j| chars[j] == '\n')
                .unwrap_or(chars.len());
            blank(&mut code, &mut line, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < chars.len() && depth > 0 {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut code, &mut line, i, j);
            i = j;
        } else if c == '"' || ((c == 'r' || c == 'b') && starts_raw_or_byte(&chars, i)) {
            let starts_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
            if c != '"' && starts_word {
                code.push(c);
                i += 1;
                continue;
            }
            let start_line = line;
            let mut j = i;
            if chars[j] == 'b' {
                j += 1;
            }
            let raw = chars[j] == 'r';
            let mut hashes = 0;
            if raw {
                j += 1;
                while chars[j] == '#' {
                    hashes += 1;
                    j += 1;
                }
            }
            j += 1; // the opening quote
            let mut content = String::new();
            loop {
                if j >= chars.len() {
                    break;
                }
                let d = chars[j];
                if !raw && d == '\\' {
                    content.push(d);
                    if let Some(&e) = chars.get(j + 1) {
                        content.push(e);
                    }
                    j += 2;
                    continue;
                }
                if d == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                content.push(d);
                j += 1;
            }
            strings.push((content, start_line));
            blank(&mut code, &mut line, i, j.min(chars.len()));
            i = j;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\'') or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..chars.len())
                    .find(|&j| chars[j] == '\'')
                    .map(|j| j + 1)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank(&mut code, &mut line, i, end);
                    i = end;
                }
                None => {
                    code.push(c);
                    i += 1;
                }
            }
        } else {
            if c == '\n' {
                line += 1;
            }
            code.push(c);
            i += 1;
        }
    }
    Source { code, strings }
}

/// `r"`, `r#"`, `b"`, `br"`, `br#"` start at `i`.
fn starts_raw_or_byte(chars: &[char], i: usize) -> bool {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) == Some(&'r') {
        j += 1;
        while chars.get(j) == Some(&'#') {
            j += 1;
        }
    }
    j > i && chars.get(j) == Some(&'"')
}

/// The 1-based line ranges of `code` under `#[cfg(test)]` (the item that follows: a block up
/// to its matching brace, or a statement up to its `;`).
fn test_lines(code: &str) -> Vec<(usize, usize)> {
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let start = from + found;
        let rest = &code[start + "#[cfg(test)]".len()..];
        let base = start + "#[cfg(test)]".len();
        let brace = rest.find('{');
        let semi = rest.find(';');
        let end = match (brace, semi) {
            (Some(b), Some(s)) if s < b => base + s,
            (Some(b), _) => {
                let mut depth = 0;
                let mut end = code.len();
                for (k, ch) in code[base + b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = base + b + k;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(s)) => base + s,
            (None, None) => code.len(),
        };
        out.push((line_of(start), line_of(end.min(code.len()))));
        from = end.min(code.len()).max(start + 1);
    }
    out
}

/// The files below `dirs`, skipping test files (`tests.rs`, `tests/`).
fn non_test_files(dirs: &[&str]) -> Vec<PathBuf> {
    dirs.iter()
        .flat_map(|d| rust_files(d))
        .filter(|p| {
            let rel = relative(p);
            !rel.ends_with("/tests.rs") && !rel.contains("/tests/") && !rel.starts_with("tests/")
        })
        .collect()
}

/// `line` (number `line_no`) when it holds `word` as a whole word.
fn words_in(line_no: usize, line: &str, word: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(at) = line[from..].find(word) {
        let s = from + at;
        let e = s + word.len();
        let before = s == 0 || !(bytes[s - 1].is_ascii_alphanumeric() || bytes[s - 1] == b'_');
        let after = e >= bytes.len() || !(bytes[e].is_ascii_alphanumeric() || bytes[e] == b'_');
        if before && after {
            return Some(format!("line {line_no}: {}", line.trim()));
        }
        from = e;
    }
    None
}

#[test]
fn the_scheduler_uses_no_files_clocks_processes_or_network() {
    // ARCHITECTURE.md, scheduler/: no JNI, no I/O, no clocks, no processes.
    const FORBIDDEN: &[&str] = &[
        "std::fs",
        "std::time",
        "std::process",
        "std::net",
        "Instant",
        "SystemTime",
        "File",
        "Command",
        "TcpStream",
        "UdpSocket",
    ];
    let mut found = Vec::new();
    for file in rust_files("scheduler/src") {
        let source = lex(&std::fs::read_to_string(&file).unwrap());
        for (n, line) in source.code.lines().enumerate() {
            for word in FORBIDDEN {
                if let Some(hit) = words_in(n + 1, line, word) {
                    found.push(format!("{} {hit} ({word})", relative(&file)));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "scheduler/ must stay pure (ARCHITECTURE.md): {found:#?}"
    );
}

#[test]
fn only_the_agent_has_unsafe_code() {
    // ARCHITECTURE.md, agent/: the only crate with FFI and `unsafe`, apart from the one call in
    // the CLI's main that restores SIGPIPE's default. Tests (a counting allocator in
    // scheduler/tests) are not product code.
    const ALLOWED: &[(&str, usize)] = &[("src/main.rs", 1)];
    let mut files = non_test_files(&["src", "scheduler/src", "rewriter/src", "alias/src"]);
    files.extend(non_test_files(&["java-harness/src"]));
    for build in ["build.rs", "java-harness/build.rs"] {
        if root().join(build).is_file() {
            files.push(root().join(build));
        }
    }
    let mut found = Vec::new();
    for file in files {
        let source = lex(&std::fs::read_to_string(&file).unwrap());
        let hits: Vec<String> = source
            .code
            .lines()
            .enumerate()
            .filter_map(|(n, line)| words_in(n + 1, line, "unsafe"))
            .collect();
        let rel = relative(&file);
        let allowed = ALLOWED
            .iter()
            .find(|(f, _)| *f == rel)
            .map_or(0, |(_, n)| *n);
        if hits.len() != allowed {
            found.push(format!(
                "{rel}: {} unsafe (allowed {allowed}): {hits:?}",
                hits.len()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "unsafe outside agent/ (ARCHITECTURE.md): {found:#?}"
    );
}

/// Where strategy names may not be written as literals: everywhere but `scheduler/` (the agent
/// asks `scheduler::strategy::{switches_at_accesses, bounds_variables}`).
const NAME_FREE: &[&str] = &[
    "src",
    "rewriter/src",
    "alias/src",
    "java-harness/src",
    "agent/src",
];

/// Literals that equal a strategy name but mean something else: (file, literal, count).
const NOT_STRATEGIES: &[(&str, &str, usize)] = &[
    // java.lang.Math.random, a method the rewriter hooks.
    ("java-harness/src/hooks.rs", "random", 1),
];

#[test]
fn strategy_names_are_written_only_in_the_scheduler() {
    // What the CLI and the agent know of a strategy is scheduler::strategy::StrategyInfo; they
    // name strategies with its constants (`scheduler::strategy::NONPREEMPTIVE`, …).
    let names = scheduler::strategy::NAMES;
    let mut found = Vec::new();
    for file in non_test_files(NAME_FREE) {
        let source = lex(&std::fs::read_to_string(&file).unwrap());
        let tests = test_lines(&source.code);
        let rel = relative(&file);
        let mut counts: Vec<(&str, usize, Vec<usize>)> = Vec::new();
        for (literal, line) in &source.strings {
            if !names.contains(&literal.as_str())
                || tests.iter().any(|&(a, b)| (a..=b).contains(line))
            {
                continue;
            }
            match counts.iter_mut().find(|(l, _, _)| l == literal) {
                Some((_, n, lines)) => {
                    *n += 1;
                    lines.push(*line);
                }
                None => counts.push((
                    names.iter().find(|n| **n == literal).unwrap(),
                    1,
                    vec![*line],
                )),
            }
        }
        for (literal, n, lines) in counts {
            let allowed = NOT_STRATEGIES
                .iter()
                .find(|(f, l, _)| *f == rel && *l == literal)
                .map_or(0, |(_, _, n)| *n);
            if n != allowed {
                found.push(format!("{rel}: \"{literal}\" at lines {lines:?}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "strategy names written outside scheduler/ (use scheduler::strategy's constants and \
         StrategyInfo): {found:#?}"
    );
}

#[test]
fn the_driver_does_not_import_the_commands() {
    // CLI layers: cmd → driver → crates. The driver is the machinery every command shares.
    let mut found = Vec::new();
    for file in rust_files("src/driver") {
        let source = lex(&std::fs::read_to_string(&file).unwrap());
        for (n, line) in source.code.lines().enumerate() {
            let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            if compact.contains("crate::cmd")
                || compact.contains("rankcheck::cmd")
                || compact.contains("super::super::cmd")
            {
                found.push(format!(
                    "{} line {}: {}",
                    relative(&file),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/driver imports src/cmd (ARCHITECTURE.md): {found:#?}"
    );
}

#[test]
fn the_version_is_the_changelogs() {
    // `rankcheck --version` is the crate version; it follows the README's newest changelog entry.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let changelog = readme
        .split("## Changelog")
        .nth(1)
        .expect("README.md has a Changelog section");
    let newest = changelog
        .lines()
        .find_map(|l| l.strip_prefix("- "))
        .and_then(|l| l.split_whitespace().next())
        .expect("a changelog entry");
    assert_eq!(
        newest,
        env!("CARGO_PKG_VERSION"),
        "README changelog vs Cargo.toml"
    );
}

#[test]
fn the_lexer_sees_code_strings_and_test_modules() {
    let s = lex(
        "let a = \"pct\"; // \"icb\"\n/* \"pos\" */ let b = r#\"x\"#; let c = '\"';\n\
         fn f<'a>(x: &'a str) {}\n#[cfg(test)]\nmod tests {\n    const X: &str = \"scs\";\n}\n",
    );
    let literals: Vec<&str> = s.strings.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(literals, ["pct", "x", "scs"]);
    assert!(s.code.contains("fn f<'a>(x: &'a str)"));
    assert_eq!(test_lines(&s.code), vec![(4, 7)]);
    assert_eq!(s.strings[2].1, 6);
}
