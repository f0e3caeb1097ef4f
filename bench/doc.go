// Package bench holds casefile's benchmarks that span packages: the draft
// step over the whole corpus beside a bare goquery parse of the same pages,
// and the pipeline's end-to-end throughput beside draft-only throughput and
// its memory with many queued URLs. Run them with bench/run.sh, which
// compares the pairs side by side with benchstat.
package bench
