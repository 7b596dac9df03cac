#!/bin/bash
# A real multi-node Slurm 22.05 cluster on one Debian 12 machine, for HAM's tests and demo.
#
#   cluster.sh install            apt-get install Slurm, munge, slurmdbd, MariaDB, GlusterFS (idempotent)
#   cluster.sh up [options]       (re)start the cluster; writes $HAM_CLUSTER_DIR/env.sh; refuses
#                                 ports in use, and stops what it started if it fails
#       -n, --nodes N             number of compute nodes (default 3)
#       --no-netns                fallback: every slurmd on the host (slurmd -N nodeX, own port)
#       --plugstack FILE          load the SPANK plugins listed in FILE (plugstack.conf)
#       --reuse                   keep a running cluster of the same shape instead of restarting
#       --fs local|gluster        the shared root ($HAM_CLUSTER_DIR/shared): a directory of this
#                                 machine that every node sees through one kernel (local,
#                                 default), or a GlusterFS
#                                 volume on a storage node that the login node (this shell) and
#                                 each node mount with a client of their own (gluster; netfs.sh)
#       --fs-profile strict|default
#                                 gluster's caching: coherent like Lustre/GPFS (strict, default),
#                                 or the package defaults (stale reads for ~1 s, NFS-like)
#   cluster.sh down               stop exactly what `up` started (by PID), remove netns and bridges
#   cluster.sh render DIR [--plugstack FILE]
#                                 write the configuration `up` would (3 nodes) into DIR, start nothing
#   cluster.sh status             show daemons and sinfo
#   cluster.sh kill-node I        lose node I as a power cut would: SIGKILL its slurmd and every
#                                 process in its namespace (jobs included); network namespaces only
#   cluster.sh revive-node I      start node I's slurmd again and wait until it is back in service
#   cluster.sh isolate-node I S   cut node I's network (Slurm, the driver, the file system; both
#                                 links) for S seconds; returns at once, the links come back by
#                                 themselves
#   cluster.sh fs-restart [S]     kill the file-system server (glusterd and its brick) and start
#                                 it again after S seconds (default 0); --fs gluster only
#   cluster.sh fs-profile P       switch a running cluster's gluster caching to P (strict or
#                                 default): volume options set and every client remounted
#
# Environment: HAM_CLUSTER_DIR (state, default /var/tmp/ham-cluster; the shared root is its
# shared/, exported by env.sh as HAM_CLUSTER_SHARED), HAM_CLUSTER_PORT_BASE
# (default 16800; the cluster uses base+6, +17, +18, +19 and base+201.. for --no-netns nodes).
# The port base also names the cluster's bridges, subnets, namespaces and veths, so a second
# cluster (another directory and base) has its own and its `down` leaves the first's alone:
# base 16800 has the names below, another base B has bridges hbBs/hbBf, 10.203.X.0/24 and
# 10.204.X.0/24 (X = B mod 256), namespaces hamB-nodeN and hamB-storage; `up` refuses in one
# line a subnet or bridge that something else already has.
#
# Each node is a slurmd in its own network, UTS and mount namespace: its own hostname (nodeN),
# its own address on a private bridge (eth0 at 10.200.0.1N on hambr0: Slurm, the file system)
# and an /etc/hosts naming every node by that address. A second bridge stands for a fast
# fabric beside the Ethernet (InfiniBand's, say): every node has eth1 at 10.202.0.1N on hambr1,
# the login node (this host) 10.202.0.1; nothing uses it unless asked (HAM's setting network,
# e.g. HAM_NETWORK=10.202.0.0/24; env.sh exports HAM_CLUSTER_FAST_NET and HAM_CLUSTER_FAST_IF).
# (10.201.0.0/24 is the compose cluster's network, which may run beside.) All state lives under
# $HAM_CLUSTER_DIR (default /var/tmp/ham-cluster); no systemd, no /etc/slurm.
set -euo pipefail

