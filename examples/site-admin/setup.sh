#!/bin/bash
# Install HAM's site settings, modulefiles and SPANK plugin under PREFIX, where HAM is installed
# (docs/admin.md, Install). Safe to run again: it rewrites only what changed, and never
# overwrites a site file you have edited (it keeps yours and says so; the modulefiles are then
# regenerated from yours).
#
#   bash setup.sh PREFIX [--no-spank]     # e.g. bash setup.sh /opt/ham
#
# writes
#   PREFIX/etc/ham/ham.toml                   the site settings (from ham.toml beside this script)
#   PREFIX/modulefiles/lmod/ham/VERSION.lua   Lmod:                module use PREFIX/modulefiles/lmod
#   PREFIX/modulefiles/tcl/ham/VERSION        Environment Modules: module use PREFIX/modulefiles/tcl
#   PREFIX/lib/slurm/ham_spank.so             the SPANK plugin (`make install` in slurm-plugins/;
#                                             needs gcc and libslurm-dev; not with --no-spank)
# and prints the plugstack.conf line that loads the plugin. slurmd loads it as root: run this as
# root, or as an owner of PREFIX whom you trust with root on the nodes. The `ham` of PREFIX
# (PREFIX/bin/ham) writes the modulefiles, unless HAM names another.
set -euo pipefail

usage="usage: bash setup.sh PREFIX [--no-spank]"
PREFIX=${1:?$usage}
SPANK=1
case ${2:-} in
    "") ;;
    --no-spank) SPANK=0 ;;
    *) echo "setup.sh: unknown argument '$2' ($usage)" >&2; exit 2 ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
PLUGINS=$(cd "$HERE/../../slurm-plugins" && pwd)
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
HAM=${HAM:-$PREFIX/bin/ham}
[ -n "${HAM%% *}" ] && command -v "${HAM%% *}" >/dev/null ||
    { echo "setup.sh: no $HAM: install HAM in $PREFIX first (docs/admin.md, Install), or name" \
           "its ham with HAM=" >&2; exit 2; }
VERSION=$($HAM --version | awk '{print $NF}')
SITE="$PREFIX/etc/ham/ham.toml"

# install_file CONTENT_FILE DEST: replace DEST only if its content differs (atomically).
install_file() {
    local src=$1 dest=$2
    mkdir -p "$(dirname "$dest")"
    if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
        echo "unchanged  $dest"
    else
        cp "$src" "$dest.tmp.$$" && chmod 0644 "$dest.tmp.$$" && mv -f "$dest.tmp.$$" "$dest"
        echo "wrote      $dest"
    fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The site file. An existing, different one is the admin's: keep it.
if [ -f "$SITE" ] && ! cmp -s "$HERE/ham.toml" "$SITE"; then
    echo "kept       $SITE (differs from $HERE/ham.toml; diff them to see what changed)"
else
    install_file "$HERE/ham.toml" "$SITE"
fi
# Fail early on a typo: this reads and validates the file (exit 2 names the bad key).
HAM_SITE_CONFIG="$SITE" $HAM config show >/dev/null

# 2. Modulefiles: PATH gets PREFIX/share/ham/bin (`ham` alone), HAM_SITE_CONFIG the site file.
$HAM admin modulefile --format lua --site-config "$SITE" > "$tmp/lua"
install_file "$tmp/lua" "$PREFIX/modulefiles/lmod/ham/$VERSION.lua"
$HAM admin modulefile --format tcl --site-config "$SITE" > "$tmp/tcl"
install_file "$tmp/tcl" "$PREFIX/modulefiles/tcl/ham/$VERSION"

# 3. The SPANK plugin, in its one place, and the plugstack.conf line that loads it (with the site
# file's shared_root, not one from your own ~/.config/ham or HAM_SHARED_ROOT).
[ "$SPANK" = 1 ] || exit 0
plugin="$PREFIX/lib/slurm/ham_spank.so"
before=$({ cksum < "$plugin"; } 2>/dev/null || true)
if ! out=$(make -s -C "$PLUGINS" install PREFIX="$PREFIX" 2>&1); then
    echo "$out" | tail -5 >&2
    echo "setup.sh: cannot build the SPANK plugin (it needs gcc and libslurm-dev): install them," \
         "or run with --no-spank" >&2
    exit 1
fi
if [ "$before" = "$(cksum < "$plugin")" ]; then echo "unchanged  $plugin"; else echo "wrote      $plugin"; fi
site_setting() {
    env -u HAM_SHARED_ROOT -u HAM_RUNNER_LOCAL_DIR HAM_USER_CONFIG=/dev/null HAM_SITE_CONFIG="$SITE" \
        $HAM config show | awk -v k="$1" '$1 == k {gsub(/"/, "", $2); print $2}'
}
root=$(site_setting shared_root)
# The runners' node-local directory, whose leftovers the epilog removes: local= when not /tmp.
local_dir=$(site_setting runner_local_dir)
case $local_dir in /tmp|none) local_arg="" ;; *) local_arg=" local=$local_dir" ;; esac
echo
echo "plugstack.conf line for the SPANK plugin, on every node (then restart slurmd); while it is"
echo "missing, a site file with spank = true makes ham submit and ham run refuse jobs:"
echo "  required $plugin root=$root$local_arg"
