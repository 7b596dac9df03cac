#!/bin/bash
# Start the test cluster the way the tests expect it: 3 nodes in namespaces, with HAM's SPANK
# plugin loaded (it only acts on jobs that ask for --ham). Used by tests/run.sh and conftest.py.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}
make -s -C "$REPO/slurm-plugins" ham_spank.so
mkdir -p "$DIR"
# A restarted cluster numbers jobs from 1 again: job directories of the previous one are stale.
if ! { [ "${1:-}" = --reuse ] && SLURM_CONF="$DIR/etc/slurm.conf" scontrol ping 2>/dev/null | grep -q UP; }; then
    rm -rf /var/tmp/ham-spank-root && mkdir -p /var/tmp/ham-spank-root
fi
chmod 1777 /var/tmp/ham-spank-root
echo "required $REPO/slurm-plugins/ham_spank.so root=/var/tmp/ham-spank-root" > "$DIR/plugstack.conf"
# A small file system for the "shared root is full" test. Mounted before the nodes start: each
# node's mount namespace gets a copy of the mount table when its slurmd starts.
mkdir -p /var/tmp/ham-tiny
mountpoint -q /var/tmp/ham-tiny || mount -t tmpfs -o size=48m,mode=1777 ham-tiny /var/tmp/ham-tiny
exec "$REPO/docker/cluster.sh" up --plugstack "$DIR/plugstack.conf" "$@"