DIR=${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}
HERE=$(cd "$(dirname "$0")" && pwd)
# Every port derives from one base, so a second cluster (another HAM_CLUSTER_DIR) can run beside.
PORT_BASE=${HAM_CLUSTER_PORT_BASE:-16800}
[[ "$PORT_BASE" =~ ^[1-9][0-9]{3,4}$ ]] && [ "$PORT_BASE" -le 65000 ] ||
    { echo "cluster.sh: error: HAM_CLUSTER_PORT_BASE wants a port from 1000 to 65000, got '$PORT_BASE'" >&2; exit 1; }
# The network's names: the default cluster's as they always were, another base's its own.
# SUBNET and FAST_SUBNET are /24s (the fast one stands for a fabric beside the Ethernet); the
# node's interface on the fast one is FAST_IF; VETH/FAST_VETH + N are node N's host ends.
if [ "$PORT_BASE" = 16800 ]; then
    BRIDGE=hambr0 FAST_BRIDGE=hambr1 SUBNET=10.200.0 FAST_SUBNET=10.202.0
    NETNS_PREFIX=ham-node FS_NS=ham-storage VETH=veth-ham FAST_VETH=veth-hamf FS_VETH=veth-hamfs
else
    BRIDGE=hb${PORT_BASE}s FAST_BRIDGE=hb${PORT_BASE}f
    SUBNET=10.203.$((PORT_BASE % 256)) FAST_SUBNET=10.204.$((PORT_BASE % 256))
    NETNS_PREFIX=ham$PORT_BASE-node FS_NS=ham$PORT_BASE-storage
    VETH=vh${PORT_BASE}s FAST_VETH=vh${PORT_BASE}f FS_VETH=vh${PORT_BASE}st
fi
FAST_IF=eth1
CLUSTER=ham
CTL_PORT=$((PORT_BASE + 17))
SLURMD_PORT=$((PORT_BASE + 18))
DBD_PORT=$((PORT_BASE + 19))
DB_PORT=$((PORT_BASE + 6))
CPUS=2
REAL_MEMORY=3072
TEST_USER=hamuser
# The shared root, always under the cluster's own directory (env.sh exports it as
# HAM_CLUSTER_SHARED; a second cluster beside has its own).
SHARED=$DIR/shared
# The nodes' node-local directory (HAM's runner_local_dir). The nodes share this host's /tmp
# with every other test cluster on it, whose job ids are the same numbers, and each cluster's
# SPANK epilog removes <dir>/ham-<user>/<job id>: one directory per cluster, as each real node
# has its own /tmp. env.sh exports it as HAM_RUNNER_LOCAL_DIR.
NODE_LOCAL=$DIR/node-local

