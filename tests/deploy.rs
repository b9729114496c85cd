//! `deploy/` as a user gets it: the Slurm script parses (`bash -n`) and its dry run prints, for
//! every array task, the `rankcheck sweep --shard auto` command that task runs and the merge of
//! every shard's folder; the Kubernetes manifest parses as YAML and is an Indexed Job with as
//! many completions as shards, running the image the Dockerfile builds, with a merge Job over
//! the same volume.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn deploy(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(path)
}

#[test]
fn the_slurm_script_parses_and_its_dry_run_prints_every_tasks_command() {
    let script = deploy("slurm/sweep.sh");
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    // sbatch reads #SBATCH lines only before the first command.
    let text = std::fs::read_to_string(&script).unwrap();
    let first_command = text
        .lines()
        .position(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last_sbatch = lines
        .iter()
        .rposition(|l| l.starts_with("#SBATCH"))
        .unwrap();
    assert!(last_sbatch < first_command, "#SBATCH after a command");

    let dry = Command::new("bash")
        .arg(&script)
        .arg("--dry-run")
        .env("SHARDS", "3")
        .env("RESULTS", "/shared/results")
        .env("RANKCHECK", "/opt/rankcheck/bin/rankcheck")
        .env("SWEEP_ARGS", "--strategies pos,random --budget 50")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&dry.stdout);
    assert!(
        dry.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "three tasks and the merge:\n{out}");
    for i in 1..=3 {
        let line = lines[i - 1];
        assert!(
            line.starts_with(&format!(
                "task {i} (SLURM_ARRAY_TASK_ID={i} SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3)"
            )),
            "{line}"
        );
        assert!(
            line.ends_with(&format!(
                ": /opt/rankcheck/bin/rankcheck sweep --strategies pos,random --budget 50 -j 2 \
                 --shard auto --out /shared/results/shard-{i}"
            )),
            "{line}"
        );
    }
    assert!(
        lines[3].ends_with(
            ": /opt/rankcheck/bin/rankcheck merge /shared/results/shard-1 \
             /shared/results/shard-2 /shared/results/shard-3 --out /shared/results/merged"
        ),
        "{}",
        lines[3]
    );
}

/// The documents of the manifest, as JSON values.
fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(deploy("kubernetes/sweep.yaml")).unwrap();
    serde_norway::Deserializer::from_str(&text)
        .map(|doc| {
            let value: serde_norway::Value = serde::Deserialize::deserialize(doc).unwrap();
            serde_json::to_value(value).unwrap()
        })
        .collect()
}

fn env_value(container: &Value, name: &str) -> Option<String> {
    container["env"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_str().map(str::to_string))
}

fn script(container: &Value) -> String {
    let mut words: Vec<String> = Vec::new();
    for key in ["command", "args"] {
        for w in container[key].as_array().into_iter().flatten() {
            words.push(w.as_str().unwrap_or("").to_string());
        }
    }
    words.join(" ")
}

