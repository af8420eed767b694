#!/usr/bin/env bash
# The fuzzers, run longer than CI runs them (`cargo test` runs each for a bounded number of
# cases). ZONELAB_FUZZ_CASES sets the cases of each (default here 100000):
#   - config::fuzz_tests: every shipped experiment and preset, mutated; each mutant is refused
#     naming a field, or accepted and run bounded without a panic;
#   - zns::policy_tests: random command streams with idle time on every firmware policy with
#     data retention (and one device with erase suspend and read priority on), against the
#     synchronous device (itself checked against the reference model of the zone rules in
#     zns::device_tests).
# The test profile is optimised (opt-level 2, Cargo.toml), so these run near release speed.
# Usage: scripts/fuzz.sh [config|commands|all]
set -euo pipefail
cd "$(dirname "$0")/.."
export ZONELAB_FUZZ_CASES="${ZONELAB_FUZZ_CASES:-100000}"
what="${1:-all}"
if [[ "$what" == config || "$what" == all ]]; then
  cargo test --locked -p zonelab --lib config::fuzz_tests -- --nocapture
fi
if [[ "$what" == commands || "$what" == all ]]; then
  log="$(mktemp)"
  ZONELAB_FUZZ_STATS=1 cargo test --locked -p zonelab --lib \
    zns::policy_tests::every_policy_looks_the_same_to_the_host -- --nocapture 2>&1 | tee "$log" |
    grep -v FUZZ_DEVICE_COMMANDS
  awk '/^FUZZ_DEVICE_COMMANDS/ { n += $2; c++ } END { printf "command streams: %d cases, %d device commands\n", c, n }' "$log"
  rm -f "$log"
  cargo test --locked -p zonelab --lib zns::device_tests -- --nocapture
fi
