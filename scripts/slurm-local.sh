#!/bin/bash
# A one-node Slurm cluster on this machine, for the opt-in test of `tailback ... --slurm`
# (crates/tailback-cli/tests/slurm.rs; docs/cluster.md). Needs root: it installs slurm-wlm and
# munge with apt when they are missing, writes /etc/slurm/slurm.conf (only when there is none,
# or when the one there was written by this script), starts munged, slurmctld and slurmd when
# they are not running, and waits until the node is idle.
#
# Usage: scripts/slurm-local.sh          (idempotent: a running cluster is left as it is)
#        scripts/slurm-local.sh --stop   (stops the daemons this script starts)
set -euo pipefail

MARK="# Written by tailback scripts/slurm-local.sh"
CONF=/etc/slurm/slurm.conf
STATE=/var/spool/tailback-slurm
NODE=$(hostname -s)

say() { echo "slurm-local: $*" >&2; }

if [[ ${1:-} == --stop ]]; then
    for pidfile in "$STATE/slurmd.pid" "$STATE/slurmctld.pid"; do
        [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    say "needs root (apt-get and the Slurm daemons)"
    exit 1
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# Munge: a key, its directories, the daemon.
if [[ ! -s /etc/munge/munge.key ]]; then
    say "creating a munge key"
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile=/etc/munge/munge.key --force
    else
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 755 /run/munge
if ! munge -n >/dev/null 2>&1; then
    say "starting munged"
    runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.2; done
    munge -n >/dev/null
fi

# The configuration: one node, this machine, all its CPUs; no accounting, no cgroups.
if [[ -f $CONF ]] && ! grep -qF "$MARK" "$CONF"; then
    if scontrol ping >/dev/null 2>&1; then
        say "$CONF exists (not written by this script) and its controller answers: using it"
        exit 0
    fi
    say "$CONF exists and was not written by this script; refusing to replace it"
    exit 1
fi
mkdir -p /etc/slurm "$STATE/ctld" "$STATE/d"
MEM=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
cat >"$CONF.new" <<EOF
$MARK
ClusterName=tailback-local
SlurmctldHost=$NODE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName=$NODE CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
if ! cmp -s "$CONF.new" "$CONF" 2>/dev/null; then
    mv "$CONF.new" "$CONF"
    changed=1
else
    rm "$CONF.new"
    changed=0
fi

running() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
if running "$STATE/slurmctld.pid" && [[ $changed -eq 1 ]]; then
    say "configuration changed: restarting the daemons"
    kill "$(cat "$STATE/slurmd.pid")" 2>/dev/null || true
    kill "$(cat "$STATE/slurmctld.pid")" 2>/dev/null || true
    sleep 2
fi
if ! running "$STATE/slurmctld.pid"; then
    say "starting slurmctld"
    slurmctld
fi
if ! running "$STATE/slurmd.pid"; then
    say "starting slurmd"
    slurmd
fi

for _ in $(seq 120); do
    if scontrol ping 2>/dev/null | grep -q UP; then
        state=$(sinfo -h -n "$NODE" -o %t 2>/dev/null | head -1)
        case $state in
        idle | mix | alloc) break ;;
        down* | drain* | fail*)
            scontrol update NodeName="$NODE" State=RESUME 2>/dev/null || true
            ;;
        esac
    fi
    sleep 0.5
done
state=$(sinfo -h -n "$NODE" -o %t 2>/dev/null | head -1 || true)
case $state in
idle | mix | alloc) say "node $NODE is $state" ;;
*)
    say "node $NODE did not come up (state: ${state:-unknown}); logs in $STATE"
    tail -n 20 "$STATE/slurmctld.log" "$STATE/slurmd.log" >&2 || true
    exit 1
    ;;
esac