log() { echo "cluster.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=netfs.sh
. "$HERE/netfs.sh"

need_root() { [ "$(id -u)" = 0 ] || die "run as root (it installs packages and creates network namespaces)"; }

cmd_install() {
    need_root
    # util-linux-extra: fincore, with which test_lustre.py sees what lustre:// left in the page cache
    local pkgs="slurmctld slurmd slurm-client libslurm-dev munge slurmdbd mariadb-server iproute2 procps util-linux util-linux-extra"
    local missing=""
    for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
    if [ -n "$missing" ]; then
        log "installing$missing"
        apt-get update -qq
        # policy-rc.d keeps the packages from starting system-wide daemons we do not use.
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
        rm -f /usr/sbin/policy-rc.d
    fi
}

# --- teardown -----------------------------------------------------------------------------
kill_pidfile() {  # kill_pidfile FILE NAME: TERM, wait up to 5 s, then KILL the process in FILE
    local f=$1 name=$2 pid
    [ -f "$f" ] || return 0
    pid=$(cat "$f" 2>/dev/null || true)
    rm -f "$f"
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    # After a reboot or a killed session the PID may belong to someone else now: check it is
    # still the daemon we started before signalling it.
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$name" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

cmd_down() {
    need_root
    [ -d "$DIR/run" ] || { log "nothing to stop in $DIR"; return 0; }
    local f
    # Jobs' processes first (they are children of slurmstepd, tracked by the slurmd pid files).
    for f in "$DIR"/run/slurmd-*.pid; do [ -e "$f" ] && kill_pidfile "$f" slurmd; done
    # slurmstepd processes outlive slurmd: kill those whose spool dir is ours.
    local pid
    for pid in $(pgrep -x slurmstepd || true); do
        # "$DIR/": another cluster's directory may start with this one's (ham-cluster-2).
        if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$DIR/" ||
           grep -qzF "SLURM_CONF=$DIR/" "/proc/$pid/environ" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    kill_pidfile "$DIR/run/slurmctld.pid" slurmctld
    kill_pidfile "$DIR/run/slurmdbd.pid" slurmdbd
    kill_pidfile "$DIR/run/mariadbd.pid" mariadbd
    kill_pidfile "$DIR/run/munged.pid" munged
    fs_down
    local ns pids
    for f in "$DIR"/run/netns-*; do
        [ -e "$f" ] || continue
        ns=$(basename "$f" | sed 's/^netns-//')
        # What is left in a node: its file-system client.
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        # shellcheck disable=SC2086  # one PID per word
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
        rm -f "$f"
    done
    # The bridges `up` made, by the names it wrote down (the port base may have changed since;
    # a file from before the names were written is empty: the default names).
    local name
    for f in "$DIR/run/bridge:$BRIDGE" "$DIR/run/fast-bridge:$FAST_BRIDGE"; do
        [ -e "${f%%:*}" ] || continue
        name=$(cat "${f%%:*}")
        ip link del "${name:-${f#*:}}" 2>/dev/null || true
        rm -f "${f%%:*}"
    done
    log "stopped"
}

# --- start-up -----------------------------------------------------------------------------
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
    local secs=$1 what=$2; shift 2
    local i
    for i in $(seq $((secs * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
    die "timed out after ${secs}s waiting for $what (logs in $DIR/log)"
}

start_munge() {
    mkdir -p "$DIR/munge" "$DIR/run"
    chmod 700 "$DIR/munge"; chmod 755 "$DIR/run"
    [ -f "$DIR/munge/munge.key" ] || mungekey -c -k "$DIR/munge/munge.key"
    chmod 600 "$DIR/munge/munge.key"
    munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/run/munge.socket" \
        --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/munge.seed"
    wait_for 10 munged test -S "$DIR/run/munge.socket"
}

start_mariadb() {
    local data="$DIR/mysql"
    if [ ! -d "$data/mysql" ]; then
        mariadb-install-db --no-defaults --datadir="$data" --user=root >"$DIR/log/mariadb-install.log" 2>&1
    fi
    # Its own session: a Ctrl-C of whatever started the cluster (tests/run.sh) must not stop it.
    setsid mariadbd --no-defaults --datadir="$data" --user=root --port=$DB_PORT --bind-address=127.0.0.1 \
        --socket="$DIR/run/mysql.sock" --pid-file="$DIR/run/mariadbd.pid" --skip-name-resolve \
        --innodb-buffer-pool-size=64M --log-error="$DIR/log/mariadbd.log" &
    wait_for 30 mariadbd mariadb --no-defaults --socket="$DIR/run/mysql.sock" -e "select 1"
    # A fresh accounting database per start: slurmctld's job ids restart at 1 with its fresh
    # state, and old records with the same ids would confuse `sacct -j`.
    mariadb --no-defaults --socket="$DIR/run/mysql.sock" <<SQL
DROP DATABASE IF EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
SQL
}

check_network_free() {  # the bridges and subnets `up` will make: nobody else's (after our down)
    local br net used
    for br in "$BRIDGE" "$FAST_BRIDGE"; do
        ! ip link show "$br" >/dev/null 2>&1 || die "the bridge $br exists and is not this" \
            "cluster's ($DIR): another cluster has HAM_CLUSTER_PORT_BASE=$PORT_BASE; choose another base"
    done
    for net in "$SUBNET" "$FAST_SUBNET"; do
        used=$(ip -4 -o addr show to "$net.0/24" | awk '{print $2; exit}')
        [ -z "$used" ] || die "the subnet $net.0/24 is in use on $used: another cluster's" \
            "HAM_CLUSTER_PORT_BASE maps to it too; choose another base (a different base mod 256)"
    done
}

setup_network() {  # setup_network NODES: both bridges + one namespace per node, on both
    local n=$1 i ns
    ip link add "$BRIDGE" type bridge
    echo "$BRIDGE" > "$DIR/run/bridge"
    ip addr add "$SUBNET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    ip link add "$FAST_BRIDGE" type bridge
    echo "$FAST_BRIDGE" > "$DIR/run/fast-bridge"
    ip addr add "$FAST_SUBNET.1/24" dev "$FAST_BRIDGE"
    ip link set "$FAST_BRIDGE" up
    for i in $(seq "$n"); do
        add_host "$NETNS_PREFIX$i" "$VETH$i" "$SUBNET.$((10 + i))"
        add_link "$NETNS_PREFIX$i" "$FAST_VETH$i" "$FAST_BRIDGE" "$FAST_IF" "$FAST_SUBNET.$((10 + i))"
    done
}

add_host() {  # add_host NETNS VETH ADDR: a network namespace on the bridge, at ADDR
    local ns=$1 veth=$2
    # Left by a cluster whose run directory lost track of them (a CI clone's cluster.sh once
    # found ham-node2 still there: "File exists", and node2 never came up).
    ip netns del "$ns" 2>/dev/null || true
    ip netns add "$ns"
    touch "$DIR/run/netns-$ns"
    add_link "$ns" "$veth" "$BRIDGE" eth0 "$3"
    ip -n "$ns" link set lo up
}

add_link() {  # add_link NETNS VETH BRIDGE IF ADDR: the namespace's IF on BRIDGE at ADDR/24
    local ns=$1 veth=$2
    ip link del "$veth" 2>/dev/null || true
    ip link add "$veth" type veth peer name "$4" netns "$ns"
    ip link set "$veth" master "$3" up
    ip -n "$ns" addr add "$5/24" dev "$4"
    ip -n "$ns" link set "$4" up
}

node_lines() {  # node_lines NODES NETNS(0|1)
    local n=$1 netns=$2 i
    for i in $(seq "$n"); do
        if [ "$netns" = 1 ]; then
            echo "NodeName=node$i NodeHostname=node$i NodeAddr=$SUBNET.$((10 + i)) CPUs=$CPUS RealMemory=$REAL_MEMORY State=UNKNOWN"
        else
            echo "NodeName=node$i NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 Port=$((PORT_BASE + 200 + i)) CPUs=$CPUS RealMemory=$REAL_MEMORY State=UNKNOWN"
        fi
    done
}

start_slurmd() {  # start_slurmd I NETNS(0|1)
    local i=$1 netns=$2 conf="$DIR/etc/slurm.conf"
    mkdir -p "$DIR/spool/d/node$i"
    if [ "$netns" = 1 ]; then
        # Own net, UTS and mount namespace: hostname nodeI and an /etc/hosts naming every node,
        # so Java's InetAddress.getLocalHost() and Hadoop's host lookups work on every node.
        # With a network file system the node mounts it with a client of its own first.
        local mount=true
        fs_enabled && mount="bash '$HERE/cluster.sh' fs-mount node$i"
        ip netns exec "$NETNS_PREFIX$i" unshare --uts --mount --propagation private sh -c \
            "mount --bind '$DIR/etc/hosts' /etc/hosts && hostname node$i && $mount && exec slurmd -f '$conf' -N node$i"
    else
        slurmd -f "$conf" -N "node$i"
    fi
}

render_conf() {  # render_conf OUT NODES NETNS(0|1) PLUGSTACK: slurm.conf and friends into OUT
    local ctl_addr=127.0.0.1
    [ "$3" = 1 ] && ctl_addr="$SUBNET.1"
    export STATE="$DIR" CLUSTER CTL_HOST="$(hostname -s)" CTL_ADDR="$ctl_addr" CTL_PORT SLURMD_PORT \
        DBD_PORT DB_HOST=127.0.0.1 DB_PORT DB_PASS MUNGE_SOCKET="$DIR/run/munge.socket" \
        NODE_LINES="$(node_lines "$2" "$3")" PLUGSTACK="$4" CPUS
    "$HERE/render-conf.sh" "$1"
}

cmd_render() {  # what `up` would write into $DIR/etc, into another directory; starts nothing
    local out=${1:?usage: $0 render DIR [--plugstack FILE]} plugstack=""
    [ "${2:-}" = --plugstack ] && plugstack=${3:?--plugstack wants a file}
    DB_PASS="(not rendered)"
    render_conf "$out" 3 1 "$plugstack"
}

check_ports_free() {  # check_ports_free NODES NETNS: the host ports `up` will listen on
    local entry port name busy i
    local -a ports=("$DB_PORT mariadbd" "$DBD_PORT slurmdbd" "$CTL_PORT slurmctld")
    # In namespaces each slurmd has the network to itself; on the host each has its own port.
    [ "$2" = 1 ] || for i in $(seq "$1"); do ports+=("$((PORT_BASE + 200 + i)) slurmd-node$i"); done
    for entry in "${ports[@]}"; do
        read -r port name <<< "$entry"
        busy=$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'users:(("[^"]*",pid=[0-9]*' | head -1 |
               sed 's/users:(("\(.*\)",pid=\(.*\)/\1 (pid \2)/' || true)
        [ -z "$busy" ] || die "port $port, for $name, is taken by $busy: another cluster uses" \
            "HAM_CLUSTER_PORT_BASE=$PORT_BASE; stop it (HAM_CLUSTER_DIR=<its dir> $0 down) or" \
            "choose another base"
    done
}

cmd_up() {
    need_root
    local nodes=3 netns=1 plugstack="" reuse=0 fs=local profile=strict
    while [ $# -gt 0 ]; do
        case $1 in
            -n|--nodes) nodes=$2; shift 2 ;;
            --fs) fs=$2; shift 2 ;;
            --fs-profile) profile=$2; shift 2 ;;
            --no-netns) netns=0; shift ;;
            --reuse) reuse=1; shift ;;
            --plugstack) plugstack=$(readlink -f "$2"); shift 2 ;;
            *) die "unknown option $1 (see the header of $0)" ;;
        esac
    done
    [[ "$nodes" =~ ^[1-9][0-9]?$ ]] || die "--nodes wants a number from 1 to 99, got '$nodes'"
    case $fs in local|gluster) ;; *) die "--fs wants local or gluster, got '$fs'" ;; esac
    case $profile in strict|default) ;; *) die "--fs-profile wants strict or default, got '$profile'" ;; esac
    [ "$fs" = local ] || [ "$netns" = 1 ] || die "--fs $fs needs network namespaces: drop --no-netns"
    local fs_mode=$fs
    [ "$fs" = local ] || fs_mode="$fs-$profile"
    if [ "$reuse" = 1 ] && running_matches "$nodes" "$plugstack" "$fs_mode" "$netns"; then
        log "reusing the running cluster; . $DIR/env.sh"
        return 0
    fi
    cmd_install
    # An unprivileged user for the tests that run jobs as someone other than root.
    id "$TEST_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$TEST_USER"
    cmd_down 2>/dev/null || true
    check_ports_free "$nodes" "$netns"
    # A cluster.sh from before the second network stopped the default cluster without removing
    # hambr1 (with the ports free, no cluster of this base is running: it is nobody's).
    [ "$PORT_BASE" != 16800 ] || ip link del "$FAST_BRIDGE" 2>/dev/null || true
    [ "$netns" = 0 ] || check_network_free
    # A start-up that fails half-way stops what it started (the logs stay, for the error).
    trap 'log "start-up failed: stopped what it had started; logs in $DIR/log"; cmd_down >/dev/null 2>&1' EXIT
    rm -rf "$DIR/spool" "$DIR/log" "$DIR/etc"
    mkdir -p "$DIR/log" "$DIR/etc" "$DIR/spool/ctld" "$DIR/run" "$NODE_LOCAL"
    chmod 1777 "$NODE_LOCAL"  # as /tmp

    local ctl_addr=127.0.0.1
    if [ "$netns" = 1 ]; then
        setup_network "$nodes" || die "could not create network namespaces; try: $0 up --no-netns"
        ctl_addr="$SUBNET.1"
    fi
    if [ "$fs" = gluster ]; then
        fs_up "$profile"
    else
        rm -rf "$FS_DIR"
        mkdir -p "$SHARED" && chmod 1777 "$SHARED"
    fi
    {
        echo "127.0.0.1 localhost"
        echo "$ctl_addr $(hostname -s)"
        [ "$netns" = 1 ] && for i in $(seq "$nodes"); do echo "$SUBNET.$((10 + i)) node$i"; done
    } > "$DIR/etc/hosts"

    [ -f "$DIR/db.pass" ] || head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$DIR/db.pass"
    chmod 600 "$DIR/db.pass"
    DB_PASS=$(cat "$DIR/db.pass")
    render_conf "$DIR/etc" "$nodes" "$netns" "$plugstack"
    export SLURM_CONF="$DIR/etc/slurm.conf"

    start_munge
    start_mariadb
    slurmdbd
    wait_for 30 slurmdbd sacctmgr -n list cluster
    sacctmgr -i add cluster "$CLUSTER" >/dev/null 2>&1 || true
    slurmctld -f "$SLURM_CONF"
    wait_for 30 slurmctld scontrol ping
    local i
    for i in $(seq "$nodes"); do start_slurmd "$i" "$netns"; done
    wait_for 30 "all $nodes nodes idle" sh -c "[ \$(sinfo -h -t idle -o '%D') = $nodes ]"

    conf_sum > "$DIR/etc/conf.sum"
    cat > "$DIR/env.sh" <<ENV
