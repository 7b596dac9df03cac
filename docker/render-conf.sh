#!/bin/bash
# Render slurm.conf, slurmdbd.conf and cgroup.conf from the templates beside this script.
# Shared by the native test cluster (cluster.sh) and the Docker image (entrypoint.sh), so the
# two cannot drift apart.  Inputs are environment variables:
#   STATE CLUSTER CTL_HOST CTL_ADDR CTL_PORT SLURMD_PORT DBD_PORT DB_HOST DB_PORT DB_PASS
#   MUNGE_SOCKET NODE_LINES (newline-separated NodeName lines) PLUGSTACK (file or empty)
# Output directory: $1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"

render() {  # render TEMPLATE > FILE, replacing every at-sign KEY at-sign with the variable KEY
    python3 - "$1" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
def value(m):
    key = m.group(1)
    if key == "PLUGSTACK_LINE":
        p = os.environ.get("PLUGSTACK", "")
        return f"PlugStackConfig={p}" if p else "# no SPANK plugins"
    if key not in os.environ:
        sys.exit(f"render-conf.sh: {key} is not set")
    return os.environ[key]
sys.stdout.write(re.sub(r"@([A-Z_]+)@", value, text))
PY
}

render "$here/slurm.conf.in" > "$out/slurm.conf"
render "$here/slurmdbd.conf.in" > "$out/slurmdbd.conf"
chmod 600 "$out/slurmdbd.conf"
# slurmd 22.05 dies without a cgroup.conf where /sys/fs/cgroup is not visible.
printf 'CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n' > "$out/cgroup.conf"
