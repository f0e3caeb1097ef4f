package crawl

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/incidentlib/casefile"
)

// StatusError is the cause of a fetch error for a response whose status is
// not a success. Callers find it with errors.As, for instance to honour
// RetryAfter when they retry a 429 or 503 later.
type StatusError struct {
	// StatusCode is the response's status.
	StatusCode int
	// RetryAfter is the wait the server asked for in Retry-After, or 0.
	RetryAfter time.Duration
}

// Error reads "http status 404 not found".
func (e *StatusError) Error() string {
	text := strings.ToLower(http.StatusText(e.StatusCode))
	if text == "" {
		text = "unknown status"
	}
	return fmt.Sprintf("http status %d %s", e.StatusCode, text)
}

// statusKind maps a status that is not a success to an error kind:
// 408, 429 and 5xx are worth retrying; every other status is not.
func statusKind(code int) error {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		return casefile.ErrTransient
	}
	return casefile.ErrPermanent
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// fetchError is an outcome the fetcher has already classified. Its message
// is written for people; cause, if any, is kept for errors.Is and As.
type fetchError struct {
	kind  error
	msg   string
	cause error
}

func (e *fetchError) Error() string { return e.msg }
func (e *fetchError) Unwrap() error { return e.cause }

func newFetchError(kind error, cause error, format string, args ...any) *fetchError {
	return &fetchError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

// errBodyTooLarge is returned by the body reader once it has read more
// than the cap.
var errBodyTooLarge = errors.New("body too large")

// sizeText writes a byte count the way a person reads a limit.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func tooLarge(limit int64) *fetchError {
	return newFetchError(casefile.ErrPermanent, errBodyTooLarge, "page too large: more than %s", sizeText(limit))
}

// classify turns whatever a fetch of display ended with into one error of
// a casefile kind whose message is one line: "fetch <url>: <what happened>".
func (f *Fetcher) classify(ctx context.Context, display string, err error, limit int64) error {
	wrap := func(kind error, cause error, format string, args ...any) error {
		return casefile.Errorf(kind, "fetch %s: %w", display, newFetchError(kind, cause, format, args...))
	}
	var fe *fetchError
	if errors.As(err, &fe) {
		return casefile.Errorf(fe.kind, "fetch %s: %w", display, fe)
	}
	var be *blockedError
	if errors.As(err, &be) {
		return casefile.Errorf(casefile.ErrInvalid, "fetch %s: %w", display, be)
	}
	if errors.Is(err, errBodyTooLarge) {
		return casefile.Errorf(casefile.ErrPermanent, "fetch %s: %w", display, tooLarge(limit))
	}
	if cerr := ctx.Err(); cerr != nil {
		return casefile.Errorf(casefile.ErrTransient, "fetch %s: %w", display, cerr)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return wrap(casefile.ErrPermanent, err, "no such host %s", dnsErr.Name)
		}
		return wrap(casefile.ErrTransient, err, "cannot resolve host %s: %s", dnsErr.Name, dnsErr.Err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return wrap(casefile.ErrTransient, err, "timed out (limit %s per request)", f.cfg.Timeout)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return wrap(casefile.ErrTransient, err, "connection refused")
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return wrap(casefile.ErrTransient, err, "connection reset by the server")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return wrap(casefile.ErrTransient, err, "the server closed the connection early")
	}
	var (
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidCert x509.CertificateInvalidError
		verifyErr   *tls.CertificateVerificationError
		recordErr   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalidCert), errors.As(err, &verifyErr):
		return wrap(casefile.ErrPermanent, err, "bad tls certificate: %s", innermost(err))
	case errors.As(err, &recordErr):
		return wrap(casefile.ErrPermanent, err, "the server does not speak tls")
	}
	var visited *colly.AlreadyVisitedError
	if errors.As(err, &visited) {
		return wrap(casefile.ErrPermanent, err, "redirect loop at %s", visited.Destination)
	}
	return wrap(casefile.ErrTransient, err, "%s", innermost(err))
}

// innermost drops the url.Error layer, whose text repeats the method and
// URL the message already names.
func innermost(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
