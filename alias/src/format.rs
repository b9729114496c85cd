//! The analysis file (`analysis.json`) written by `rankcheck analyze` and read by
//! [`selected_sites`], which `rankcheck instrument --analysis F --vars …` calls.
//!
//! Layout (format tag [`FORMAT`]):
//!
//! ```json
//! {
//!   "format": "rankcheck-alias/1",
//!   "main": "pkg/Main",
//!   "complete": true,
//!   "warnings": ["…"],
//!   "variables": [
//!     {"id": 0, "kind": "static", "name": "pkg/C.count", "type": "I", "shared": true},
//!     {"id": 1, "kind": "alloc", "name": "pkg/C.m(I)V@4 new pkg/T", "type": "pkg/T",
//!      "shared": false, "site": {"class": "pkg/C", "method": "m", "descriptor": "(I)V", "bci": 4}}
//!   ],
//!   "sites": [
//!     {"class": "pkg/C", "method": "m", "descriptor": "(I)V", "bci": 9, "kind": "field-write",
//!      "detail": "pkg/T.x:I", "reached": true, "all": false, "vars": [1]}
//!   ],
//!   "stats": {…}
//! }
//! ```
//!
//! A site key is (class internal name, method name, method descriptor, bytecode offset of the
//! instruction in the original class file), the same fields as `SiteRecord` in
//! `java-harness/src/hooks.rs`. A site with `"all": true` is one the analysis could not resolve;
//! it may touch every variable and is always selected.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Error;

/// The format tag of the analysis file.
pub const FORMAT: &str = "rankcheck-alias/1";

/// Where an instruction is: the key the rewriter and the analysis agree on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SiteKey {
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub bci: u32,
}

/// What a variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VariableKind {
    /// A static field of an application class.
    Static,
    /// Every object allocated at one allocation site of an application class.
    Alloc,
}

/// One variable in the variable-bounding sense.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variable {
    pub id: u32,
    pub kind: VariableKind,
    /// `pkg/C.field` or `pkg/C.m(desc)@bci new pkg/T`.
    pub name: String,
    /// The field descriptor (statics) or the allocated class / array descriptor (allocations).
    #[serde(rename = "type")]
    pub ty: String,
    /// May be reached by two threads (escapes through a started thread or a static field).
    pub shared: bool,
    /// Whether the analysis found code that may run it (its allocation or an access) reachable.
    pub reached: bool,
    /// The allocation site (allocations only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<SiteKey>,
}

/// One data-access site and the variables it may touch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub bci: u32,
    /// A site-table kind word: `field-read`, `field-write`, `static-read`, `static-write`,
    /// `array-read`, `array-write`.
    pub kind: String,
    /// `owner.name:descriptor` for fields, the element descriptor for arrays.
    pub detail: String,
    /// Whether the method holding the site is reachable from the entry point.
    pub reached: bool,
    /// The analysis could not resolve this site: it may touch every variable.
    pub all: bool,
    /// Ids of the variables the site may touch (sorted).
    pub vars: Vec<u32>,
}

impl Site {
    pub fn key(&self) -> SiteKey {
        SiteKey {
            class: self.class.clone(),
            method: self.method.clone(),
            descriptor: self.descriptor.clone(),
            bci: self.bci,
        }
    }
}

/// The whole analysis file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AnalysisFile {
    pub format: String,
    pub main: String,
    /// False when the analysis met something it could not model (missing classes, reflection,
    /// corrupt class files); the affected sites then carry `"all": true`.
    pub complete: bool,
    pub warnings: Vec<String>,
    pub variables: Vec<Variable>,
    pub sites: Vec<Site>,
    /// Sizes and timings, for reports.
    #[serde(default)]
    pub stats: BTreeMap<String, f64>,
}

impl AnalysisFile {
    /// Parses an analysis file's text.
    pub fn parse(text: &str) -> Result<AnalysisFile, Error> {
        let file: AnalysisFile = serde_json::from_str(text)
            .map_err(|e| Error::BadAnalysisFile(format!("not an analysis file: {e}")))?;
        if file.format != FORMAT {
            return Err(Error::BadAnalysisFile(format!(
                "format {:?}, expected {FORMAT:?}",
                file.format
            )));
        }
        Ok(file)
    }

    /// Reads and parses the analysis file at `path`.
    pub fn read(path: &Path) -> Result<AnalysisFile, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::BadAnalysisFile(format!("cannot read {}: {e}", path.display())))?;
        AnalysisFile::parse(&text)
    }

    /// The JSON text of this file.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("analysis file serializes")
    }

    /// The variables worth tracking, in the order strategies should prefer them: those some
    /// reached site may touch, shared ones first (RankChecker §5 chooses shared variables
    /// before others), then by id. Variables no reachable site touches are left out.
    pub fn candidates(&self) -> Vec<&Variable> {
        let mut touched = vec![false; self.variables.len()];
        for site in self.sites.iter().filter(|s| s.reached) {
            for &v in &site.vars {
                if let Some(t) = touched.get_mut(v as usize) {
                    *t = true;
                }
            }
        }
        let mut out: Vec<&Variable> = self
            .variables
            .iter()
            .filter(|v| touched.get(v.id as usize).copied().unwrap_or(false))
            .collect();
        out.sort_by_key(|v| (!v.shared, v.id));
        out
    }

    /// The sites to instrument for the variable set `vars` (see [`SiteSelection`]).
    pub fn select(&self, vars: &[u32]) -> Result<SiteSelection, Error> {
        let wanted: BTreeSet<u32> = vars.iter().copied().collect();
        let mut selection = SiteSelection::default();
        for &id in &wanted {
            let var = self
                .variables
                .get(id as usize)
                .filter(|v| v.id == id)
                .or_else(|| self.variables.iter().find(|v| v.id == id))
                .ok_or_else(|| {
                    Error::UnknownVariable(format!(
                        "no variable {id} (the analysis has {})",
                        self.variables.len()
                    ))
                })?;
            if let Some(site) = &var.site {
                selection.alloc_sites.insert(site.clone());
            }
        }
        for site in &self.sites {
            if site.all || site.vars.iter().any(|v| wanted.contains(v)) {
                selection.data_sites.insert(site.key());
            }
        }
        Ok(selection)
    }
}

