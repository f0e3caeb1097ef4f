#!/usr/bin/env bash
# Runs casefile's benchmarks and compares each pair side by side:
#   bench/run.sh            all (corpus, throughput, queued memory)
#   bench/run.sh Corpus     only the draft step vs goquery parse
# Figures quoted in notes come from this script. COUNT (default 6) sets the
# repetitions benchstat summarises.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern="${1:-.}"
count="${COUNT:-6}"
out="$(mktemp -t casefile-bench.XXXXXX)"
go test -run '^$' -bench "$pattern" -benchmem -count "$count" -timeout 60m ./bench ./extract | tee "$out"
echo
go run golang.org/x/perf/cmd/benchstat@latest "$out" || true
echo
# The ratio of the draft step to the bare parse, per run median.
awk '
  /^BenchmarkCorpus\/goquery-parse/ { p[np++] = $3 }
  /^BenchmarkCorpus\/draft-step/    { d[nd++] = $3 }
  END {
    if (np && nd) {
      asort(p); asort(d)
      mp = p[int((np+1)/2)]; md = d[int((nd+1)/2)]
      printf "draft step / goquery parse over the corpus: %.2fx (medians %.0f ns vs %.0f ns per corpus pass)\n", md/mp, md, mp
    }
  }' "$out"
