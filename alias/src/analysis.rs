//! The driver: class path and entry point in, [`AnalysisFile`] out.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use crate::bitset::SparseBitSet;
use crate::classes::Classes;
use crate::classpath::{ClassPath, Origin};
use crate::format::{AnalysisFile, Site, SiteKey, Variable, VariableKind, FORMAT};
use crate::ir::{self, SiteKind};
use crate::scope::JdkScope;
use crate::solver::{ObjKind, Solver};
use crate::Error;

/// What to analyse.
#[derive(Clone, Debug)]
pub struct Config {
    /// The program's class path: directories and jars.
    pub class_path: Vec<PathBuf>,
    /// The main class, dotted (`pkg.Main`) or internal (`pkg/Main`).
    pub main: String,
    /// The JDK's `jmods/` directory; `None` analyses without the JDK (every JDK call is then
    /// unknown code, which is sound but imprecise).
    pub jmods: Option<PathBuf>,
    /// Analyse the body of every reachable JDK method ([`JdkScope::All`]; slow: most of
    /// java.base becomes reachable). `false` analyses the default scope ([`JdkScope::default`]:
    /// the containers and java.util.concurrent); [`analyze_with`] chooses any scope.
    pub jdk_bodies: bool,
}

/// Runs the analysis with the JDK scope `config.jdk_bodies` names.
pub fn analyze(config: &Config) -> Result<AnalysisFile, Error> {
    let scope = if config.jdk_bodies {
        JdkScope::All
    } else {
        JdkScope::default()
    };
    analyze_with(config, &scope)
}