# Source this to use the HAM test cluster: . $DIR/env.sh
export SLURM_CONF=$SLURM_CONF
export HAM_CLUSTER_DIR=$DIR
# What names its ports, bridges and namespaces: this cluster.sh's subcommands find it by both.
export HAM_CLUSTER_PORT_BASE=$PORT_BASE
# The shared root every node sees, and what it is (local, gluster-strict, gluster-default).
export HAM_CLUSTER_SHARED=$SHARED
export HAM_CLUSTER_FS=$fs_mode
# The file-system server's address (gluster), on the cluster's first network.
export HAM_CLUSTER_STORAGE_ADDR=$SUBNET.2
# The nodes' node-local directory (this cluster's own; HAM's setting runner_local_dir).
export HAM_RUNNER_LOCAL_DIR=$NODE_LOCAL
ENV
    if [ "$netns" = 1 ]; then  # the second network (HAM's setting network can name either)
        cat >> "$DIR/env.sh" <<ENV
export HAM_CLUSTER_FAST_NET=$FAST_SUBNET.0/24
export HAM_CLUSTER_FAST_IF=$FAST_IF
export HAM_CLUSTER_FAST_BRIDGE=$FAST_BRIDGE
# Node N's network namespace: ip netns exec \$HAM_CLUSTER_NETNS_PREFIX\$N ...
export HAM_CLUSTER_NETNS_PREFIX=$NETNS_PREFIX
ENV
    fi
    trap - EXIT
    log "up: $nodes nodes ($( [ "$netns" = 1 ] && echo "network namespaces" || echo "one host" )), shared root $SHARED ($fs_mode); . $DIR/env.sh"
}