/// What to instrument for a set of tracked variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteSelection {
    /// Data-access sites (field, static, array; read or write) that may touch a tracked variable,
    /// including every site the analysis could not resolve.
    pub data_sites: BTreeSet<SiteKey>,
    /// Allocation sites of the tracked allocation variables: the rewriter puts the `Allocated`
    /// hook there so the run-time check can tell tracked objects from others.
    pub alloc_sites: BTreeSet<SiteKey>,
}

impl SiteSelection {
    /// True if the data access at `key` is to be instrumented.
    pub fn has_data_site(&self, class: &str, method: &str, descriptor: &str, bci: u32) -> bool {
        self.data_sites.contains(&SiteKey {
            class: class.to_string(),
            method: method.to_string(),
            descriptor: descriptor.to_string(),
            bci,
        })
    }

    /// True if the allocation at `key` is to get the `Allocated` hook.
    pub fn has_alloc_site(&self, class: &str, method: &str, descriptor: &str, bci: u32) -> bool {
        self.alloc_sites.contains(&SiteKey {
            class: class.to_string(),
            method: method.to_string(),
            descriptor: descriptor.to_string(),
            bci,
        })
    }
}

/// Reads the analysis file at `analysis_path` and returns the data-access sites that may touch
/// any of `vars`, and the allocation sites of those variables. Unknown ids are an error.
pub fn selected_sites(analysis_path: &Path, vars: &[u32]) -> Result<SiteSelection, Error> {
    AnalysisFile::read(analysis_path)?.select(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AnalysisFile {
        let key = |bci| SiteKey {
            class: "p/C".into(),
            method: "m".into(),
            descriptor: "()V".into(),
            bci,
        };
        let site = |bci, all, vars: Vec<u32>| Site {
            class: "p/C".into(),
            method: "m".into(),
            descriptor: "()V".into(),
            bci,
            kind: "field-read".into(),
            detail: "p/T.x:I".into(),
            reached: true,
            all,
            vars,
        };
        AnalysisFile {
            format: FORMAT.into(),
            main: "p/C".into(),
            complete: true,
            warnings: vec![],
            variables: vec![
                Variable {
                    id: 0,
                    kind: VariableKind::Static,
                    name: "p/C.s".into(),
                    ty: "I".into(),
                    shared: true,
                    reached: true,
                    site: None,
                },
                Variable {
                    id: 1,
                    kind: VariableKind::Alloc,
                    name: "p/C.m()V@0 new p/T".into(),
                    ty: "p/T".into(),
                    shared: false,
                    reached: true,
                    site: Some(key(0)),
                },
            ],
            sites: vec![
                site(5, false, vec![1]),
                site(9, false, vec![0]),
                site(12, true, vec![]),
            ],
            stats: BTreeMap::new(),
        }
    }

    #[test]
    fn selection_takes_matching_and_unresolved_sites_and_alloc_sites() {
        let file = AnalysisFile::parse(&sample().to_json()).unwrap();
        let sel = file.select(&[1]).unwrap();
        assert!(sel.has_data_site("p/C", "m", "()V", 5));
        assert!(!sel.has_data_site("p/C", "m", "()V", 9));
        assert!(
            sel.has_data_site("p/C", "m", "()V", 12),
            "unresolved sites are always chosen"
        );
        assert!(sel.has_alloc_site("p/C", "m", "()V", 0));
        let statics = file.select(&[0]).unwrap();
        assert!(statics.alloc_sites.is_empty());
        assert!(statics.has_data_site("p/C", "m", "()V", 9));
    }

    #[test]
    fn candidates_are_touched_variables_shared_first() {
        let file = sample();
        let ids: Vec<u32> = file.candidates().iter().map(|v| v.id).collect();
        assert_eq!(ids, vec![0, 1]);
        let mut unshared = sample();
        unshared.variables[0].shared = false;
        unshared.variables[1].shared = true;
        let ids: Vec<u32> = unshared.candidates().iter().map(|v| v.id).collect();
        assert_eq!(ids, vec![1, 0]);
        let mut untouched = sample();
        untouched.sites.retain(|s| s.bci != 9);
        let ids: Vec<u32> = untouched.candidates().iter().map(|v| v.id).collect();
        assert_eq!(ids, vec![1]);
    }

    #[test]
    fn unknown_variables_and_foreign_files_are_errors() {
        assert!(matches!(
            sample().select(&[7]),
            Err(Error::UnknownVariable(_))
        ));
        assert!(matches!(
            AnalysisFile::parse("{}"),
            Err(Error::BadAnalysisFile(_))
        ));
        let mut other = sample();
        other.format = "something/9".into();
        assert!(matches!(
            AnalysisFile::parse(&other.to_json()),
            Err(Error::BadAnalysisFile(_))
        ));
    }
}
