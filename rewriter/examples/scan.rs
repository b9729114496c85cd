// scratch (not committed): instrument every class of the given archives, report errors/warnings
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(classes) = rewriter::jar::read_classes(&bytes) else {
            println!("{path}: unreadable");
            continue;
        };
        let mut h = rewriter::Hierarchy::new();
        for (_, c) in &classes {
            h.add_class_bytes(c);
        }
        let cfg = rewriter::Config {
            hierarchy: std::sync::Arc::new(h),
            ..rewriter::Config::all()
        };
        let (mut err, mut warn, mut sites) = (0, 0, 0);
        for (name, c) in &classes {
            match rewriter::instrument_class(c, &cfg) {
                Ok(o) => {
                    sites += o.sites.len();
                    for w in &o.warnings {
                        warn += 1;
                        if warn < 4 {
                            println!("  warn {w}");
                        }
                    }
                }
                Err(e) => {
                    err += 1;
                    if err < 4 {
                        println!("  ERR {name}: {e}");
                    }
                }
            }
        }
        println!(
            "{path}: {} classes, {err} errors, {warn} warnings, {sites} sites",
            classes.len()
        );
    }
}
