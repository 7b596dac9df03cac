#!/bin/bash
# Container entrypoint of the compose cluster: `entrypoint.sh controller|node`, or `render` to
# only write the configuration (used by the tests). Renders it with render-conf.sh (shared with
# cluster.sh) into $HAM_STATE/etc (default /state, the volume shared by the containers).
set -euo pipefail
role=${1:?usage: entrypoint.sh controller|node|render}
nodes=${HAM_NODES:-3}
export STATE=${HAM_STATE:-/state} CLUSTER=ham CTL_HOST=controller CTL_ADDR=controller CTL_PORT=6817 \
    SLURMD_PORT=6818 DBD_PORT=6819 DB_HOST=127.0.0.1 DB_PORT=3306 DB_PASS=${HAM_DB_PASS:-ham} \
    MUNGE_SOCKET=/run/ham/munge.socket PLUGSTACK="" CPUS=2 REAL_MEMORY=3072
NODE_LINES=$(for i in $(seq "$nodes"); do
    echo "NodeName=node$i NodeAddr=node$i CPUs=$CPUS RealMemory=$REAL_MEMORY State=UNKNOWN"; done)
export NODE_LINES
mkdir -p "$STATE/etc" "$STATE/run" "$STATE/log" "$STATE/spool/ctld" "$STATE/spool/d" "$STATE/munge"
chmod 700 "$STATE/munge"
"$(dirname "$0")/render-conf.sh" "$STATE/etc"
[ "$role" = render ] && exit 0
mkdir -p /run/ham /shared
# The munge key lives on the shared /state volume; the controller creates it.
[ "$role" = controller ] && [ ! -f $STATE/munge/munge.key ] && mungekey -c -k $STATE/munge/munge.key
while [ ! -f $STATE/munge/munge.key ]; do sleep 0.5; done
# Each container runs its own munged on a container-local socket.
munged --force --key-file=$STATE/munge/munge.key --socket="$MUNGE_SOCKET" \
    --pid-file=/run/ham/munged.pid --seed-file=/run/ham/munge.seed
case $role in
    controller)
        mariadb-install-db --no-defaults --datadir=$STATE/mysql --user=root >/dev/null
        mariadbd --no-defaults --datadir=$STATE/mysql --user=root --bind-address=127.0.0.1 &
        until mariadb --no-defaults -e "select 1" >/dev/null 2>&1; do sleep 0.5; done
        mariadb --no-defaults -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
        slurmdbd
        until sacctmgr -n list cluster >/dev/null 2>&1; do sleep 0.5; done
        sacctmgr -i add cluster ham >/dev/null 2>&1 || true
        exec slurmctld -D -f "$SLURM_CONF" ;;
    node)
        exec slurmd -D -f "$SLURM_CONF" -N "$HOSTNAME" ;;
    *) echo "unknown role $role" >&2; exit 2 ;;
esac
