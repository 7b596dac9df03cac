#!/bin/bash
# The HAM test cluster as Docker containers: MariaDB (db), slurmctld + slurmdbd (controller, also
# the login node) and three slurmd (node1-3), from one image, with a shared volume standing in
# for Lustre. Slurm's configuration comes from the same templates as the native cluster
# (cluster.sh). As root on Debian 12:
#
#   compose.sh up            install Docker, Compose and debootstrap if missing; start a private
#                            dockerd if no Docker engine answers; make the base image
#                            (debootstrap) if missing and build the cluster image (cached);
#                            (re)start the cluster and wait until its nodes are idle
#   compose.sh down          remove the cluster (containers, network, volumes) and stop the
#                            dockerd that `up` started, by PID; the images stay for the next `up`
#   compose.sh shell [SVC]   a login shell as hamuser in container SVC (default: controller)
#   compose.sh compose ARGS  docker compose (or docker-compose) with this cluster's engine,
#                            project and file, e.g. `compose exec -u hamuser controller sinfo`
#   compose.sh status        containers and sinfo
#
# Environment: HAM_DOCKER_DIR (the private engine's socket, logs and image store; default
# /var/tmp/ham-docker), HAM_DEBIAN_MIRROR (for debootstrap; default http://deb.debian.org/debian),
# HAM_DOCKER_STORAGE_DRIVER (e.g. vfs; default: the private dockerd's own choice).
# `up` writes $HAM_DOCKER_DIR/env.sh: source it to use `docker` and `docker-compose` directly.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
DIR=${HAM_DOCKER_DIR:-/var/tmp/ham-docker}
MIRROR=${HAM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PROJECT=ham
BASE_IMAGE=ham-debian:bookworm
IMAGE=ham-cluster
NODES=3

log() { echo "compose.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || die "run as root (it installs packages and starts dockerd)"; }

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
    local secs=$1 what=$2; shift 2
    local deadline=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || die "timed out after ${secs}s waiting for $what"
        sleep 1
    done
}

apt_install() {
    log "installing $*"
    apt-get update -qq
    # policy-rc.d keeps the packages from starting a system-wide dockerd and containerd.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    rm -f /usr/sbin/policy-rc.d
}

# --- the engine ------------------------------------------------------------------------------
private_pid() {  # the PID of the dockerd that `up` started, if it still runs
    local pid
    pid=$(cat "$DIR/docker.pid" 2>/dev/null) || return 1
    # After a reboot the PID may be someone else's: check it is our dockerd.
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "^dockerd .*--pidfile $DIR/docker.pid" || return 1
    echo "$pid"
}

use_engine() {  # our dockerd if it runs, else whatever engine the caller's environment names
    if private_pid >/dev/null; then export DOCKER_HOST="unix://$DIR/docker.sock"; fi
}

engine_answers() { command -v docker >/dev/null && docker info >/dev/null 2>&1; }

start_engine() {
    use_engine
    engine_answers && return 0
    command -v dockerd >/dev/null || apt_install docker.io
    mkdir -p "$DIR"
    echo '{}' > "$DIR/daemon.json"  # not /etc/docker/daemon.json, which belongs to the machine
    # Own socket, state, pid file and image store; no default bridge, no iptables rules and no
    # change to the host's ip_forward, so nothing else on the machine (another engine, the native
    # cluster's bridge, the firewall) is touched. The containers share one user-defined bridge
    # (compose.yml) and reach each other without routing. dockerd picks the
    # storage driver: overlay2 where the kernel and file system allow it (a container starts in
    # about a second), else vfs (a full copy of the image per container and per layer).
    setsid dockerd --config-file "$DIR/daemon.json" --data-root "$DIR/data" --exec-root "$DIR/exec" \
        --pidfile "$DIR/docker.pid" --host "unix://$DIR/docker.sock" \
        ${HAM_DOCKER_STORAGE_DRIVER:+--storage-driver="$HAM_DOCKER_STORAGE_DRIVER"} \
        --iptables=false --ip-masq=false --ip-forward=false --bridge=none </dev/null >"$DIR/dockerd.log" 2>&1 &
    export DOCKER_HOST="unix://$DIR/docker.sock"
    wait_for 60 "dockerd (log: $DIR/dockerd.log)" docker info
    log "started dockerd (pid $(cat "$DIR/docker.pid"), storage driver $(docker info -f '{{.Driver}}')), socket $DIR/docker.sock"
}

stop_engine() {  # stop our dockerd, if it runs, and what it started (containerd) with it
    local pid
    pid=$(private_pid) || return 0
    kill -TERM "$pid"
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
    # dockerd may leave its network namespace mounted under its exec root.
    local m
    for m in $(findmnt -rn -o TARGET | grep "^$DIR/exec/" | sort -r || true); do umount -l "$m"; done
    log "stopped dockerd (pid $pid)"
}

COMPOSE=()
compose() {  # docker compose with this cluster's project and file (Debian ships docker-compose)
    if [ ${#COMPOSE[@]} = 0 ]; then
        if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose)
        else
            command -v docker-compose >/dev/null || apt_install docker-compose
            COMPOSE=(docker-compose)
        fi
    fi
    "${COMPOSE[@]}" -p "$PROJECT" -f "$HERE/compose.yml" "$@"
}

# --- images ----------------------------------------------------------------------------------
make_base_image() {  # Debian 12 from Debian's own mirror: no image registry is needed
    command -v debootstrap >/dev/null || apt_install debootstrap
    local root="$DIR/rootfs"
    rm -rf "$root"
    log "making $BASE_IMAGE with debootstrap (log: $DIR/debootstrap.log)"
    debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$DIR/debootstrap.log" 2>&1 ||
        die "debootstrap failed (log: $DIR/debootstrap.log)"
    # The updates and security suites too, as on the host that builds the SPANK plugin.
    cat > "$root/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
EOF
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | docker import - "$BASE_IMAGE" >/dev/null
    rm -rf "$root"
}

build_images() {
    local old
    docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 || make_base_image
    old=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
    # What the image copies from the host: the HAM jar with the bundled Hadoop, and the plugin.
    "$REPO/docker/install.sh"
    make -s -C "$REPO/slurm-plugins" ham_spank.so
    log "building $IMAGE (cached layers are reused)"
    # The classic builder: Debian's docker.io has no BuildKit client (buildx). --network host:
    # the engine has no default bridge, and apt-get in the build needs Debian's mirror.
    DOCKER_BUILDKIT=0 docker build -q --network host --build-arg BASE="$BASE_IMAGE" \
        -t "$IMAGE" -f "$HERE/Dockerfile" "$REPO" >/dev/null
    # vfs stores every layer whole (about 1 GB each): drop the image this one replaces.
    if [ -n "$old" ] && [ "$old" != "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ]; then
        docker rmi "$old" >/dev/null 2>&1 || true
    fi
}

# --- commands --------------------------------------------------------------------------------
nodes_idle() { [ "$(compose exec -T controller sinfo -h -t idle -o %D 2>/dev/null | tr -d '[:space:]')" = "$NODES" ]; }

cmd_up() {
    need_root
    [ $# = 0 ] || die "up takes no arguments"
    mkdir -p "$DIR"
    start_engine
    compose down -v --remove-orphans -t 5 >/dev/null 2>&1 || true
    build_images
    compose up -d --no-build 2>"$DIR/compose-up.log" || die "docker compose up failed (log: $DIR/compose-up.log)"
    wait_for 180 "$NODES idle nodes (logs: $0 compose logs)" nodes_idle
    {
        echo "# Source this to use the compose cluster's engine: . $DIR/env.sh"
        [ -n "${DOCKER_HOST:-}" ] && echo "export DOCKER_HOST=$DOCKER_HOST"
        echo "export COMPOSE_PROJECT_NAME=$PROJECT COMPOSE_FILE=$HERE/compose.yml"
    } > "$DIR/env.sh"
    cat >&2 <<EOF
compose.sh: up: db, controller, node1-$NODES (image $IMAGE)
  a shell as hamuser:  bash $0 shell            (then e.g. ham submit --wait -N 3 -- hadoop jar ...)
  one command:         bash $0 compose exec -u hamuser controller sinfo
  docker yourself:     . $DIR/env.sh
  stop it:             bash $0 down
EOF
}

cmd_down() {
    need_root
    use_engine
    if engine_answers; then
        compose down -v --remove-orphans -t 5 >/dev/null 2>&1 || log "warning: docker compose down failed"
    fi
    stop_engine
    rm -f "$DIR/env.sh"
    log "down"
}

cmd_status() {
    use_engine
    engine_answers || die "no Docker engine answers (run: $0 up)"
    compose ps
    compose exec -T controller sinfo
}

case ${1:-} in
    up) shift; cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    shell) use_engine; compose exec -u hamuser -w /shared "${2:-controller}" bash -l ;;
    compose) shift; use_engine; compose "$@" ;;
    *) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 2 ;;
esac
