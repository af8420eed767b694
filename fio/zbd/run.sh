#!/usr/bin/env bash
# Runs fio's own zoned-block-device test suite, t/zbd/test-zbd-support from the fio sources
# fio/build.sh unpacks (unmodified), against ZoneLab through the fio engine:
#
#   bash fio/zbd/run.sh SHAPE.toml WORKDIR [-w] [TEST...]
#
# -w (the suite's own option) resets every zone before each write test, as the suite needs on a
# device with an active-zone limit (zones earlier tests left open would use up the limit).
# The suite's libzbc path (-l) drives a character device: WORKDIR/zl0 is a link to /dev/null
# that only names the device, which lives in the state file WORKDIR/dev.state (created from
# SHAPE.toml). The suite's zbc_info, zbc_report_zones and zbc_reset_zone are the stand-ins in
# fio/zbd/bin, built on `zonelab zone`; the fio it runs (../../fio from its own directory) is
# fio/zbd/fio-wrapper, which runs every job on the ZoneLab engine on that state file, so each
# fio process sees the zones and data the previous one left. Prints the suite's lines ("Running
# test NN ... PASS", "SKIP reason", "FAIL"); per-test logs are WORKDIR/t/zbd/test-zbd-support.log.NN.
# Needs: ZONELAB (the zonelab binary), ZONELAB_FIO_ENGINE (fio/build.sh's engine), FIO_SRC (the fio
# sources; default target/fio/fio-<version of the installed fio>).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shape=$(realpath "$1")
work=$(realpath -m "$2")
shift 2
: "${ZONELAB:?set ZONELAB to the zonelab binary}"
: "${ZONELAB_FIO_ENGINE:?set ZONELAB_FIO_ENGINE to the engine fio/build.sh builds}"
if [ -z "${FIO_SRC:-}" ]; then
  v=$(dpkg-query -W -f='${Version}' fio)
  FIO_SRC="$root/target/fio/fio-${v%%-*}"
fi
[ -f "$FIO_SRC/t/zbd/test-zbd-support" ] || { echo "error: no t/zbd in $FIO_SRC (run fio/build.sh)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/t/zbd" "$work/bin"
cp "$FIO_SRC/t/zbd/test-zbd-support" "$FIO_SRC/t/zbd/functions" "$work/t/zbd/"
cp "$here/fio-wrapper" "$work/fio"
cp "$here"/bin/zbc_* "$work/bin/"
export ZONELAB=$(realpath "$ZONELAB") ZONELAB_FIO_ENGINE=$(realpath "$ZONELAB_FIO_ENGINE")
export ZONELAB_STATE="$work/dev.state" PATH="$work/bin:$PATH"
"$ZONELAB" zone info --state "$ZONELAB_STATE" --experiment "$shape" >"$work/device.txt"
ln -s /dev/null "$work/zl0"
tests=()
for t in "$@"; do
  case "$t" in
    -*) tests+=("$t") ;;
    *) tests+=(-t "$t") ;;
  esac
done
cd "$work"
bash "$work/t/zbd/test-zbd-support" -l "${tests[@]}" "$work/zl0"
