// Package casefile holds the domain of casefile, the intake of an incident
// library: the case format the library publishes, the document that
// extraction produces from one fetched page, the error kinds every stage
// reports, and the interfaces the stages and the review store share.
//
// It imports only the standard library. Adapters live in the leaf packages
// (crawl, extract, normalize, archive, workers, store) and are wired
// together in cmd/casefile.
package casefile