/// Runs the analysis, reading the bodies of the JDK methods in `scope` (the rest of the JDK is
/// unknown code).
pub fn analyze_with(config: &Config, scope: &JdkScope) -> Result<AnalysisFile, Error> {
    let started = Instant::now();
    let main = config.main.replace('.', "/");
    let path = ClassPath::new(&config.class_path, config.jmods.as_deref())?;
    let app_classes: Vec<String> = path.app_classes().to_vec();
    let mut classes = Classes::new(path);
    match classes.get(&main) {
        Some(c) if classes.info(c).origin == Origin::App => {}
        _ => {
            return Err(Error::BadInput(format!(
                "main class {} is not on the class path",
                config.main
            )))
        }
    }
    let scope = if config.jmods.is_some() {
        scope.clone()
    } else {
        JdkScope::None
    };
    let mut solver = Solver::new(classes, scope.clone());
    if solver
        .add_entry(&main, "main", "([Ljava/lang/String;)V")
        .is_none()
    {
        return Err(Error::BadInput(format!(
            "{} has no main(String[]) method",
            config.main
        )));
    }
    solver.solve();
    if let Some(pat) = std::env::var_os("RANKCHECK_ALIAS_DUMP") {
        let pat = pat.to_string_lossy().to_string();
        if pat == "unknown" {
            let u = solver.unknown;
            let objs: Vec<u32> = solver.points_to(u).iter().collect();
            for o in objs {
                eprintln!(
                    "  escaped: {} from {}",
                    solver.describe_obj(o),
                    solver.escape_reason(o).unwrap_or("?")
                );
            }
        }
        for m in 0..solver.methods.len() as u32 {
            let (c, n, d) = solver.method_key(m);
            if !format!("{c}.{n}{d}").contains(&pat) {
                continue;
            }
            let base = solver.methods[m as usize].base;
            let nv = solver.methods[m as usize]
                .ir
                .as_ref()
                .map_or(0, |i| i.num_vars);
            eprintln!("alias: {c}.{n}{d}");
            for v in 0..nv {
                let objs: Vec<u32> = solver.points_to(base + v).iter().collect();
                let names: Vec<String> = objs.iter().map(|&o| solver.describe_obj(o)).collect();
                let merged = solver.find(base + v) == solver.find(solver.unknown);
                eprintln!(
                    "  v{v}{}: {}",
                    if merged { " (=unknown)" } else { "" },
                    names.join(", ")
                );
            }
        }
    }
    if std::env::var_os("RANKCHECK_ALIAS_METHODS").is_some() {
        for m in 0..solver.methods.len() as u32 {
            let (c, n, d) = solver.method_key(m);
            eprintln!("alias: reached {c}.{n}{d}");
        }
    }
    let solve_secs = started.elapsed().as_secs_f64();

    let mut warnings: Vec<String> = Vec::new();
    warnings.extend(solver.app_warnings.iter().cloned());
    let missing: Vec<String> = solver.classes.missing.clone();
    let complete = solver.app_warnings.is_empty() && missing.is_empty();
    warnings.extend(
        missing
            .iter()
            .map(|m| format!("{m}; calls into it are unknown code")),
    );

    // Variables: every static field, then every allocation site of the application.
    let mut variables: Vec<Variable> = Vec::new();
    let mut static_ids: HashMap<String, u32> = HashMap::new();
    let mut alloc_ids: HashMap<(String, String, String, u32), u32> = HashMap::new();
    struct MethodSites {
        class: String,
        name: String,
        desc: String,
        ir: ir::MethodIr,
        method: Option<u32>,
    }
    let mut all_methods: Vec<MethodSites> = Vec::new();
    for name in &app_classes {
        let Some(c) = solver.classes.get(name) else {
            warnings.push(format!(
                "application class {name} cannot be read: its sites are not listed"
            ));
            continue;
        };
        if solver.classes.info(c).origin != Origin::App {
            continue;
        }
        for f in solver.classes.info(c).fields.iter().filter(|f| f.is_static) {
            let key = format!("{name}.{}:{}", f.name, f.descriptor);
            let id = variables.len() as u32;
            static_ids.insert(key, id);
            variables.push(Variable {
                id,
                kind: VariableKind::Static,
                name: format!("{name}.{}", f.name),
                ty: f.descriptor.clone(),
                shared: false,
                reached: false,
                site: None,
            });
        }
        for i in 0..solver.classes.info(c).methods.len() {
            let method = solver.method_of(c, i);
            let ir = match method.and_then(|m| solver.methods[m as usize].ir.clone()) {
                Some(ir) => ir,
                None => ir::build(&solver.classes.info(c).file, i),
            };
            let decl = &solver.classes.info(c).methods[i];
            all_methods.push(MethodSites {
                class: name.clone(),
                name: decl.name.clone(),
                desc: decl.descriptor.clone(),
                ir,
                method,
            });
        }
    }
    for m in &all_methods {
        let mut seen_bci = HashSet::new();
        for a in &m.ir.allocs {
            if !seen_bci.insert(a.bci) {
                continue; // inner arrays of a multianewarray: made by the JVM, not trackable
            }
            let id = variables.len() as u32;
            alloc_ids.insert((m.class.clone(), m.name.clone(), m.desc.clone(), a.bci), id);
            variables.push(Variable {
                id,
                kind: VariableKind::Alloc,
                name: format!("{}.{}{}@{} new {}", m.class, m.name, m.desc, a.bci, a.ty),
                ty: a.ty.clone(),
                shared: false,
                reached: m.method.is_some(),
                site: Some(SiteKey {
                    class: m.class.clone(),
                    method: m.name.clone(),
                    descriptor: m.desc.clone(),
                    bci: a.bci,
                }),
            });
        }
    }
    // Abstract object → variable.
    let mut obj_var: HashMap<u32, u32> = HashMap::new();
    for (o, obj) in solver.objs.iter().enumerate() {
        if let ObjKind::Alloc { method, alloc } = obj.kind {
            if !solver.is_app_method(method) {
                continue;
            }
            let (c, n, d) = solver.method_key(method);
            let ir = solver.methods[method as usize]
                .ir
                .as_ref()
                .expect("reached");
            let bci = ir.allocs[alloc].bci;
            if ir.allocs.iter().position(|a| a.bci == bci) != Some(alloc) {
                continue;
            }
            if let Some(&v) = alloc_ids.get(&(c, n, d, bci)) {
                obj_var.insert(o as u32, v);
            }
        }
    }

    // Sites.
    let mut sites: Vec<Site> = Vec::new();
    for m in &all_methods {
        let base = m.method.map(|id| solver.methods[id as usize].base);
        let unsupported = m.ir.unsupported.is_some();
        for s in &m.ir.sites {
            let mut all = unsupported || (base.is_none() && !complete);
            let mut vars: Vec<u32> = Vec::new();
            match s.kind {
                SiteKind::StaticRead | SiteKind::StaticWrite => {
                    let f = s.field.as_ref().expect("static sites name a field");
                    match solver.static_owner(f) {
                        Some(c) => {
                            let key =
                                format!("{}.{}:{}", solver.classes.info(c).name, f.name, f.desc);
                            if let Some(&v) = static_ids.get(&key) {
                                vars.push(v);
                                if base.is_some() {
                                    variables[v as usize].reached = true;
                                }
                            }
                        }
                        None => all = true,
                    }
                }
                _ => {
                    if let (Some(b), Some(v)) = (base, s.base) {
                        let set: Vec<u32> = solver.points_to(b + v).iter().collect();
                        vars.extend(set.iter().filter_map(|o| obj_var.get(o).copied()));
                    }
                }
            }
            vars.sort_unstable();
            vars.dedup();
            sites.push(Site {
                class: m.class.clone(),
                method: m.name.clone(),
                descriptor: m.desc.clone(),
                bci: s.bci,
                kind: s.kind.as_str().to_string(),
                detail: s.detail.clone(),
                reached: base.is_some(),
                all,
                vars,
            });
        }
    }

    // Sharing: objects reachable from a started thread object or a static field may be seen by
    // two threads. Static fields count as shared when the program can start a thread, or when
    // library code calls back into it (executors start threads inside the JDK).
    let mut roots = SparseBitSet::new();
    let threads: Vec<u32> = solver.started_threads.clone();
    let mut any_thread = false;
    for t in threads {
        let p = solver.points_to(t).clone();
        any_thread |= !p.is_empty();
        roots.union_with(&p);
    }
    any_thread |= solver.called_back;
    if any_thread {
        // Objects handed to library code may be handed to any thread.
        let u = solver.unknown;
        let p = solver.points_to(u).clone();
        roots.union_with(&p);
    }
    for (_, n) in solver.static_field_nodes() {
        let p = solver.points_to(n).clone();
        roots.union_with(&p);
    }
    let mut shared = roots.clone();
    let mut stack: Vec<u32> = roots.iter().collect();
    while let Some(o) = stack.pop() {
        let fields: Vec<u32> = solver.fields_of(o).iter().map(|&(_, n)| n).collect();
        for n in fields {
            let p: Vec<u32> = solver.points_to(n).iter().collect();
            for x in p {
                if shared.insert(x) {
                    stack.push(x);
                }
            }
        }
    }
    for (o, v) in &obj_var {
        if shared.contains(*o) {
            variables[*v as usize].shared = true;
        }
    }
    for v in variables.iter_mut() {
        if v.kind == VariableKind::Static {
            v.shared = any_thread;
        }
    }

    let mut stats = std::collections::BTreeMap::new();
    stats.insert(
        "classes_loaded".into(),
        solver.classes.loaded_count() as f64,
    );
    stats.insert("methods_reached".into(), solver.reached_methods() as f64);
    stats.insert(
        "app_methods_reached".into(),
        all_methods.iter().filter(|m| m.method.is_some()).count() as f64,
    );
    stats.insert("nodes".into(), solver.node_count() as f64);
    stats.insert("objects".into(), solver.objs.len() as f64);
    stats.insert("collapsed_nodes".into(), solver.collapsed_nodes() as f64);
    stats.insert("solver_steps".into(), solver.steps as f64);
    stats.insert("points_to_bytes".into(), solver.pts_bytes() as f64);
    stats.insert("jdk_warnings".into(), solver.jdk_warnings.len() as f64);
    stats.insert(
        "jdk_bodies_analysed".into(),
        solver.jdk_bodies_analysed() as f64,
    );
    stats.insert("solve_seconds".into(), solve_secs);
    stats.insert("total_seconds".into(), started.elapsed().as_secs_f64());

    Ok(AnalysisFile {
        format: FORMAT.to_string(),
        main,
        complete,
        warnings,
        variables,
        sites,
        stats,
    })
}
