// Package workers runs casefile's pipeline on NATS JetStream: the outbox
// relay that turns stored submissions into fetch jobs, the fetch-and-draft
// workers, the store workers that write drafts to the review store, the
// archive workers that look up Wayback captures, and the dead-letter
// recorder. It also starts the embedded nats-server of the one-machine
// default. The draft step the fetch workers run is package draftstep,
// which the `draft` command and the evaluation call without any queue.
//
// Delivery is at least once; exactly-once effects come from the review
// store's upserts keyed by canonical URL, from content-derived message ids,
// and from final states: a copy of a fetch job whose outcome is stored is
// acked without running, and an identical re-draft writes no version. Every
// job ends recorded: drafted, not a postmortem, failed with its reason, or
// dead-lettered.
package workers
