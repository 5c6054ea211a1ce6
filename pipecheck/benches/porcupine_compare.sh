#!/usr/bin/env bash
# Side by side on one machine: porcupine (Go, `go test`) and pipecheck's checker
# (`porcupine_bench`) on porcupine's test data, each run RUNS times alternately;
# prints wall time and peak RSS per run (/usr/bin/time -v) and the verdict summary.
#
#   properties/benches/porcupine_compare.sh /path/to/porcupine-checkout [RUNS]
#
# Needs: go (apt-get install -y golang), GNU time (/usr/bin/time). Porcupine's tests
# compared: TestEtcdJepsen* (102 histories) and TestKv* in -short mode (the 6 kv
# histories partitioned per key, and c01 unpartitioned; the two 10-client
# unpartitioned runs are skipped in -short mode, as porcupine's CI does).
set -euo pipefail
porcupine=${1:?porcupine checkout}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$porcupine" && go test -c -o /tmp/porcupine.test . >/dev/null)
(cd "$root" && cargo build -q --release -p pipecheck-properties --example porcupine_bench)
bench=$root/target/release/examples/porcupine_bench
measure() { # label, command...
  local label=$1; shift
  /usr/bin/time -v "$@" >/tmp/compare.out 2>/tmp/compare.time || { cat /tmp/compare.out; exit 1; }
  local wall rss
  wall=$(grep 'Elapsed (wall clock)' /tmp/compare.time | awk '{print $NF}')
  rss=$(grep 'Maximum resident' /tmp/compare.time | awk '{print $NF}')
  printf '%-10s wall %s  peak RSS %6d MiB  %s\n' "$label" "$wall" $((rss / 1024)) "$(tail -1 /tmp/compare.out)"
}
for run in $(seq "$runs"); do
  (cd "$porcupine" && measure porcupine /tmp/porcupine.test -test.run 'TestEtcdJepsen|TestKv' -test.short)
  measure pipecheck "$bench" "$porcupine/test_data" --quiet
done
