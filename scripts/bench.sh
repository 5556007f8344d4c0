#!/usr/bin/env bash
# Every benchmark of bench/, one after the other (never two at once: the machine is small),
# against the real components. Prints each one's figures and targets; exits 1 if any missed.
# Arguments: the benchmarks to run (default: all), e.g. `bash scripts/bench.sh odds roads`.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1
bash scripts/services.sh postgres || exit 1
benchmarks=("$@")
[ ${#benchmarks[@]} -gt 0 ] || benchmarks=(odds roads settlement placement intake fanout faults)
missed=()
for name in "${benchmarks[@]}"; do
  echo "=== bench/$name.py"
  if ! flock /tmp/punto-bench.lock .venv/bin/python "bench/$name.py"; then
    missed+=("$name")
  fi
done
if [ ${#missed[@]} -gt 0 ]; then
  echo "benchmarks that missed a target or failed: ${missed[*]}" >&2
  exit 1
fi
echo "every benchmark met its targets"
