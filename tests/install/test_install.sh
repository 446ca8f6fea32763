#!/usr/bin/env bash
# The installed programs find their library scenes and assets beside themselves, not in the
# checkout (issue 48): `cmake --install` into a fresh prefix, and the .deb CPack makes, unpacked
# into a throwaway root. Each is used from another working directory, with an empty home (no
# remembered scene). Usage: test_install.sh BUILD_DIR [PYTHON] (the interpreter the Python package
# was built for; without it the package is not checked)
set -euo pipefail
build=$1
python=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home
mkdir -p "$HOME"
cd "$work"

check_tree() {  # PREFIX: the programs of an installed tree work from anywhere
  local prefix=$1
  local version
  version=$("$prefix/bin/rbsim-cli" --version)
  grep -qx "assets: $prefix/share/rbsim/assets" <<<"$version" || { echo "FAIL: $version"; exit 1; }
  # a scene whose robot file and meshes come from the installed assets
  "$prefix/bin/rbsim-cli" check "$prefix/share/rbsim/scenes/arm7_urdf.yaml" >/dev/null
  "$prefix/bin/rbsim-cli" run "$prefix/share/rbsim/scenes/quadcopter.yaml" --t-end 0.2 --quiet --out q.csv
  test "$(wc -l <q.csv)" -gt 10
  if [ -x "$prefix/bin/rbsim" ]; then
    test -f "$prefix/share/applications/rbsim.desktop"
    test -f "$prefix/share/icons/hicolor/scalable/apps/rbsim.svg"
    # no scene named and none remembered: the installed default scene
    QT_QPA_PLATFORM=offscreen "$prefix/bin/rbsim" --screenshot shot.png --at 0.1 >/dev/null 2>err.txt ||
      { cat err.txt; echo "FAIL: rbsim --screenshot"; exit 1; }
    test -s shot.png
  fi
  [ -n "$python" ] || return 0
  # the Python package installed beside them, and the study pictures an installed rbsim-cli draws with it
  PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c \
    "import rbsim, sys; assert rbsim.__file__.startswith('$prefix'), rbsim.__file__; print(rbsim.__version__)" >/dev/null
  printf 'scene: %s\nrun: {t_end: 0.2}\ngrid: {controller.kbar: [10, 20]}\nmetrics: [{channel: energy.total}]\n' \
    "$prefix/share/rbsim/scenes/robot_arm_6r.yaml" >study.yaml
  rm -rf study.csv pictures
  "$prefix/bin/rbsim-cli" study study.yaml --out study.csv --plot pictures --quiet
  test -s pictures/status_controller_kbar.png
}

cmake --install "$build" --prefix "$work/prefix" >/dev/null
check_tree "$work/prefix"
echo "cmake --install: ok"

(cd "$build" && cpack -G DEB -B "$work/deb" >/dev/null)
deb=$(ls "$work"/deb/rbsim_*.deb)
dpkg-deb -f "$deb" Depends | grep -q "libqt6widgets6" || { echo "FAIL: Depends: $(dpkg-deb -f "$deb" Depends)"; exit 1; }
dpkg-deb -x "$deb" "$work/root"
check_tree "$work/root/usr"
echo "$(basename "$deb"): ok ($(du -k "$deb" | cut -f1) kB)"
