package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/incidentlib/casefile"
)

// The Save Page Now endpoints, relative to the base URL.
const (
	savePath   = "/save"
	statusPath = "/save/status/"
	userPath   = "/save/status/user"
	systemPath = "/save/status/system"
)

// Outcome is what a failed Save Page Now call means for its request; the
// archive stage acts on it (docs/wayback.md, "status_ext classes").
type Outcome string

// The outcomes.
const (
	// OutcomeTransient: retry with backoff.
	OutcomeTransient Outcome = "transient"
	// OutcomeTransientThenPermanent: a few retries days apart, then failed.
	OutcomeTransientThenPermanent Outcome = "transient-then-permanent"
	// OutcomeSlot: every capture place of the account is busy; wait for
	// one, not an attempt.
	OutcomeSlot Outcome = "slot"
	// OutcomePermanent: record the reason, do not retry.
	OutcomePermanent Outcome = "permanent"
	// OutcomeQuota: a daily quota; look in CDX, else wait for 00:00 UTC.
	OutcomeQuota Outcome = "quota"
	// OutcomeRateLimited: a 429; every call is paused.
	OutcomeRateLimited Outcome = "rate-limited"
	// OutcomeAuth: the keys were refused; stop submitting.
	OutcomeAuth Outcome = "auth"
	// OutcomeAmbiguous: the capture may or may not have been made (a
	// timeout, a 5xx, an answer that is not JSON); check CDX before any
	// second submit.
	OutcomeAmbiguous Outcome = "ambiguous"
)

// statusExtRules maps Save Page Now's status_ext codes (without the
// "error:" prefix) to outcomes. A code not listed is permanent.
var statusExtRules = map[string]Outcome{
	"bad-gateway":                     OutcomeTransient,
	"browsing-timeout":                OutcomeTransient,
	"capture-location-error":          OutcomeTransient,
	"cannot-fetch":                    OutcomeTransient,
	"celery":                          OutcomeTransient,
	"gateway-timeout":                 OutcomeTransient,
	"internal-server-error":           OutcomeTransient,
	"job-failed":                      OutcomeTransient,
	"no-browsers-available":           OutcomeTransient,
	"proxy-error":                     OutcomeTransient,
	"protocol-error":                  OutcomeTransient,
	"read-timeout":                    OutcomeTransient,
	"service-unavailable":             OutcomeTransient,
	"too-many-requests":               OutcomeTransient, // the target host sent 429
	"bandwidth-limit-exceeded":        OutcomeTransient,
	"no-captures":                     OutcomeTransient,
	"soft-time-limit-exceeded":        OutcomeTransient,
	"invalid-host-resolution":         OutcomeTransientThenPermanent,
	"invalid-server-response":         OutcomeTransientThenPermanent,
	"user-session-limit":              OutcomeSlot,
	"too-many-daily-captures":         OutcomeQuota,
	"max-daily-bandwidth":             OutcomeQuota,
	"max-daily-bandwidth-from-ip":     OutcomeQuota,
	"max-daily-bandwidth-host":        OutcomeQuota,
	"blocked-client-ip":               OutcomePermanent,
	"bad-request":                     OutcomePermanent,
	"blocked":                         OutcomePermanent,
	"blocked-url":                     OutcomePermanent,
	"filesize-limit":                  OutcomePermanent,
	"ftp-access-denied":               OutcomePermanent,
	"http-version-not-supported":      OutcomePermanent,
	"invalid-url-syntax":              OutcomePermanent,
	"method-not-allowed":              OutcomePermanent,
	"not-implemented":                 OutcomePermanent,
	"network-authentication-required": OutcomePermanent,
	"no-access":                       OutcomePermanent,
	"not-found":                       OutcomePermanent,
	"too-many-redirects":              OutcomePermanent,
	"unauthorized":                    OutcomePermanent,
}