conf_sum() {  # what the configuration is made from: a running cluster made otherwise is restarted
    cat "$HERE/slurm.conf.in" "$HERE/slurmdbd.conf.in" "$HERE/render-conf.sh" "$HERE/netfs.sh" | sha1sum
}

running_matches() {  # running_matches NODES PLUGSTACK FS_MODE NETNS: is the running cluster of that shape?
    [ -f "$DIR/env.sh" ] && [ -f "$DIR/etc/slurm.conf" ] || return 1
    grep -qx "export HAM_CLUSTER_FS=$3" "$DIR/env.sh" || return 1
    grep -qx "export HAM_RUNNER_LOCAL_DIR=$NODE_LOCAL" "$DIR/env.sh" || return 1
    # Started before the second network existed: restart it.
    [ "$4" = 0 ] || grep -qx "export HAM_CLUSTER_FAST_NET=$FAST_SUBNET.0/24" "$DIR/env.sh" || return 1
    # The login node's client still serves the shared root (not a bare directory left by one).
    if [ "$3" != local ]; then
        [ "$(findmnt -n -o FSTYPE "$SHARED" 2>/dev/null)" = fuse.glusterfs ] &&
            stat -f "$SHARED" >/dev/null 2>&1 || return 1
    fi
    [ "$(cat "$DIR/etc/conf.sum" 2>/dev/null)" = "$(conf_sum)" ] || return 1
    SLURM_CONF="$DIR/etc/slurm.conf" scontrol ping 2>/dev/null | grep -q UP || return 1
    [ "$(SLURM_CONF="$DIR/etc/slurm.conf" sinfo -h -N -t idle,alloc,mix -o %N | sort -u | wc -l)" = "$1" ] || return 1
    if [ -n "$2" ]; then grep -qx "PlugStackConfig=$2" "$DIR/etc/slurm.conf"
    else ! grep -q '^PlugStackConfig=' "$DIR/etc/slurm.conf"; fi
}

