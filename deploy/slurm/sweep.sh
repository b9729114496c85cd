#!/usr/bin/env bash
# A rankcheck sweep over a Slurm job array: each array task runs one shard, and a job that
# starts when they have all ended merges them.
#
#   cargo build --release && bash deploy/slurm/sweep.sh            # from the repository root
#   bash deploy/slurm/sweep.sh --dry-run                            # print what each task runs
#
# Settings (environment): SHARDS (default 4), RESULTS (default ./rankcheck-sweep-shards: must be
# on a file system every node sees), RANKCHECK (default ./target/release/rankcheck, which finds
# contest-bench/ next to it), SWEEP_ARGS (more `rankcheck sweep` options, e.g.
# "--strategies pos,random --seeds 3"). Java: a JDK 17 on the nodes' PATH or JAVA_HOME; where
# your site has modules, load one in JAVA_MODULE (e.g. JAVA_MODULE=openjdk/17).
# Results: RESULTS/shard-1 … shard-N (each task's part), RESULTS/merged (the tables and plots),
# the logs in RESULTS/logs.
#SBATCH --job-name=rankcheck-sweep
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
set -euo pipefail

SHARDS=${SHARDS:-4}
RESULTS=${RESULTS:-$PWD/rankcheck-sweep-shards}
RANKCHECK=${RANKCHECK:-$PWD/target/release/rankcheck}
SWEEP_ARGS=${SWEEP_ARGS:-}
# Under sbatch the script runs from a spool copy: the merge job calls the original.
SCRIPT=${SCRIPT:-$(realpath "$0")}
export SHARDS RESULTS RANKCHECK SWEEP_ARGS SCRIPT

read -r -a extra <<<"$SWEEP_ARGS"

# The command array task ID runs (`--shard auto` reads SLURM_ARRAY_TASK_ID/_MIN/_COUNT).
shard_command() {
  cmd=("$RANKCHECK" sweep "${extra[@]}" -j "${SLURM_CPUS_PER_TASK:-2}" --shard auto
       --out "$RESULTS/shard-$1")
}

# The merge, over every shard's folder (merge refuses a missing one, exit 2).
merge_command() {
  cmd=("$RANKCHECK" merge)
  for i in $(seq 1 "$SHARDS"); do cmd+=("$RESULTS/shard-$i"); done
  cmd+=(--out "$RESULTS/merged")
}

load_java() {
  if [ -n "${JAVA_MODULE:-}" ]; then module load "$JAVA_MODULE"; fi
}

case "${1:-}" in
  --dry-run)
    for i in $(seq 1 "$SHARDS"); do
      shard_command "$i"
      echo "task $i (SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=$SHARDS): ${cmd[*]}"
    done
    merge_command
    echo "merge (after every task): ${cmd[*]}"
    ;;
  --merge)
    load_java
    merge_command
    exec "${cmd[@]}"
    ;;
  "")
    if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
      load_java
      shard_command "$SLURM_ARRAY_TASK_ID"
      exec "${cmd[@]}"
    fi
    [ -x "$RANKCHECK" ] || { echo "sweep.sh: $RANKCHECK not found: cargo build --release first, or set RANKCHECK" >&2; exit 2; }
    mkdir -p "$RESULTS/logs"
    array=$(sbatch --parsable --array="1-$SHARDS" --export=ALL \
      --output="$RESULTS/logs/shard-%a.log" "$SCRIPT")
    array=${array%%;*}
    merge=$(sbatch --parsable --dependency="afterany:$array" --export=ALL \
      --job-name=rankcheck-merge --cpus-per-task=1 --output="$RESULTS/logs/merge.log" \
      --wrap="bash '$SCRIPT' --merge")
    echo "submitted array job $array ($SHARDS shards) and merge job $merge; results in $RESULTS/merged"
    ;;
  *)
    echo "usage: sweep.sh [--dry-run | --merge]" >&2
    exit 2
    ;;
esac
