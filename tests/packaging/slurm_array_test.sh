#!/bin/bash
# packaging/slurm/transcribe-array.sbatch on a one-node Slurm from Debian's packages (slurm-wlm,
# munge), started here with its own configuration in a temporary folder and stopped by the pids
# it started: an array of 3 tasks over a manifest of 6 espeak-ng recordings writes every output
# exactly once, each equal to a single `earshot transcribe` of the whole list; resubmitted after
# an output pair is lost, only that file is transcribed again.
# Exit 77 (skipped, the reason printed) only when the daemons cannot be started for lack of
# privileges (slurmd and munged need root); any other failure to start them fails the test.
# usage: slurm_array_test.sh EARSHOT_EXE MICRO_MODEL_DIR SBATCH_SCRIPT
set -uo pipefail
earshot=$1
model=$2
script=$3
kSkip=77

fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in slurmctld slurmd sbatch squeue sinfo munged mungekey espeak-ng; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (packaging/setup.sh installs slurm-wlm, munge, espeak-ng)"
done
if [[ $(id -u) -ne 0 ]]; then
    echo "SKIPPED: slurmd and munged must run as root to start jobs; this test runs as uid $(id -u)"
    exit $kSkip
fi

dir=$(mktemp -d /tmp/earshot-slurm-XXXXXX)
chmod 700 "$dir"
pids=()
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$dir"
}
trap stop EXIT
show_logs() { for log in "$dir"/*.log; do echo "--- $log"; tail -20 "$log"; done >&2; }

# MUNGE: its own key, socket and files.
mungekey --create --keyfile="$dir/munge.key" --bits=1024 || fail "mungekey failed"
chmod 400 "$dir/munge.key"
munged --foreground --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" \
    >"$dir/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S "$dir/munge.socket" ]] && break; sleep 0.1; done
[[ -S "$dir/munge.socket" ]] || { show_logs; fail "munged did not start"; }

# Free ports for the two daemons.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
node=$(hostname -s)
node_line=$(slurmd -C | head -1)
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=earshot-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$dir/slurmd.out.log" 2>&1 &
pids+=($!)
ready=0
for _ in $(seq 300); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
    if [[ $state == idle* ]]; then ready=1; break; fi
    sleep 0.1
done
if [[ $ready -ne 1 ]]; then
    show_logs
    if grep -qiE "permission denied|operation not permitted" "$dir"/slurm*.log; then
        echo "SKIPPED: the Slurm daemons cannot start here for lack of privileges (see above)"
        exit $kSkip
    fi
    fail "the one-node Slurm did not come up (node state: ${state:-none})"
fi
echo "slurm: controller and node up (ports $ctld_port, $slurmd_port)"

# Six recordings of words the micro model knows, and their manifest.
sentences=("please call me tomorrow" "see you tomorrow" "call the doctor today"
    "please call me" "send the report" "buy milk and bread")
mkdir -p "$dir/audio"
for i in "${!sentences[@]}"; do
    espeak-ng -v en-us -s 160 -w "$dir/audio/rec$i.wav" "${sentences[$i]}" || fail "espeak-ng failed"
    echo "rec$i.wav" >>"$dir/audio/list.txt"
done
# The single-process run on one BLAS thread, as each task runs (--cpus-per-task=1): the sums'
# order, and so the last bits of avg_logprob, depend on the thread count.
OPENBLAS_NUM_THREADS=1 "$earshot" transcribe --manifest "$dir/audio/list.txt" --model "$model" --format txt,json \
    --output-dir "$dir/single" >/dev/null 2>"$dir/single.log" || { show_logs; fail "single run failed"; }

run_array() {
    local job
    job=$(EARSHOT=$earshot sbatch --parsable --array=0-2 --cpus-per-task=1 --chdir="$dir" \
        --output="$dir/task-%A_%a.log" "$script" "$dir/audio/list.txt" "$dir/out" \
        --model "$model" --format txt,json) || { show_logs; fail "sbatch failed"; }
    job=${job%%;*}
    for _ in $(seq 1200); do
        [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
        sleep 0.1
    done
    [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] || { show_logs; fail "array $job still queued or running after 120 s"; }
    echo "$job"
}

job=$(run_array)
tasks=$(ls "$dir"/task-"$job"_*.log | wc -l)
[[ $tasks -eq 3 ]] || { show_logs; fail "$tasks task logs, expected 3"; }
outputs=$(ls "$dir/out" | sort)
expected=$(ls "$dir/single" | sort)
[[ "$outputs" == "$expected" ]] || fail "outputs differ in names: $(echo $outputs) vs $(echo $expected)"
[[ $(ls "$dir/out" | wc -l) -eq 12 ]] || fail "expected 12 outputs (6 recordings x txt, json)"
for f in $expected; do
    cmp -s "$dir/out/$f" "$dir/single/$f" || fail "$f differs from the single-process run"
done
# Each recording was transcribed by exactly one task.
wrote=$(cat "$dir"/task-"$job"_*.log | grep -c '^Wrote .*\.txt$')
[[ $wrote -eq 6 ]] || { cat "$dir"/task-"$job"_*.log; fail "$wrote .txt writes in the task logs, expected 6"; }
# Each task's summary: together 6 recordings done, none failed.
done_total=0
for summary in "$dir"/summary-"$job"_*.json; do
    done_total=$((done_total + $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; print(c["done"] if c["failed"] == 0 else -100)' "$summary")))
done
[[ $done_total -eq 6 ]] || { cat "$dir"/summary-"$job"_*.json; fail "the task summaries count $done_total done, expected 6"; }
echo "slurm: array $job of 3 tasks wrote 6 recordings x 2 formats, equal to the single run"

# A lost node: one recording's outputs are gone; the resubmitted array redoes only that one.
rm "$dir/out/rec4.txt" "$dir/out/rec4.json"
before=$(stat -c %Y.%N "$dir/out/rec0.txt" 2>/dev/null || stat -c %Y "$dir/out/rec0.txt")
job2=$(run_array)
rewrote=$(cat "$dir"/task-"$job2"_*.log | grep '^Wrote .*\.txt$' | sed 's#.*/##')
[[ "$rewrote" == "rec4.txt" ]] || { cat "$dir"/task-"$job2"_*.log; fail "the rerun wrote '$rewrote', expected rec4.txt alone"; }
skipped=$(cat "$dir"/task-"$job2"_*.log | grep -c '^Skipped ')
[[ $skipped -eq 5 ]] || fail "$skipped skipped, expected 5"
cmp -s "$dir/out/rec4.txt" "$dir/single/rec4.txt" || fail "rec4.txt differs after the rerun"
after=$(stat -c %Y.%N "$dir/out/rec0.txt" 2>/dev/null || stat -c %Y "$dir/out/rec0.txt")
[[ "$before" == "$after" ]] || fail "rec0.txt was written again"
echo "slurm: resubmitted array $job2 redid rec4 only (5 skipped)"
echo "PASS"
