#!/bin/bash
# Start the test cluster the way the tests expect it: 3 nodes in namespaces, the shared root on
# a network file system (GlusterFS, coherent profile: each node and this login shell mount it
# with a client of their own; HAM_TEST_FS=local for one directory of this machine instead), with
# HAM's SPANK plugin loaded (it only acts on jobs that ask for --ham) and its root on the shared
# root. The plugin is installed as docs/admin.md says, by `make install` into a prefix
# ($DIR/ham/lib/slurm/ham_spank.so, where a site's is /opt/ham/lib/slurm/ham_spank.so). Used by
# tests/run.sh, examples/main-job.sh and conftest.py; extra arguments go to `cluster.sh up` (a
# later --fs wins).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}
SHARED=$DIR/shared  # what cluster.sh mounts
SPANK_ROOT=$SHARED/ham-spank-root
mkdir -p "$DIR"
make -s -C "$REPO/slurm-plugins" install PREFIX="$DIR/ham"
# local=: the nodes' node-local directory (cluster.sh's, exported as HAM_RUNNER_LOCAL_DIR).
echo "required $DIR/ham/lib/slurm/ham_spank.so root=$SPANK_ROOT local=$DIR/node-local" \
    > "$DIR/plugstack.conf"
# A small file system for the "shared root is full" test. Mounted before the nodes start: each
# node's mount namespace gets a copy of the mount table when its slurmd starts.
mkdir -p /var/tmp/ham-tiny
mountpoint -q /var/tmp/ham-tiny || mount -t tmpfs -o size=48m,mode=1777 ham-tiny /var/tmp/ham-tiny
"$REPO/docker/cluster.sh" up --fs "${HAM_TEST_FS:-gluster}" --plugstack "$DIR/plugstack.conf" "$@"
# The SPANK root lives on the shared root, so it exists once that is mounted. A restarted
# cluster numbers jobs from 1 again: job directories of a previous one are stale. (slurm.conf
# is written by each start, and only then.)
started=$(stat -c %Y "$DIR/etc/slurm.conf")
if [ "$(cat "$SPANK_ROOT/.started" 2>/dev/null)" != "$started" ]; then
    rm -rf "$SPANK_ROOT" && mkdir -p "$SPANK_ROOT"
    echo "$started" > "$SPANK_ROOT/.started"
fi
chmod 1777 "$SPANK_ROOT"
