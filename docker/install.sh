#!/bin/bash
# Install everything HAM needs on a Debian 12 machine, as root, idempotently:
#   apt: Slurm 22.05 + munge + slurmdbd + MariaDB + GlusterFS (via cluster.sh install), JDK 17, Maven,
#        python3-venv;  pip: HAM into $REPO/.venv (editable);  Maven: the HAM jar and the
#        bundled Hadoop 3.4.2 client in mapreduce/target/dist.
# Afterwards: export PATH="$REPO/.venv/bin:$PATH" puts `ham` on PATH.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
log() { echo "install.sh: $*" >&2; }

[ "$(id -u)" = 0 ] || { log "error: run as root (apt-get)"; exit 1; }
"$REPO/docker/cluster.sh" install

missing=""
command -v javac >/dev/null || missing="$missing openjdk-17-jdk-headless"
command -v mvn >/dev/null || missing="$missing maven"
# The system Python (not a per-user one such as pyenv under /root): every user must be able to
# run the `ham` that the batch scripts and the hadoop shim call.
PY=/usr/bin/python3
[ -x "$PY" ] || missing="$missing python3"
[ -x "$PY" ] && "$PY" -c 'import venv, ensurepip' 2>/dev/null || missing="$missing python3-venv"
command -v gcc >/dev/null || missing="$missing gcc"
command -v tcsh >/dev/null || missing="$missing tcsh"  # `ham env --shell csh` is tested
command -v chromium >/dev/null || missing="$missing chromium"  # the history server's web UI is tested
# Modulefiles are tested with both module systems: Environment Modules (Tcl) installed, and
# Lmod (which conflicts with it as a package) unpacked into /opt/ham-lmod with its Lua deps.
command -v modulecmd >/dev/null || missing="$missing environment-modules"
dpkg -s lua-posix lua-filesystem lua-json lua-term lua5.3 >/dev/null 2>&1 ||
    missing="$missing lua-posix lua-filesystem lua-json lua-term lua5.3"
if [ -n "$missing" ]; then
    log "installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

if ! ls /opt/ham-lmod/usr/share/lmod/*/libexec/lmod >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download lmod >/dev/null && dpkg -x lmod_*.deb /opt/ham-lmod)
    rm -rf "$tmp"
fi

if [ -x "$REPO/.venv/bin/python" ] && ! grep -qx "home = $(dirname "$PY")" "$REPO/.venv/pyvenv.cfg"; then
    log "recreating $REPO/.venv on $PY"
    rm -rf "$REPO/.venv"
fi
if [ ! -x "$REPO/.venv/bin/python" ]; then
    log "creating $REPO/.venv"
    "$PY" -m venv "$REPO/.venv"
fi
if ! "$REPO/.venv/bin/python" -c 'import ham, pytest, xdist, matplotlib, yaml, yarn_api_client, mrjob' 2>/dev/null; then
    "$REPO/.venv/bin/pip" install -q --disable-pip-version-check -e "$REPO[test,report]"
fi

jar="$REPO/mapreduce/target/dist/ham-mapreduce.jar"
# Source files newer than the jar (files only: laying out 3.3.5 below makes hadoop-layout/target,
# which makes hadoop-layout/ itself newer, and a rebuild then replaced the jar under the tests
# of the next install.sh, examples/main-job.sh's, while they ran).
if [ ! -f "$jar" ] || [ ! -x "$REPO/mapreduce/target/dist/bin/hadoop" ] ||
   [ -n "$(find "$REPO/mapreduce/src" "$REPO/mapreduce/pom.xml" "$REPO/mapreduce/hadoop-layout" \
           -path '*/target' -prune -o -type f -newer "$jar" -print -quit)" ]; then
    log "building mapreduce/ (HAM jar + bundled Hadoop 3.4.2)"
    mvn -q -B -f "$REPO/mapreduce/pom.xml" package -DskipTests
fi
# (target/: the 3.3.5 layout below is built there, after the jar: not a source.)
# Hadoop 3.3.5 laid out as a site's older Hadoop would be: the tests run jobs on it too.
h335="$REPO/mapreduce/hadoop-layout/target/hadoop-3.3.5"
# A stamp of our own: the layout's files keep their sources' times, older than the checkout's.
if [ ! -x "$h335/bin/hadoop" ] || [ ! -f "$h335.built" ] || [ -n "$(find "$REPO/mapreduce/hadoop-layout/pom.xml" \
        "$REPO/mapreduce/hadoop-layout/layout.xml" "$REPO/mapreduce/src/dist" -newer "$h335.built" -print -quit)" ]; then
    log "laying out Hadoop 3.3.5 (the tests' site Hadoop)"
    mvn -q -B -f "$REPO/mapreduce/hadoop-layout/pom.xml" -Dhadoop.version=3.3.5 package
    touch "$h335.built"
fi
log "ready: export PATH=\"$REPO/.venv/bin:\$PATH\""