#[test]
fn the_kubernetes_manifest_is_an_indexed_job_and_a_merge_over_one_volume() {
    let docs = manifest();
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["PersistentVolumeClaim", "Job", "Job"]);
    let claim = docs[0]["metadata"]["name"].as_str().unwrap();
    let (sweep, merge) = (&docs[1]["spec"], &docs[2]["spec"]);

    assert_eq!(docs[1]["apiVersion"], "batch/v1");
    assert_eq!(sweep["completionMode"], "Indexed");
    let shards = sweep["completions"].as_u64().expect("completions");
    assert!(shards >= 2);
    assert_eq!(sweep["parallelism"], shards, "every shard at once");
    let pod = &sweep["template"]["spec"];
    assert!(["Never", "OnFailure"].contains(&pod["restartPolicy"].as_str().unwrap()));
    let shard = &pod["containers"][0];
    assert_eq!(
        env_value(shard, "RANKCHECK_SHARDS"),
        Some(shards.to_string()),
        "the shard count rankcheck reads equals the completions"
    );
    let run = script(shard);
    assert!(run.contains("rankcheck sweep"), "{run}");
    assert!(run.contains("--shard auto"), "{run}");
    assert!(
        run.contains("$JOB_COMPLETION_INDEX"),
        "each shard its own --out: {run}"
    );

    let merger = &merge["template"]["spec"]["containers"][0];
    assert_eq!(env_value(merger, "SHARDS"), Some(shards.to_string()));
    let run = script(merger);
    assert!(run.contains("rankcheck merge /results/shard-*"), "{run}");

    // Both pods mount the claim at /results, and run the image the Dockerfile builds.
    let version = env!("CARGO_PKG_VERSION");
    let dockerfile = std::fs::read_to_string(deploy("Dockerfile")).unwrap();
    assert!(
        dockerfile.contains(&format!("-t rankcheck:{version} .")),
        "the Dockerfile's build line tags this version"
    );
    for spec in [pod, &merge["template"]["spec"]] {
        let container = &spec["containers"][0];
        assert_eq!(container["image"], format!("rankcheck:{version}"));
        assert_eq!(container["volumeMounts"][0]["mountPath"], "/results");
        let volume = &spec["volumes"][0];
        assert_eq!(volume["name"], container["volumeMounts"][0]["name"]);
        assert_eq!(volume["persistentVolumeClaim"]["claimName"], claim);
    }
    assert_eq!(
        docs[0]["spec"]["accessModes"][0], "ReadWriteMany",
        "pods on several nodes write the results"
    );
}

/// Stands in for `sbatch` on a machine without Slurm: prints a job id (`--parsable`), then runs
/// an array's tasks one after another with the variables Slurm sets, or a `--wrap` command,
/// each into its `--output` file (`%a`: the task id).
const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
array= wrap= script= output=/dev/null
for a in "$@"; do
  case $a in
    --array=*) array=${a#--array=} ;;
    --wrap=*) wrap=${a#--wrap=} ;;
    --output=*) output=${a#--output=} ;;
    --*) ;;
    *) script=$a ;;
  esac
done
echo "$$"
if [ -n "$array" ]; then
  lo=${array%-*} hi=${array#*-}
  for i in $(seq "$lo" "$hi"); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_COUNT=$((hi - lo + 1)) \
      SLURM_CPUS_PER_TASK=1 bash "$script" >"${output//%a/$i}" 2>&1 || exit 1
  done
else
  bash -c "$wrap" >"$output" 2>&1 || exit 1
fi
"#;

#[test]
fn the_slurm_script_as_written_runs_a_sharded_sweep_and_merges_it() {
    let dir = std::env::temp_dir().join(format!("rankcheck-deploy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(&sbatch, FAKE_SBATCH).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let results = dir.join("results");
    let ran = Command::new("bash")
        .arg(deploy("slurm/sweep.sh"))
        .current_dir(&dir)
        .env("PATH", path)
        .env("SHARDS", "2")
        .env("RESULTS", &results)
        .env("RANKCHECK", env!("CARGO_BIN_EXE_rankcheck"))
        .env(
            "SWEEP_ARGS",
            format!(
                "{} --programs LostUpdate,LostUpdateFixed --strategies random --budget 20",
                suite.display()
            ),
        )
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    let log = |name: &str| std::fs::read_to_string(results.join("logs").join(name));
    let said = format!(
        "{}{}\nmerge.log: {:?}\nshard-1.log: {:?}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr),
        log("merge.log"),
        log("shard-1.log")
    );
    assert!(ran.status.success(), "{said}");
    assert!(said.contains("submitted array job"), "{said}");
    for shard in ["shard-1", "shard-2"] {
        assert!(
            results.join(shard).join("rankcheck-shard.json").is_file(),
            "{shard}: {said}"
        );
    }
    let table = std::fs::read_to_string(results.join("merged/table1.md")).unwrap();
    assert!(
        table.contains("LostUpdate") && table.contains("LostUpdateFixed"),
        "{table}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
