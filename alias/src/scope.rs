//! Which JDK method bodies the analysis reads. Outside the scope a JDK method is *unknown
//! code* (see the crate doc): its reference arguments escape, it returns anything unknown,
//! and it may call back application methods.

use crate::Error;

/// The JDK packages whose method bodies are analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JdkScope {
    /// No JDK body: the whole library is unknown code.
    None,
    /// The bodies of classes in these packages (internal form, `java/util`; exact packages,
    /// not their subpackages).
    Packages(Vec<String>),
    /// Every reachable JDK body (most of java.base becomes reachable: slow).
    All,
}

/// The packages analysed by default: the containers, the concurrency library and the
/// functional interfaces, through which application objects flow between threads.
pub const DEFAULT_PACKAGES: &[&str] = &[
    "java/util",
    "java/util/concurrent",
    "java/util/concurrent/atomic",
    "java/util/concurrent/locks",
    "java/util/function",
];

impl Default for JdkScope {
    fn default() -> Self {
        JdkScope::Packages(DEFAULT_PACKAGES.iter().map(|p| p.to_string()).collect())
    }
}

impl JdkScope {
    /// Parses `none`, `all`, `default`, or a comma-separated list of packages (`java.util`;
    /// `default` may appear in the list to extend it).
    pub fn parse(text: &str) -> Result<JdkScope, Error> {
        match text.trim() {
            "none" => return Ok(JdkScope::None),
            "all" => return Ok(JdkScope::All),
            _ => {}
        }
        let mut packages = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item == "default" {
                packages.extend(DEFAULT_PACKAGES.iter().map(|p| p.to_string()));
                continue;
            }
            let ok = item
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '/' || c == '_' || c == '$');
            if !ok || item.starts_with('.') || item.ends_with('.') {
                return Err(Error::BadInput(format!(
                    "bad JDK package {item:?} (expected e.g. java.util, none, all or default)"
                )));
            }
            packages.push(item.replace('.', "/"));
        }
        if packages.is_empty() {
            return Err(Error::BadInput(
                "empty JDK scope (use none, all, default or package names)".into(),
            ));
        }
        packages.sort();
        packages.dedup();
        Ok(JdkScope::Packages(packages))
    }

    /// Whether the body of JDK class `class` (internal name) is analysed.
    pub fn analyses(&self, class: &str) -> bool {
        match self {
            JdkScope::None => false,
            JdkScope::All => true,
            JdkScope::Packages(ps) => {
                let package = class.rsplit_once('/').map_or("", |(p, _)| p);
                ps.iter().any(|p| p == package)
            }
        }
    }

    /// How the scope is written on the command line and in analysis files.
    pub fn describe(&self) -> String {
        match self {
            JdkScope::None => "none".into(),
            JdkScope::All => "all".into(),
            JdkScope::Packages(ps) => ps.join(",").replace('/', "."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_are_exact() {
        let s = JdkScope::default();
        assert!(s.analyses("java/util/HashMap"));
        assert!(s.analyses("java/util/concurrent/locks/ReentrantLock"));
        assert!(!s.analyses("java/util/stream/Stream"));
        assert!(!s.analyses("java/lang/Thread"));
        assert!(JdkScope::All.analyses("java/lang/Thread"));
        assert!(!JdkScope::None.analyses("java/util/HashMap"));
    }

    #[test]
    fn parses_names_and_rejects_garbage() {
        assert_eq!(JdkScope::parse("none").unwrap(), JdkScope::None);
        assert_eq!(JdkScope::parse("all").unwrap(), JdkScope::All);
        assert_eq!(JdkScope::parse("default").unwrap(), JdkScope::default());
        let s = JdkScope::parse("java.util, default,java.lang").unwrap();
        assert!(s.analyses("java/lang/String"));
        assert!(s.analyses("java/util/concurrent/FutureTask"));
        assert_eq!(
            JdkScope::parse("java.util.stream").unwrap().describe(),
            "java.util.stream"
        );
        assert!(JdkScope::parse("java util").is_err());
        assert!(JdkScope::parse(" , ").is_err());
        assert!(JdkScope::parse(".x").is_err());
    }
}