// transientMessage matches messages that say the target host was
// temporarily unhappy, whatever the code.
var transientMessage = regexp.MustCompile(`\(HTTP status=(408|429|5\d\d)\)|Crawling this host is paused`)

// dailyQuotaMessage matches the account's daily quota messages.
var dailyQuotaMessage = regexp.MustCompile(`(?i)daily .*captures limit|cannot make more than \d+ captures per day`)

// CaptureError is a Save Page Now call that did not give a job or a
// capture. Its kind (errors.Is) follows its outcome: transient outcomes are
// casefile.ErrTransient, permanent ones casefile.ErrPermanent.
type CaptureError struct {
	Outcome Outcome
	// Code is the status_ext ("error:not-found"), or the HTTP status as
	// "http-NNN".
	Code    string
	Message string
}

func (e *CaptureError) Error() string {
	msg := e.Code
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Is gives the error its kind.
func (e *CaptureError) Is(target error) bool {
	switch target {
	case casefile.ErrPermanent:
		return e.Outcome == OutcomePermanent
	case casefile.ErrTransient:
		return e.Outcome != OutcomePermanent
	}
	return false
}

// classifyExt returns the outcome of a status_ext code and its message.
func classifyExt(code, message string) Outcome {
	if transientMessage.MatchString(message) {
		return OutcomeTransient
	}
	if o, ok := statusExtRules[strings.TrimPrefix(code, "error:")]; ok {
		return o
	}
	return OutcomePermanent
}

// AsCaptureError returns err's CaptureError, if it has one.
func AsCaptureError(err error) (*CaptureError, bool) {
	var ce *CaptureError
	ok := errors.As(err, &ce)
	return ce, ok
}

// Job is a Save Page Now job or its result.
type Job struct {
	ID string
	// Message is Save Page Now's note ("The same snapshot had been made
	// ...", "Your capture will begin in ...").
	Message string
	// Status is pending, success or error (JobStatus only).
	Status string
	// Link is the capture link of a successful job.
	Link      string
	Timestamp string
}

// spnAnswer is the union of the JSON bodies of /save and /save/status.
type spnAnswer struct {
	URL         string          `json:"url"`
	JobID       *string         `json:"job_id"`
	Status      string          `json:"status"`
	StatusExt   string          `json:"status_ext"`
	Message     string          `json:"message"`
	OriginalURL string          `json:"original_url"`
	Timestamp   string          `json:"timestamp"`
	Outlinks    json.RawMessage `json:"outlinks"`
}

// isJSON reports whether an answer says it is JSON.
func isJSON(a answer) bool {
	mt, _, err := mime.ParseMediaType(a.contentType)
	return err == nil && mt == "application/json"
}

// Submit asks Save Page Now for a capture of target, at most one that is
// fresher than 30 days old being returned instead
// (if_not_archived_within=30d). It returns the job, whose ID is "" when
// Save Page Now answered that a recent capture exists without naming a job
// (look it up in CDX). The call takes a place among the concurrent
// captures under key; release it with Gate().Release(key) once the job
// ended.
//
// Errors: a *CaptureError for every answer that is not a job: its
// Outcome says what to do; OutcomeAmbiguous (timeout, 5xx, an answer that
// is not JSON) means the capture may still happen. A *Deferred (through
// errors.As) when the limits did not let the call start.
func (c *Client) Submit(ctx context.Context, target, key string) (Job, error) {
	return c.submit(ctx, target, key, nil)
}

// errBefore marks the error of a submit's before hook.
type errBefore struct{ err error }

func (e *errBefore) Error() string { return e.err.Error() }
func (e *errBefore) Unwrap() error { return e.err }

// submit is Submit with a hook that runs before the call waits for the
// limits and is sent (the stage records the request there); the hook's
// error is returned as it is, and nothing is sent.
func (c *Client) submit(ctx context.Context, target, key string, before func() error) (Job, error) {
	form := url.Values{
		"url":                    {target},
		"skip_first_archive":     {"1"},
		"if_not_archived_within": {"30d"},
		"js_behavior_timeout":    {"0"},
	}
	k := call{lane: LaneCapture, key: key, method: http.MethodPost, path: savePath, form: form, auth: true}
	if before != nil {
		k.before = func() error {
			if err := before(); err != nil {
				return &errBefore{err}
			}
			return nil
		}
	}
	a, err := c.call(ctx, k)
	var be *errBefore
	if errors.As(err, &be) {
		return Job{}, be.err
	}
	if err != nil {
		return Job{}, wrapCallError(err)
	}
	switch {
	case a.status == http.StatusUnauthorized:
		return Job{}, &CaptureError{Outcome: OutcomeAuth, Code: "http-401", Message: messageOf(a.body)}
	case a.status >= 500 || a.status == http.StatusRequestTimeout:
		return Job{}, &CaptureError{Outcome: OutcomeAmbiguous, Code: fmt.Sprintf("http-%d", a.status), Message: "the capture may still be made"}
	case a.status != http.StatusOK:
		if dailyQuotaMessage.Match(a.body) {
			return Job{}, &CaptureError{Outcome: OutcomeQuota, Code: "daily-quota", Message: "the account's daily captures limit is reached"}
		}
		return Job{}, &CaptureError{Outcome: OutcomeTransient, Code: fmt.Sprintf("http-%d", a.status)}
	case !isJSON(a):
		if dailyQuotaMessage.Match(a.body) {
			return Job{}, &CaptureError{Outcome: OutcomeQuota, Code: "daily-quota", Message: "the account's daily captures limit is reached"}
		}
		return Job{}, &CaptureError{Outcome: OutcomeAmbiguous, Code: "not-json",
			Message: "Save Page Now answered a page, not JSON (anonymous requests do); the capture may still be made"}
	}
	var v spnAnswer
	if err := json.Unmarshal(a.body, &v); err != nil {
		return Job{}, &CaptureError{Outcome: OutcomeAmbiguous, Code: "bad-json", Message: err.Error()}
	}
	if v.Status == "error" {
		return Job{}, &CaptureError{Outcome: classifyExt(v.StatusExt, v.Message), Code: v.StatusExt, Message: v.Message}
	}
	j := Job{Message: v.Message}
	if v.JobID != nil {
		j.ID = *v.JobID
	}
	if j.ID == "" && !strings.Contains(v.Message, "same snapshot") {
		return Job{}, &CaptureError{Outcome: OutcomeAmbiguous, Code: "no-job", Message: "the answer names no job: " + v.Message}
	}
	return j, nil
}

// JobStatus asks for the status of a capture job. A success carries the
// capture's link, built from its original_url and a 14-digit timestamp. A
// job Save Page Now reports failed gives a *CaptureError with the outcome
// of its status_ext; an unknown or expired job (an error without a code,
// a 404) gives one with OutcomeAmbiguous: verify through CDX.
func (c *Client) JobStatus(ctx context.Context, jobID string) (Job, error) {
	a, err := c.call(ctx, call{lane: LaneStatus, method: http.MethodGet, path: statusPath + url.PathEscape(jobID), auth: true})
	if err != nil {
		return Job{}, wrapCallError(err)
	}
	if a.status != http.StatusOK || !isJSON(a) {
		outcome := OutcomeTransient
		if a.status == http.StatusNotFound {
			outcome = OutcomeAmbiguous
		}
		return Job{}, &CaptureError{Outcome: outcome, Code: fmt.Sprintf("http-%d", a.status), Message: "job status unreadable"}
	}
	var v spnAnswer
	if err := json.Unmarshal(a.body, &v); err != nil {
		return Job{}, &CaptureError{Outcome: OutcomeTransient, Code: "bad-json", Message: err.Error()}
	}
	j := Job{ID: jobID, Status: v.Status, Message: v.Message}
	switch v.Status {
	case "pending":
		return j, nil
	case "success":
		orig, ok := originalURL(v.OriginalURL)
		if !isTimestamp(v.Timestamp) || !ok {
			return Job{}, &CaptureError{Outcome: OutcomeAmbiguous, Code: "bad-success",
				Message: fmt.Sprintf("success without a 14-digit timestamp and an original url (%q, %q)", v.Timestamp, v.OriginalURL)}
		}
		j.Link, j.Timestamp = Link(v.Timestamp, orig), v.Timestamp
		return j, nil
	case "error":
		if v.StatusExt == "" {
			return Job{}, &CaptureError{Outcome: OutcomeAmbiguous, Code: "unknown-job", Message: v.Message}
		}
		return Job{}, &CaptureError{Outcome: classifyExt(v.StatusExt, v.Message), Code: v.StatusExt, Message: v.Message}
	}
	return Job{}, &CaptureError{Outcome: OutcomeTransient, Code: "unknown-status", Message: fmt.Sprintf("job status %q", v.Status)}
}

// wrapCallError keeps a call's error, marking a 429 as a CaptureError so
// the stage can tell it apart.
func wrapCallError(err error) error {
	if _, ok := AsDeferred(err); ok {
		return err
	}
	if errors.Is(err, errRateLimited) {
		return &CaptureError{Outcome: OutcomeRateLimited, Code: "http-429", Message: err.Error()}
	}
	if errors.Is(err, casefile.ErrInvalid) {
		return err
	}
	return &CaptureError{Outcome: OutcomeAmbiguous, Code: "no-answer", Message: err.Error()}
}

// messageOf returns the message field of a JSON body, or "".
func messageOf(body []byte) string {
	var v struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Message
}

// CapturedSince returns the link of the latest capture of target made at
// or after the 14-digit timestamp from with a 2xx or 3xx status, or ""
// when CDX knows none (yet: new captures show after minutes to hours).
// Errors as Lookup's.
func (c *Client) CapturedSince(ctx context.Context, target, from string) (string, error) {
	q := url.Values{
		"url":    {target},
		"fl":     {"timestamp,original,statuscode"},
		"filter": {"statuscode:[23].."},
		"from":   {from},
		"output": {"json"},
	}
	a, err := c.get(ctx, c.lookups, cdxPath, q)
	if err != nil {
		return "", fmt.Errorf("cdx: %w", err)
	}
	switch {
	case a.status == http.StatusForbidden && blocked(a.body):
		return "", casefile.Errorf(casefile.ErrPermanent, "cdx: the archive blocks or excludes this url (403)")
	case a.status != http.StatusOK:
		return "", casefile.Errorf(casefile.ErrTransient, "cdx: %s", statusText(a))
	}
	var rows [][]string
	if err := json.Unmarshal(a.body, &rows); err != nil {
		return "", casefile.Errorf(casefile.ErrTransient, "cdx: answer is not a json array of rows: %w", err)
	}
	best, bestOrig := "", ""
	for i, row := range rows {
		if (i == 0 && isHeader(row)) || len(row) < 3 || !isTimestamp(row[0]) || row[0] < from {
			continue
		}
		if orig, ok := originalURL(row[1]); ok && row[0] >= best && (strings.HasPrefix(row[2], "2") || strings.HasPrefix(row[2], "3")) {
			best, bestOrig = row[0], orig
		}
	}
	if best == "" {
		return "", nil
	}
	return Link(best, bestOrig), nil
}

// SystemStatus reports whether Save Page Now says it is working normally
// (/save/status/system answers {"status":"ok"}); its message otherwise.
func (c *Client) SystemStatus(ctx context.Context) (ok bool, message string, err error) {
	a, err := c.call(ctx, call{lane: LaneStatus, method: http.MethodGet, path: systemPath})
	if err != nil {
		return false, "", err
	}
	if a.status != http.StatusOK {
		return false, statusText(a), nil
	}
	var v struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(a.body), &v); err != nil {
		return false, "status answer is not json", nil
	}
	return v.Status == "ok", v.Status, nil
}
