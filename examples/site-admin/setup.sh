#!/bin/bash
# Install HAM's site settings and modulefiles under PREFIX. Safe to run again: it rewrites only
# what changed, and never overwrites a site file you have edited (it keeps yours and says so;
# the modulefiles are then regenerated from yours).
#
#   bash setup.sh PREFIX          # e.g. bash setup.sh /opt/ham   (as the software owner)
#
# writes
#   PREFIX/etc/ham/ham.toml                   the site settings (from ham.toml beside this script)
#   PREFIX/modulefiles/lmod/ham/VERSION.lua   Lmod:                module use PREFIX/modulefiles/lmod
#   PREFIX/modulefiles/tcl/ham/VERSION        Environment Modules: module use PREFIX/modulefiles/tcl
# and prints the plugstack.conf line of the SPANK plugin. `ham` must be on PATH (or set HAM).
set -euo pipefail

PREFIX=${1:?usage: bash setup.sh PREFIX}
HERE=$(cd "$(dirname "$0")" && pwd)
HAM=${HAM:-ham}
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
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

# 2. Modulefiles pointing at it (PATH to this ham, HAM_SITE_CONFIG, JAVA_HOME/HADOOP_HOME).
$HAM admin modulefile --format lua --site-config "$SITE" > "$tmp/lua"
install_file "$tmp/lua" "$PREFIX/modulefiles/lmod/ham/$VERSION.lua"
$HAM admin modulefile --format tcl --site-config "$SITE" > "$tmp/tcl"
install_file "$tmp/tcl" "$PREFIX/modulefiles/tcl/ham/$VERSION"

# 3. The SPANK plugin line (build with `make -C slurm-plugins`; copy ham_spank.so to every node).
# (The site file's shared_root, not one from your own ~/.config/ham or HAM_SHARED_ROOT.)
root=$(env -u HAM_SHARED_ROOT HAM_USER_CONFIG=/dev/null HAM_SITE_CONFIG="$SITE" $HAM config show \
    | awk '$1 == "shared_root" {gsub(/"/, "", $2); print $2}')
echo
echo "plugstack.conf line for the SPANK plugin (on every node, then restart slurmd):"
echo "  required $PREFIX/lib/ham_spank.so root=$root"
