#include "src/launch/slurm/slurm_scripts.h"

namespace hptune::launch::slurm_internal {

// Sourced by both batch scripts, with D set to their directory: places
// replica k on a node of its component's allocation and publishes the
// nodes' addresses (D/hosts) and names (D/nodes), one line per replica.
const char kPlacementScript[] =
    R"SH(# hptune replica placement (written by SlurmLauncher; see slurm_launcher.h).
mapfile -t layout <"$D/layout"
R=${#layout[@]}
G=$(<"$D/components")

# "2(x3),1" -> "2 2 2 1": the task count of each allocated node, in order.
expand_tasks() {
  local part out=() n c j
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
      n=${BASH_REMATCH[1]}; c=${BASH_REMATCH[2]}
    else
      n=$part; c=1
    fi
    for ((j = 0; j < c; j++)); do out+=("$n"); done
  done
  echo "${out[@]}"
}

# Replica k of component g takes the next free task slot of g's nodes.
declare -a node addr
declare -A node_addr
for ((g = 0; g < G; g++)); do
  if [ "$G" -gt 1 ]; then
    nodelist_var=SLURM_JOB_NODELIST_HET_GROUP_$g
    tasks_var=SLURM_TASKS_PER_NODE_HET_GROUP_$g
  else
    nodelist_var=SLURM_JOB_NODELIST
    tasks_var=SLURM_TASKS_PER_NODE
  fi
  mapfile -t hosts < <(scontrol show hostnames "${!nodelist_var}")
  read -ra counts <<<"$(expand_tasks "${!tasks_var}")"
  h=0
  used=0
  for ((k = 0; k < R; k++)); do
    read -r comp _ <<<"${layout[k]}"
    [ "$comp" = "$g" ] || continue
    while [ "$h" -lt "${#counts[@]}" ] && [ "$used" -ge "${counts[h]}" ]; do
      h=$((h + 1)); used=0
    done
    [ "$h" -lt "${#hosts[@]}" ] || h=$((${#hosts[@]} - 1))
    node[k]=${hosts[h]}
    used=$((used + 1))
  done
done
for ((k = 0; k < R; k++)); do
  n=${node[k]}
  if [ -z "${node_addr[$n]:-}" ]; then
    a=$(scontrol show node "$n" -o | grep -o 'NodeAddr=[^ ]*' | cut -d= -f2)
    node_addr[$n]=${a:-$n}
  fi
  addr[k]=${node_addr[$n]}
done
printf '%s\n' "${addr[@]}" >"$D/hosts.tmp" && mv "$D/hosts.tmp" "$D/hosts"
printf '%s\n' "${node[@]}" >"$D/nodes.tmp" && mv "$D/nodes.tmp" "$D/nodes"
)SH";

// Runs as the batch step on the job's first node: places replicas on the
// allocated nodes, publishes their addresses, then keeps one srun step per
// replica, starting run n+1 when the launcher asks for it.
const char kSupervisorScript[] = R"SH(#!/bin/bash
# hptune trial supervisor (written by SlurmLauncher; see slurm_launcher.h).
D=$1
. "$D/place.sh"

run_replica() {
  local k=$1 run=1 comp cpus mem gpus gtype rc next
  read -r comp cpus mem gpus gtype <<<"${layout[k]}"
  local opts=(--nodes=1 --ntasks=1 --nodelist="${node[k]}" --exact
              --cpus-per-task="$cpus" --mem-per-cpu="$mem" --input=none
              --job-name="replica-$k" --kill-on-bad-exit=0)
  [ "$G" -gt 1 ] && opts+=(--het-group="$comp")
  # A typed allocation takes only typed step requests.
  if [ "$gpus" -gt 0 ]; then opts+=(--gres=gpu:${gtype:+$gtype:}"$gpus"); else opts+=(--gres=none); fi
  while :; do
    srun "${opts[@]}" /bin/bash "$D/task.sh" "$D" "$k" "$run"
    rc=$?
    if [ ! -e "$D/r$k.exit.$run" ]; then
      # The step never ran the wrapper (srun failed): srun's status stands.
      echo "$rc 0" >"$D/r$k.exit.$run.tmp" && mv "$D/r$k.exit.$run.tmp" "$D/r$k.exit.$run"
    fi
    next=$((run + 1))
    until [ -e "$D/r$k.restart.$next" ]; do
      [ -e "$D/stop" ] && return 0
      sleep 0.05
    done
    run=$next
  done
}
for ((k = 0; k < R; k++)); do run_replica "$k" & done
wait
)SH";

// The batch script of an allocation a job's trials reuse: places the
// replicas, publishes hosts and nodes, and holds the allocation until it is
// cancelled; the launcher starts each trial's steps in it with srun --jobid.
const char kHolderScript[] = R"SH(#!/bin/bash
# hptune allocation holder (written by SlurmLauncher; see slurm_launcher.h).
D=$1
. "$D/place.sh"
exec sleep infinity
)SH";

// Runs inside replica k's srun step: environment with real hosts, argv from
// a NUL-separated file (no shell quoting), log appended, exit recorded.
const char kTaskScript[] = R"SH(#!/bin/bash
# One replica of an hptune trial (written by SlurmLauncher).
D=$1 k=$2 run=$3
log=$(<"$D/r$k.log")
mkdir -p "$(dirname "$log")"
exec </dev/null >>"$log" 2>&1
mapfile -t hosts <"$D/hosts"
while IFS= read -r -d '' kv; do
  for i in "${!hosts[@]}"; do kv=${kv//@hptune-host-$i@/${hosts[i]}}; done
  export "$kv"
done <"$D/r$k.env"
argv=()
while IFS= read -r -d '' a; do argv+=("$a"); done <"$D/r$k.argv"
cwd=$(<"$D/r$k.cwd")
if [ -n "$cwd" ]; then cd "$cwd" || exit 126; fi
(trap - INT QUIT; exec "${argv[@]}") &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM
trap 'kill -INT $child 2>/dev/null' INT
while :; do
  wait "$child"
  rc=$?
  kill -0 "$child" 2>/dev/null || break
done
code=$rc
sig=0
if [ "$rc" -gt 128 ]; then code=0; sig=$((rc - 128)); fi
out=$D/r$k.exit.$run
echo "$code $sig" >"$out.tmp" && mv "$out.tmp" "$out"
exit "$rc"
)SH";

}  // namespace hptune::launch::slurm_internal
