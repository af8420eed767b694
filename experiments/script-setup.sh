# Sourced by the experiment scripts (`source .../experiments/script-setup.sh "$@"`): moves to the
# repository's root, sets $bin to the zonelab binary (the script's first argument, else
# target/release/zonelab, built when it is missing) and $out to a scratch directory removed on
# exit.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-target/release/zonelab}
[ -x "$bin" ] || cargo build --release --locked -q -p zonelab-cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
