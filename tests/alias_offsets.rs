//! Site keys use original bytecode offsets, while ristretto numbers instructions by index: the
//! alias crate computes offsets itself (`alias::bytecode::byte_offsets`, here through `method_offsets`). This checks them
//! against `javap -c` on real classes, switches and wide instructions included.

use std::path::PathBuf;
use std::process::Command;

use alias::bytecode::method_offsets;
use alias::classpath::{default_jmods, ClassPath};

/// The instruction offsets of every method with code, in class-file order, as javap prints them.
fn javap_offsets(class_file: &std::path::Path) -> Vec<Vec<u32>> {
    let out = Command::new("javap")
        .args(["-c", "-p"])
        .arg(class_file)
        .output()
        .expect("javap runs");
    assert!(
        out.status.success(),
        "javap failed on {}",
        class_file.display()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut methods: Vec<Vec<u32>> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t == "Code:" {
            methods.push(Vec::new());
            continue;
        }
        // Instruction lines look like `  12: invokevirtual #7 …`; switch case lines like
        // `  1: 28` sit deeper and are followed by `default:`; only take lines whose text after
        // the colon starts with a mnemonic (a lowercase letter).
        if let (Some(current), Some((num, rest))) = (methods.last_mut(), t.split_once(':')) {
            if let Ok(n) = num.parse::<u32>() {
                if rest
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_lowercase())
                {
                    current.push(n);
                }
            }
        }
    }
    methods
}

#[test]
fn offsets_match_javap_on_jdk_classes() {
    let mut cp = ClassPath::new(&[], Some(&default_jmods())).unwrap();
    let dir = std::env::temp_dir().join(format!("rankcheck-alias-offsets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Chosen for tableswitch/lookupswitch (with every padding), wide locals and long methods.
    let classes = [
        "java/lang/Character",
        "java/lang/CharacterData00",
        "java/util/HashMap",
        "java/util/concurrent/ConcurrentHashMap",
        "java/util/regex/Pattern",
        "java/math/BigInteger",
        "sun/util/calendar/ZoneInfoFile",
        "java/lang/invoke/LambdaForm",
    ];
    let mut instructions = 0;
    for name in classes {
        let (bytes, _) = cp.load(name).unwrap_or_else(|| panic!("{name} in jmods"));
        let path: PathBuf = dir.join(format!("{}.class", name.replace('/', "_")));
        std::fs::write(&path, &bytes).unwrap();
        let theirs = javap_offsets(&path);
        let ours = method_offsets(&bytes).unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}: methods with code");
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{name}: method #{i} offsets differ");
            instructions += a.len();
        }
    }
    assert!(
        instructions > 10_000,
        "only {instructions} instructions compared"
    );
}
