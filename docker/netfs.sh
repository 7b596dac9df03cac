# The test cluster's network file system, sourced by cluster.sh (which sets DIR, SUBNET, BRIDGE,
# FS_NS, FS_VETH, SHARED, log, die, wait_for, kill_pidfile and add_host). GlusterFS from Debian: one storage node (its own network and
# mount namespace on the cluster bridge) serves one volume; the login node (the host) and every
# slurmd node mount it through a FUSE client of their own, at the same path ($SHARED), so bytes
# cross the cluster network, clients cache separately and a node's unsent writes die with it.
#
# Profiles (../shared/DESIGN.md section 9 has the measurements behind them):
#   strict   coherent like Lustre or GPFS: the volume's client-side caches off, close() waits
#            for the server (flush-behind off), and the kernel keeps no attributes, entries or
#            pages across opens
#   default  the package's defaults: another client can read old bytes, or find a renamed-away
#            name, for about a second (weaker than NFS close-to-open)

FS_ADDR=$SUBNET.2
FS_VOL=ham
FS_DIR=$DIR/gluster
# A client whose server stops answering fails its calls after this long (the package's default
# is 42 s): long enough to ride out a server restart, short enough for the isolation test.
FS_PING_TIMEOUT=10

fs_install() {
    dpkg -s glusterfs-server glusterfs-client >/dev/null 2>&1 && return 0
    log "installing glusterfs-server glusterfs-client"
    apt-get update -qq
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        glusterfs-server glusterfs-client >/dev/null
    rm -f /usr/sbin/policy-rc.d
}

fs_client_flags() {  # fs_client_flags PROFILE: the FUSE client's caching flags
    [ "$1" = strict ] || return 0
    echo "--attribute-timeout=0 --entry-timeout=0 --negative-timeout=0 --fopen-keep-cache=false"
}

fs_gluster() {  # the gluster CLI, inside the storage node (it talks to glusterd's socket in /run)
    nsenter --target "$(cat "$FS_DIR/run/glusterd.pid")" --mount --net -- gluster --mode=script "$@"
}

fs_start_server() {  # glusterd in the storage node; it starts the volume's brick if there is one
    # glusterd, the brick and their logs use fixed paths: give the node its own copies.
    ip netns exec "$FS_NS" unshare --mount --propagation private sh -c "
        mount --bind '$FS_DIR/lib' /var/lib/glusterd && mount --bind '$FS_DIR/log' /var/log/glusterfs &&
        mount --bind '$FS_DIR/run' /run && exec glusterd --pid-file='$FS_DIR/run/glusterd.pid'"
    wait_for 20 glusterd sh -c "[ -s '$FS_DIR/run/glusterd.pid' ] && nsenter --target \$(cat '$FS_DIR/run/glusterd.pid') --mount --net -- gluster --mode=script volume list"
}

fs_brick_online() {
    fs_gluster volume status "$FS_VOL" --xml 2>/dev/null | grep -q "<status>1</status>"
}

fs_up() {  # fs_up PROFILE: the storage node, its volume and the login node's client
    local profile=$1 opt
    fs_install
    add_host "$FS_NS" "$FS_VETH" "$FS_ADDR"
    rm -rf "$FS_DIR"
    mkdir -p "$FS_DIR/log" "$FS_DIR/run" "$FS_DIR/brick" "$FS_DIR/clients"
    cp -a /var/lib/glusterd "$FS_DIR/lib"  # the package's hooks and option groups
    fs_start_server
    # force: the brick is on the root file system, which gluster otherwise refuses.
    fs_gluster volume create "$FS_VOL" "$FS_ADDR:$FS_DIR/brick" force >/dev/null
    fs_gluster volume set "$FS_VOL" network.ping-timeout "$FS_PING_TIMEOUT" >/dev/null
    fs_volume_options "$profile"
    fs_gluster volume start "$FS_VOL" >/dev/null
    wait_for 20 "the volume's brick" fs_brick_online
    echo "$profile" > "$FS_DIR/profile"
    fs_mount host
    chmod 1777 "$SHARED"
}

FS_CACHES="stat-prefetch quick-read open-behind io-cache read-ahead readdir-ahead flush-behind"

