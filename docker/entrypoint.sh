#!/bin/bash
# Container entrypoint of the compose cluster: `entrypoint.sh db|controller|node`, or `render`
# to only write the Slurm configuration (the unit tests compare it with the native cluster's).
# Each container renders its own copy into $HAM_CONF (default /etc/ham) with render-conf.sh, the
# script cluster.sh uses, so no two containers write one file. They share the /state volume
# (munge key, Slurm state, logs) and /shared (job directories; Lustre's stand-in).
set -euo pipefail
role=${1:-}
case $role in
    db|controller|node|render) ;;
    *) echo "entrypoint.sh: unknown role '$role' (db, controller, node or render)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
conf=${HAM_CONF:-/etc/ham}
nodes=${HAM_NODES:-3}
export STATE=${HAM_STATE:-/state} CLUSTER=ham CTL_HOST=controller CTL_ADDR=controller CTL_PORT=6817 \
    SLURMD_PORT=6818 DBD_PORT=6819 DB_HOST=db DB_PORT=3306 DB_PASS=${HAM_DB_PASS:-ham} \
    MUNGE_SOCKET=/run/ham/munge.socket PLUGSTACK="$conf/plugstack.conf" CPUS=2 REAL_MEMORY=3072
NODE_LINES=$(for i in $(seq "$nodes"); do
    echo "NodeName=node$i NodeHostname=node$i NodeAddr=node$i CPUs=$CPUS RealMemory=$REAL_MEMORY State=UNKNOWN"; done)
export NODE_LINES
export SLURM_CONF="$conf/slurm.conf"
mkdir -p "$conf"
echo "required /opt/ham/lib/slurm/ham_spank.so root=/shared/spank" > "$conf/plugstack.conf"
"$here/render-conf.sh" "$conf"
[ "$role" = render ] && exit 0

wait_for() {  # wait_for DESCRIPTION COMMAND...: poll for up to 60 s
    local what=$1; shift
    for _ in $(seq 120); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
    echo "entrypoint.sh: timed out waiting for $what" >&2; exit 1
}

start_munge() {
    mkdir -p /run/ham "$STATE/munge"
    chmod 700 "$STATE/munge"
    # One key for the cluster: the first container to get here makes it. The hard link appears
    # atomically, so no container ever reads a half-written key.
    if [ ! -f "$STATE/munge/munge.key" ]; then
        rm -f "$STATE/munge/key.$HOSTNAME"
        mungekey -c -k "$STATE/munge/key.$HOSTNAME"
        ln "$STATE/munge/key.$HOSTNAME" "$STATE/munge/munge.key" 2>/dev/null || true
        rm -f "$STATE/munge/key.$HOSTNAME"
    fi
    munged --force --key-file="$STATE/munge/munge.key" --socket="$MUNGE_SOCKET" \
        --pid-file=/run/ham/munged.pid --seed-file=/run/ham/munge.seed --log-file=/run/ham/munged.log
}

mkdir -p "$STATE/log" "$STATE/run" "$STATE/spool/ctld" "$STATE/spool/d" /shared/spank
chmod 1777 /shared /shared/spank
case $role in
    db)
        # Container-local data: the accounting database starts empty with the cluster.
        mkdir -p /run/ham
        mariadb-install-db --no-defaults --datadir=/var/lib/ham-mysql --user=root >/dev/null
        cat > /run/ham-db-init.sql <<SQL
CREATE USER IF NOT EXISTS 'slurm'@'%' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'%';
SQL
        exec mariadbd --no-defaults --datadir=/var/lib/ham-mysql --user=root --port="$DB_PORT" \
            --bind-address=0.0.0.0 --socket=/run/ham/mysqld.sock --skip-name-resolve \
            --innodb-buffer-pool-size=64M --init-file=/run/ham-db-init.sql ;;
    controller)
        start_munge
        wait_for "the database on $DB_HOST" mariadb --no-defaults -h "$DB_HOST" -P "$DB_PORT" \
            -u slurm -p"$DB_PASS" -e "select 1"
        slurmdbd
        wait_for slurmdbd sacctmgr -n list cluster
        sacctmgr -i add cluster "$CLUSTER" >/dev/null 2>&1 || true
        exec slurmctld -D -f "$SLURM_CONF" ;;
    node)
        mkdir -p "$STATE/spool/d/$HOSTNAME"  # slurmd keeps its sockets and hwloc topology there
        start_munge
        exec slurmd -D -f "$SLURM_CONF" -N "$HOSTNAME" ;;
esac
