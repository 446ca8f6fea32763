"""rbsim's own PEP 517 build backend: `pip install .` with nothing to fetch from a package index.

A backend from an index (setuptools, scikit-build) would be downloaded into pip's isolated build
environment first; this one needs only the standard library, CMake and a compiler, so `pip install .`
works offline with Debian's python3-pip alone (docs/PYTHON.md, "Installing with pip").

The wheel holds the pure-Python files of python/rbsim and the compiled module _rbsim, which is the
CMake target _rbsim (python/CMakeLists.txt) built in the CMake tree build/pip of the checkout, or
in an existing tree named by $RBSIM_BUILD_DIR or `--config-settings build-dir=...` (then only what
changed is compiled). The wheel format is PEP 427 (zip + .dist-info with METADATA, WHEEL, RECORD);
the metadata is Core Metadata 2.1, the version the CMake project's.
"""

import base64
import hashlib
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "rbsim"
NAME = "rbsim"


def _version() -> str:
    found = re.search(r"project\(rbsim VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not found:
        raise RuntimeError(f"{ROOT / 'CMakeLists.txt'}: no 'project(rbsim VERSION x.y.z)'")
    return found.group(1)


def _dist_info() -> str:
    return f"{NAME}-{_version()}.dist-info"


def _metadata() -> str:
    """Core Metadata 2.1; the README is the long description."""
    fields = [
        ("Metadata-Version", "2.1"),
        ("Name", NAME),
        ("Version", _version()),
        ("Summary", "Rigid body system simulator: scenes, tracking controllers, studies"),
        ("Requires-Python", ">=3.9"),
        ("Requires-Dist", "numpy"),
        ("Provides-Extra", "studies"),  # python3 -m rbsim.study and its pictures
        ("Requires-Dist", 'distributed; extra == "studies"'),
        ("Requires-Dist", 'matplotlib; extra == "studies"'),
        ("Description-Content-Type", "text/markdown"),
    ]
    header = "".join(f"{key}: {value}\n" for key, value in fields)
    return header + "\n" + (ROOT / "README.md").read_text(encoding="utf-8")


def _wheel_tag() -> str:
    """interpreter-abi-platform of the running Python (PEP 425), e.g. cp311-cp311-linux_x86_64."""
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{interpreter}-{interpreter}{sys.abiflags}-{platform}"


def _build_tree(config_settings) -> pathlib.Path:
    named = (config_settings or {}).get("build-dir") or os.environ.get("RBSIM_BUILD_DIR")
    return pathlib.Path(named or ROOT / "build" / "pip").resolve()


def _build_module(tree: pathlib.Path) -> pathlib.Path:
    """Configures (once) and builds the CMake target _rbsim; returns the module file."""
    if not (tree / "CMakeCache.txt").exists():
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tree), *generator,
                        "-DCMAKE_BUILD_TYPE=Release", "-DRBS_BUILD_GUI=OFF", "-DRBS_BUILD_TESTS=OFF",
                        "-DRBS_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"],
                       check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", str(tree), "--target", "_rbsim",
                    "--parallel", str(os.cpu_count() or 1)], check=True, stdout=sys.stderr)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    module = tree / "python" / "rbsim" / f"_rbsim{suffix}"
    if not module.exists():
        raise RuntimeError(f"{tree}: CMake built no {module.name} (a module for another Python? "
                           f"this one is {sys.executable})")
    return module


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


# --- the PEP 517 hooks -------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = pathlib.Path(metadata_directory) / _dist_info()
    target.mkdir(parents=True, exist_ok=True)
    (target / "METADATA").write_text(_metadata(), encoding="utf-8")
    return target.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    module = _build_module(_build_tree(config_settings))
    files = {f"rbsim/{source.name}": source.read_bytes() for source in sorted(PACKAGE.iterdir())
             if source.suffix in (".py", ".pyi") or source.name == "py.typed"}
    files[f"rbsim/{module.name}"] = module.read_bytes()
    tag = _wheel_tag()
    info = _dist_info()
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: rbsim_build_backend\n"
                              f"Root-Is-Purelib: false\nTag: {tag}\n").encode()
    files[f"{info}/top_level.txt"] = b"rbsim\n"
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()

    wheel_name = f"{NAME}-{_version()}-{tag}.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The files git tracks, under rbsim-VERSION/, with PKG-INFO (a checkout without git cannot
    make one: it would not know which files are the project's)."""
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                                capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError) as error:
        raise RuntimeError(f"{ROOT}: a source archive needs git to list the project's files ({error})")
    base = f"{NAME}-{_version()}"
    sdist_name = f"{base}.tar.gz"
    with tarfile.open(pathlib.Path(sdist_directory) / sdist_name, "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for path in filter(None, listed):
            if (ROOT / path).is_file():
                sdist.add(ROOT / path, arcname=f"{base}/{path}", recursive=False)
        info = _metadata().encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(info)
        sdist.addfile(entry, io.BytesIO(info))
    return sdist_name
