#!/usr/bin/env bash
# Tests the job-array recipe for real on one machine (docs/scale-out.md): installs Slurm and munge
# from Debian, starts slurmctld and slurmd on this host with two stand-in GPUs (gres files
# /dev/null and /dev/zero, so that the recipe's --gres=gpu:1 is honoured), runs a compile-
# validation sweep of configs/softmax-smoke.yaml as a 3-task array and the merge after it, and
# checks that the merged database has the builds of the whole sweep. Needs root; changes the
# machine's /etc/slurm and /etc/munge: for a throw-away machine or container.
# Usage: ci/slurm/single-node-test.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
tune="$(realpath "${1:-build}")/tuner/cuop-tune"
[[ -x "$tune" ]] || { echo "no cuop-tune in ${1:-build}/tuner" >&2; exit 1; }
DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge sqlite3 >/dev/null
host=$(hostname -s)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat >/etc/slurm/slurm.conf <<CONF
ClusterName=cuop
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmUser=root
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
GresTypes=gpu
NodeName=$host CPUs=$(nproc) RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$host" "$host" >/etc/slurm/gres.conf
[[ -f /etc/munge/munge.key ]] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null
chown munge:munge /etc/munge/munge.key /run/munge && chmod 400 /etc/munge/munge.key
pgrep munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged
pgrep slurmctld >/dev/null || slurmctld
sleep 2
pgrep slurmd >/dev/null || slurmd
sleep 3
scontrol update nodename="$host" state=resume 2>/dev/null || true

work=$(mktemp -d)
export CUOP_TUNE="$tune" CUOP_SHARD_DIR="$work/shards" CUOP_VALIDATE_ONLY=1 CUOP_DB="$work/all.db" \
  CUOP_RESULTS="$work/results"
cd "$work"
array=$(sbatch --parsable --array=1-3 --export=ALL "$OLDPWD/ci/slurm/sweep-array.sbatch" "$OLDPWD/configs/softmax-smoke.yaml")
merge=$(sbatch --parsable --dependency=afterok:"$array" --export=ALL "$OLDPWD/ci/slurm/merge.sbatch")
for _ in $(seq 600); do squeue -h -j "$array,$merge" 2>/dev/null | grep -q . || break; sleep 1; done
cat cuop-merge-*.log
"$tune" sweep --validate-only --db "$work/whole.db" "$OLDPWD/configs/softmax-smoke.yaml" 2>/dev/null
q='SELECT c.instance, b.target, b.status FROM builds b JOIN configs c ON c.id = b.config_id ORDER BY 1, 2'
if diff <(sqlite3 "$work/all.db" "$q") <(sqlite3 "$work/whole.db" "$q") >/dev/null; then
  echo "slurm job array: $(sqlite3 "$work/all.db" 'SELECT COUNT(*) FROM runs') shard runs merged, the builds of the whole sweep: ok"
else
  echo "slurm job array: the merged builds differ from the whole sweep's" >&2
  exit 1
fi
