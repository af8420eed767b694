#!/usr/bin/env bash
# Installs the `zonelab` Python package from source into a virtualenv under target/ and runs its
# tests: creates target/pyenv (Python 3.11 or newer), pip-installs maturin and the package's
# dependencies from python/requirements-dev.txt (PyPI), builds the release CLI (the tests compare
# with it), builds the wheel with maturin and installs it, then runs pytest (python/tests).
#   bash python/setup.sh            build, install, test
#   bash python/setup.sh --no-test  build and install only
# Afterwards: target/pyenv/bin/python -c 'import zonelab'. PYTHON=... picks the interpreter.
# ZONELAB_WHEEL_PROFILE=... picks the Cargo profile of the wheel (default `release-unwind`, the
# one pyproject.toml gives, with fat LTO, as `pip install ./python` builds it). scripts/test.sh
# builds the test wheel with the `quick` profile: no whole-program LTO; the results are the same,
# the build is faster. CARGO_TARGET_DIR is honoured (the tests run the CLI built there).
# A user's install needs none of this: pip install './python[sweep,plot]' (python/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
venv=target/pyenv
profile=${ZONELAB_WHEEL_PROFILE:-release-unwind}
cargo_target=${CARGO_TARGET_DIR:-target}
case "$cargo_target" in /*) ;; *) cargo_target="$PWD/$cargo_target" ;; esac
command -v "$python" >/dev/null || { echo "error: $python not found; install Python 3.11 or newer" >&2; exit 1; }
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "error: $python is $("$python" --version 2>&1); zonelab needs Python 3.11 or newer" >&2; exit 1; }
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv" \
        || { echo "error: cannot create a virtualenv; on Debian: apt-get install python3-venv" >&2; exit 1; }
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt
cargo build --release --locked -p zonelab-cli ${ZONELAB_CLI_FEATURES:+--features "$ZONELAB_CLI_FEATURES"}
rm -f target/wheels/zonelab-*.whl
(cd python && ../"$venv"/bin/maturin build --locked --quiet --profile "$profile" \
    --interpreter ../"$venv"/bin/python --compatibility linux --out ../target/wheels)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/zonelab-*.whl
if [ "${1:-}" != "--no-test" ]; then
    ZONELAB_BIN="$cargo_target/release/zonelab" "$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
fi
