package casefile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// The error kinds. Every error a stage returns either matches one of these
// with errors.Is or is a bug (KindInternal). Kinds are mapped to exit
// statuses, HTTP statuses and queue actions once, in [KindOf] and the
// table behind [Kind.ExitCode], [Kind.HTTPStatus] and [Kind.QueueAction].
var (
	// ErrInvalid: bad input that will never succeed (not an http(s) URL, an
	// unsupported content type, a blocked destination).
	ErrInvalid = errors.New("invalid input")
	// ErrNotPostmortem: the page was read but is not a postmortem.
	ErrNotPostmortem = errors.New("not a postmortem")
	// ErrTransient: worth retrying later (timeouts, 5xx, 429, a service down).
	ErrTransient = errors.New("temporary failure")
	// ErrPermanent: the source failed in a way retrying will not fix (404,
	// 410, a body over the cap, too many redirects).
	ErrPermanent = errors.New("permanent failure")
	// ErrNotFound: a record asked for by id does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the request names a state that is no longer current
	// (a review of a case version that a newer draft replaced).
	ErrConflict = errors.New("conflict")
)

// Kind is the class of an error, as callers act on it.
type Kind int

// The kinds, in the order KindOf tests them.
const (
	KindNone Kind = iota
	KindInvalid
	KindNotPostmortem
	KindTransient
	KindPermanent
	KindNotFound
	KindConflict
	KindInternal
)

// QueueAction is what a queue consumer does with a message whose job
// ended with an error of a kind.
type QueueAction int

// The queue actions.
const (
	Ack      QueueAction = iota // done: remove the message
	NakDelay                    // retry later with a backoff
	Term                        // record as failed and never redeliver
	Nak                         // a bug: redeliver until MaxDeliver, then dead letter
)

var kindTable = map[Kind]struct {
	name   string
	exit   int
	status int
	action QueueAction
}{
	KindNone:          {"ok", 0, http.StatusOK, Ack},
	KindInvalid:       {"invalid", 2, http.StatusBadRequest, Term},
	KindNotPostmortem: {"not_postmortem", 3, http.StatusUnprocessableEntity, Ack},
	KindTransient:     {"transient", 4, http.StatusServiceUnavailable, NakDelay},
	KindPermanent:     {"permanent", 4, http.StatusBadGateway, Term},
	KindNotFound:      {"not_found", 1, http.StatusNotFound, Term},
	KindConflict:      {"conflict", 5, http.StatusConflict, Term},
	KindInternal:      {"internal", 1, http.StatusInternalServerError, Nak},
}

// KindOf classifies err. A nil error is KindNone; context deadlines count
// as transient; anything unclassified is KindInternal.
func KindOf(err error) Kind {
	switch {
	case err == nil:
		return KindNone
	case errors.Is(err, ErrInvalid):
		return KindInvalid
	case errors.Is(err, ErrNotPostmortem):
		return KindNotPostmortem
	case errors.Is(err, ErrTransient), errors.Is(err, context.DeadlineExceeded):
		return KindTransient
	case errors.Is(err, ErrPermanent):
		return KindPermanent
	case errors.Is(err, ErrNotFound):
		return KindNotFound
	case errors.Is(err, ErrConflict):
		return KindConflict
	}
	return KindInternal
}

// String names the kind as logs and stored states write it.
func (k Kind) String() string { return kindTable[k].name }

// ExitCode is the command-line exit status for the kind: 0 done, 2 invalid
// input, 3 not a postmortem, 4 the fetch failed, 5 a conflict (a review of
// a version that is no longer current), 1 anything else.
func (k Kind) ExitCode() int { return kindTable[k].exit }

// HTTPStatus is the API's status code for the kind.
func (k Kind) HTTPStatus() int { return kindTable[k].status }

// QueueAction is what a worker does with the message of a job that ended so.
func (k Kind) QueueAction() QueueAction { return kindTable[k].action }

// kindError carries a kind beside a message for people. Its message is
// only the message: the kind is for errors.Is, not for the reader.
type kindError struct {
	kind  error
	cause error
}

func (e *kindError) Error() string   { return e.cause.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.cause} }

// Errorf formats an error of the given kind (one of the Err sentinels).
// The message reads as format says; %w wraps as in fmt.Errorf, and
// errors.Is matches both the kind and any wrapped error.
func Errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, cause: fmt.Errorf(format, args...)}
}
