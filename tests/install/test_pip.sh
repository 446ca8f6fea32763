#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment and `pip install --user .` into a throwaway user
# base, with Debian's python3-venv and python3-pip and no package index (--no-index: the project's
# own build backend needs nothing from one), reusing the build tree's CMake build: the installed
# package imports from where it was installed, gives the build tree's numbers bit for bit and
# passes tests/python/test_module.py.
# Usage: test_pip.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
source_dir=$1 build=$2 python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"  # numpy from Debian
cd "$source_dir"
pip_options=(--no-index --quiet --disable-pip-version-check)
RBSIM_BUILD_DIR=$build "$work/venv/bin/pip" install "${pip_options[@]}" .
# Debian marks its Python externally managed (PEP 668), so --user needs --break-system-packages;
# PYTHONUSERBASE keeps the install inside $work.
RBSIM_BUILD_DIR=$build PYTHONUSERBASE=$work/user "$python" -m pip install --user --break-system-packages \
  "${pip_options[@]}" . 2> >(grep -v "as the 'root' user" >&2)
cd "$work"
probe='import rbsim, sys
r = rbsim.load(sys.argv[1]).run(t_end=0.5)
print(rbsim.__file__.split("/rbsim/")[0], rbsim.__version__, r.values.sum().hex(), r["error.position"].max().hex())'
installed=$("$work/venv/bin/python" -c "$probe" "$source_dir/scenes/quadcopter_looping.yaml")
tree=$(PYTHONPATH="$build/python" "$python" -c "$probe" "$source_dir/scenes/quadcopter_looping.yaml")
user=$(env -u PYTHONPATH PYTHONUSERBASE="$work/user" "$python" -c "$probe" "$source_dir/scenes/quadcopter_looping.yaml")
read -r installed_at installed_numbers <<<"$installed"
read -r user_at user_numbers <<<"$user"
read -r _ tree_numbers <<<"$tree"
case "$installed_at" in "$work/venv"/*) ;; *) echo "FAIL: rbsim imported from $installed_at"; exit 1 ;; esac
case "$user_at" in "$work/user"/*) ;; *) echo "FAIL: --user: rbsim imported from $user_at"; exit 1 ;; esac
[ "$installed_numbers" = "$tree_numbers" ] || { echo "FAIL: $installed_numbers != $tree_numbers"; exit 1; }
[ "$user_numbers" = "$tree_numbers" ] || { echo "FAIL: --user: $user_numbers != $tree_numbers"; exit 1; }
test -f "$installed_at/rbsim/py.typed" && test -f "$installed_at/rbsim/_rbsim.pyi"
# the module's test suite against the installed package (no PYTHONPATH: the venv's own)
env -u PYTHONPATH RBS_SOURCE_DIR="$source_dir" RBSIM_CLI="$build/app/rbsim-cli" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$source_dir/tests/python/test_module.py" >pytest.txt ||
  { cat pytest.txt; echo "FAIL: tests/python/test_module.py against the installed package"; exit 1; }
echo "pip install: ok ($installed_numbers; $(tail -1 pytest.txt))"
