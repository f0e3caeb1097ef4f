#!/usr/bin/env bash
# Runs casefile's benchmarks and compares each pair side by side:
#   bench/run.sh            all (corpus, throughput, queued memory)
#   bench/run.sh Corpus     only the draft step vs goquery parse
# Figures quoted in notes come from this script. COUNT (default 6) sets the
# repetitions benchstat summarises; BENCHTIME (default 1s) the time or
# count (40x) of each, passed to -benchtime.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern="${1:-.}"
count="${COUNT:-6}"
benchtime="${BENCHTIME:-1s}"
out="$(mktemp -t casefile-bench.XXXXXX)"
go test -run '^$' -bench "$pattern" -benchmem -count "$count" -benchtime "$benchtime" -timeout 60m ./bench ./extract | tee "$out"
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
# End to end against drafting alone, and the heap at the largest queue
# against the smallest, per run median. The machine's other load moves
# these: compare figures of one run only.
awk '
  function median(a, n) { asort(a); return a[int((n+1)/2)] }
  function metric(unit,   i) { for (i = 3; i < NF; i++) if ($(i+1) == unit) return $i; return "" }
  /^BenchmarkThroughput\/draft-only-/              { d[nd++] = metric("pages/s") }
  /^BenchmarkThroughput\/end-to-end-[0-9]/         { e[ne++] = metric("pages/s") }
  /^BenchmarkThroughput\/end-to-end-postgres-/     { g[ng++] = metric("pages/s") }
  /^BenchmarkQueuedMemory\/1000-/                  { s[ns++] = metric("heap-MiB") }
  /^BenchmarkQueuedMemory\/100000-/                { l[nl++] = metric("heap-MiB") }
  END {
    if (nd && ne) { md = median(d, nd); printf "end to end (SQLite) / draft only: %.0f%% (medians %.0f vs %.0f pages/s)\n", 100*median(e, ne)/md, median(e, ne), md }
    if (nd && ng) printf "end to end (Postgres) / draft only: %.0f%% (medians %.0f vs %.0f pages/s)\n", 100*median(g, ng)/md, median(g, ng), md
    if (ns && nl) printf "heap at 100,000 queued URLs / at 1,000: %.2fx (medians %.2f vs %.2f MiB)\n", median(l, nl)/median(s, ns), median(l, nl), median(s, ns)
  }' "$out"
# Re-drafting stored pages against drafting the same pages from memory:
# the store's cost as a ratio, per run median.
awk '
  function median(a, n) { asort(a); return a[int((n+1)/2)] }
  function metric(unit,   i) { for (i = 3; i < NF; i++) if ($(i+1) == unit) return $i; return "" }
  /^BenchmarkRedraft\/from-memory-/     { m[nm++] = metric("pages/s") }
  /^BenchmarkRedraft\/stored-sqlite-/   { s[ns++] = metric("pages/s") }
  /^BenchmarkRedraft\/stored-postgres-/ { g[ng++] = metric("pages/s") }
  /^BenchmarkRedraft\/queued-sqlite-/   { q[nq++] = metric("pages/s") }
  END {
    if (!nm) exit
    mm = median(m, nm)
    if (ns) printf "re-draft from the store (SQLite): %.2fx the time from memory (medians %.0f vs %.0f pages/s)\n", mm/median(s, ns), median(s, ns), mm
    if (ng) printf "re-draft from the store (Postgres): %.2fx the time from memory (medians %.0f vs %.0f pages/s)\n", mm/median(g, ng), median(g, ng), mm
    if (nq) printf "re-draft as queue jobs (SQLite): %.0f pages/s, 10,000 pages in %.0f s\n", median(q, nq), 10000/median(q, nq)
  }' "$out"