fs_volume_options() {  # fs_volume_options PROFILE: the volume's client-side caches off, or as packaged
    local opt
    for opt in $FS_CACHES; do
        if [ "$1" = strict ]; then
            fs_gluster volume set "$FS_VOL" "performance.$opt" off >/dev/null
        else
            fs_gluster volume reset "$FS_VOL" "performance.$opt" >/dev/null
        fi
    done
}

fs_set_profile() {  # fs_set_profile PROFILE: switch a running cluster's caching, every client remounted
    [ -f "$FS_DIR/profile" ] || die "the cluster has no network file system (up --fs gluster)"
    local profile=$1 f i pid
    case $profile in strict|default) ;; *) die "fs-profile wants strict or default, got '$profile'" ;; esac
    fs_volume_options "$profile"
    echo "$profile" > "$FS_DIR/profile"
    # New clients with the profile's flags (fs_mount stops the old ones).
    fs_mount host
    for f in "$DIR"/run/slurmd-node*.pid; do
        [ -e "$f" ] || continue
        i=${f##*slurmd-node}; i=${i%.pid}
        pid=$(cat "$f")
        nsenter --target "$pid" --mount --net -- bash "$HERE/cluster.sh" fs-mount "node$i"
    done
    sed -i "s/^export HAM_CLUSTER_FS=.*/export HAM_CLUSTER_FS=gluster-$profile/" "$DIR/env.sh"
    log "file system profile: $profile (every client remounted)"
}

fs_mount_argv() {  # fs_mount_argv NAME: the client command for node NAME (or host)
    echo "glusterfs --volfile-server=$FS_ADDR --volfile-id=$FS_VOL $(fs_client_flags "$(cat "$FS_DIR/profile")")" \
        "--log-file=$FS_DIR/clients/$1.log --pid-file=$FS_DIR/clients/$1.pid $SHARED"
}

fs_mount() {  # fs_mount NAME: mount the volume at $SHARED in the current mount namespace
    # A copy of the login node's mount (what a new mount namespace starts with), or a client
    # that died, is replaced: every node has a client of its own.
    umount -l "$SHARED" 2>/dev/null || true
    # The client of an earlier mount here (a profile switch) holds the pid file's lock, which
    # a new client needs; files still open on the old mount fail from now on.
    kill_pidfile "$FS_DIR/clients/$1.pid" "--pid-file=$FS_DIR/clients/$1.pid"
    mkdir -p "$SHARED"
    # shellcheck disable=SC2046  # the argv is words
    $(fs_mount_argv "$1")
    local i
    for i in $(seq 100); do
        mountpoint -q "$SHARED" && stat -f "$SHARED" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "cluster.sh: error: $1 could not mount the shared volume (log: $FS_DIR/clients/$1.log)" >&2
    return 1
}

fs_down() {  # the login node's client, then the storage node (the nodes' clients die with them)
    # Only a mount of this cluster's own client: never another cluster's at the same path.
    if [ -f "$FS_DIR/clients/host.pid" ]; then
        umount -l "$SHARED" 2>/dev/null || true
        kill_pidfile "$FS_DIR/clients/host.pid" "--pid-file=$FS_DIR/clients/host.pid"
    fi
    if [ -e "$DIR/run/netns-$FS_NS" ]; then
        local pids
        pids=$(ip netns pids "$FS_NS" 2>/dev/null || true)
        # shellcheck disable=SC2086  # one PID per word
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
        ip netns del "$FS_NS" 2>/dev/null || true
        rm -f "$DIR/run/netns-$FS_NS"
    fi
}

fs_restart() {  # fs_restart DOWN_SECONDS: the server dies (glusterd and brick) and comes back
    [ -f "$FS_DIR/profile" ] || die "the cluster has no network file system (up --fs gluster)"
    [[ "$1" =~ ^[0-9]+$ ]] || die "fs-restart wants whole seconds, got '$1'"
    local pids
    pids=$(ip netns pids "$FS_NS")
    # shellcheck disable=SC2086  # one PID per word
    [ -z "$pids" ] || kill -KILL $pids
    rm -f "$FS_DIR/run/glusterd.pid"
    log "file-system server killed"
    sleep "$1"
    fs_start_server
    wait_for 30 "the volume's brick" fs_brick_online
    log "file-system server back"
}