cmd_status() {
    [ -f "$DIR/env.sh" ] || die "no cluster in $DIR (run: $0 up)"
    . "$DIR/env.sh"
    local f
    for f in "$DIR"/run/*.pid; do
        [ -e "$f" ] || continue
        if kill -0 "$(cat "$f")" 2>/dev/null; then echo "running $(basename "$f" .pid)"; else echo "dead    $(basename "$f" .pid)"; fi
    done
    sinfo
}

node_pids() {  # node_pids I: every process in node I's network namespace
    [ -e "$DIR/run/netns-$NETNS_PREFIX$1" ] || die "node$1 has no network namespace (kill-node needs the default mode)"
    ip netns pids "$NETNS_PREFIX$1"
}

cmd_kill_node() {
    need_root
    local i=${1:?usage: $0 kill-node I} pids
    pids=$(node_pids "$i")
    # shellcheck disable=SC2086  # one PID per word
    [ -z "$pids" ] || kill -KILL $pids
    rm -f "$DIR/run/slurmd-node$i.pid"
    log "node$i lost: killed $(echo "$pids" | wc -w) processes"
}

cmd_revive_node() {
    need_root
    local i=${1:?usage: $0 revive-node I}
    [ -n "$(node_pids "$i")" ] && die "node$i still has processes; kill-node it first"
    . "$DIR/env.sh"
    start_slurmd "$i" 1
    # ReturnToService=2: a DOWN node returns once its slurmd registers; resume covers a node
    # that the controller had not marked DOWN yet (it was only not responding).
    scontrol update nodename="node$i" state=resume 2>/dev/null || true
    wait_for 60 "node$i back in service" sh -c "sinfo -h -n node$i -t idle,alloc,mix -o %N | grep -q node$i"
    log "node$i back"
}

fs_enabled() { [ -f "$FS_DIR/profile" ]; }

cmd_isolate_node() {
    need_root
    local i=${1:?usage: $0 isolate-node I SECONDS} secs=${2:?usage: $0 isolate-node I SECONDS}
    [[ "$secs" =~ ^[0-9]+$ ]] || die "isolate-node wants whole seconds, got '$secs'"
    node_pids "$i" >/dev/null
    # Both links: a node cut off loses the fast network too (a cluster started without it has
    # no fast veth, hence the || true).
    ip link set "$VETH$i" down
    ip link set "$FAST_VETH$i" down 2>/dev/null || true
    # The links come back by themselves, whatever happens to the caller.
    setsid sh -c "sleep $secs; ip link set $VETH$i up; ip link set $FAST_VETH$i up 2>/dev/null" \
        </dev/null >/dev/null 2>&1 &
    log "node$i cut off the network for ${secs}s"
}

case ${1:-} in
    install) cmd_install; fs_install ;;
    isolate-node) cmd_isolate_node "${2:-}" "${3:-}" ;;
    fs-restart) need_root; fs_restart "${2:-0}" ;;
    fs-profile) need_root; fs_set_profile "${2:?usage: $0 fs-profile strict|default}" ;;
    fs-mount) fs_mount "${2:?usage: $0 fs-mount NAME}" ;;  # inside a node, by start_slurmd
    kill-node) cmd_kill_node "${2:-}" ;;
    revive-node) cmd_revive_node "${2:-}" ;;
    up) shift; cmd_up "$@" ;;
    render) shift; cmd_render "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    *) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 2 ;;
esac
