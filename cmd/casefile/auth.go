package main

import (
	"context"
	"net/http"
)

type reviewerKey struct{}

// withReviewer returns ctx naming the signed-in reviewer.
func withReviewer(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, reviewerKey{}, name)
}

// reviewerFrom returns the signed-in reviewer of a request's context, or "".
func reviewerFrom(ctx context.Context) string {
	name, _ := ctx.Value(reviewerKey{}).(string)
	return name
}

// requireWriter guards the review actions: the API token when one is set.
func (s *api) requireWriter(h http.HandlerFunc) http.HandlerFunc {
	return s.requireToken(h)
}
