package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/incidentlib/casefile"
)

// Cookies of the review pages. The session cookie names a signed-in
// reviewer; the CSRF cookie carries the form token of a browser that is not
// signed in (the sign-in form itself, and every form while no accounts
// exist).
const (
	sessionCookie = "casefile_session"
	csrfCookie    = "casefile_csrf"
	csrfField     = "csrf"
	csrfHeader    = "X-CSRF-Token"
	// sessionTTL is how long a sign-in lasts.
	sessionTTL = 12 * time.Hour
)

// session is one signed-in browser.
type session struct {
	name string
	csrf string
}

// sessions signs reviewers in: sessions are kept in the review store by
// the SHA-256 of the cookie's token (so they survive a restart and are
// shared by every server on the store); wrong passwords are counted in
// memory.
type sessions struct {
	store casefile.Store
	mu    sync.Mutex
	// failures holds the times of recent wrong passwords by name.
	failures map[string][]time.Time
	now      func() time.Time
}

func newSessions(st casefile.Store) *sessions {
	return &sessions{store: st, failures: map[string][]time.Time{}, now: time.Now}
}

// tokenHash is the key of a cookie's token in the store.
func tokenHash(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// Sign-in throttling: after maxFailures wrong passwords for one name
// within failureWindow, that name cannot sign in until the window has
// passed since the oldest of them.
const (
	maxFailures   = 5
	failureWindow = 15 * time.Minute
)

// recent returns the failures of name still inside the window; the caller
// holds the lock.
func (ss *sessions) recent(name string) []time.Time {
	cut := ss.now().Add(-failureWindow)
	var keep []time.Time
	for _, t := range ss.failures[name] {
		if t.After(cut) {
			keep = append(keep, t)
		}
	}
	if keep == nil {
		delete(ss.failures, name)
	} else {
		ss.failures[name] = keep
	}
	return keep
}

// throttled reports whether name has had too many wrong passwords lately.
func (ss *sessions) throttled(name string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.recent(strings.ToLower(name))) >= maxFailures
}

// failed records a wrong password for name, and forgets old failures.
func (ss *sessions) failed(name string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for n := range ss.failures {
		ss.recent(n)
	}
	name = strings.ToLower(name)
	ss.failures[name] = append(ss.failures[name], ss.now())
}

// randomToken returns 32 random bytes, base64url-encoded.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// start signs a reviewer in and returns the cookie's token.
func (ss *sessions) start(ctx context.Context, name string) (string, error) {
	tok := randomToken()
	err := ss.store.StartSession(ctx, casefile.Session{TokenHash: tokenHash(tok), Reviewer: name, CSRF: randomToken(),
		ExpiresAt: ss.now().Add(sessionTTL).UTC().Truncate(time.Microsecond)})
	return tok, err
}

// get returns the live session of a cookie token.
func (ss *sessions) get(ctx context.Context, tok string) (session, bool, error) {
	s, err := ss.store.Session(ctx, tokenHash(tok))
	if errors.Is(err, casefile.ErrNotFound) {
		return session{}, false, nil
	}
	if err != nil {
		return session{}, false, err
	}
	return session{name: s.Reviewer, csrf: s.CSRF}, true, nil
}

func (ss *sessions) end(ctx context.Context, tok string) error {
	return ss.store.EndSession(ctx, tokenHash(tok))
}

type sessionKey struct{}

// withSession puts the request's session, if its cookie names a live one,
// into the request's context.
func (s *api) withSession(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
			sess, ok, err := s.sess.get(r.Context(), c.Value)
			if err != nil {
				// Read on as a guest; a change will ask to sign in.
				s.log.Warn("read session", "err", err)
			}
			if ok {
				r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess))
			}
		}
		h.ServeHTTP(w, r)
	})
}

func sessionFrom(ctx context.Context) (session, bool) {
	sess, ok := ctx.Value(sessionKey{}).(session)
	return sess, ok
}

// reviewerFrom returns the signed-in reviewer of a request's context, or "".
func reviewerFrom(ctx context.Context) string {
	sess, _ := sessionFrom(ctx)
	return sess.name
}

// setCookie sets one of the pages' cookies: HttpOnly, SameSite=Lax, Secure
// when the request came over TLS (directly or through a proxy that says
// so); maxAge < 0 deletes it.
func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"),
	})
}

// csrfToken returns the form token for the page being rendered: the
// session's, or the browser's CSRF cookie (set here when missing).
func csrfToken(w http.ResponseWriter, r *http.Request) string {
	if sess, ok := sessionFrom(r.Context()); ok {
		return sess.csrf
	}
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	tok := randomToken()
	setCookie(w, r, csrfCookie, tok, int(sessionTTL/time.Second))
	r.AddCookie(&http.Cookie{Name: csrfCookie, Value: tok})
	return tok
}

// csrfValid reports whether a form or API request carries the token its
// session, or else its CSRF cookie, holds.
func csrfValid(r *http.Request, got string) bool {
	want := ""
	if sess, ok := sessionFrom(r.Context()); ok {
		want = sess.csrf
	} else if c, err := r.Cookie(csrfCookie); err == nil {
		want = c.Value
	}
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// mayWrite decides whether a request may change cases: with the API
// token; as a signed-in reviewer; or by anyone while neither a token nor
// a reviewer account exists (one machine, nobody to tell apart).
func (s *api) mayWrite(r *http.Request) (bool, error) {
	if s.token != "" {
		if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok &&
			subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1 {
			return true, nil
		}
	}
	if _, ok := sessionFrom(r.Context()); ok {
		return true, nil
	}
	if s.token != "" {
		return false, nil
	}
	names, err := s.store.Reviewers(r.Context())
	if err != nil {
		return false, err
	}
	return len(names) == 0, nil
}

// accountsExist reports whether any reviewer account exists.
func (s *api) accountsExist(ctx context.Context) (bool, error) {
	names, err := s.store.Reviewers(ctx)
	return len(names) > 0, err
}

// requireWriter guards the API's review actions: the API token, or a
// signed-in reviewer's session cookie with its CSRF token in the
// X-CSRF-Token header; anyone while no token and no account exist.
func (s *api) requireWriter(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, err := s.mayWrite(r)
		if err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="casefile"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong bearer token (set Authorization: Bearer $CASEFILE_API_TOKEN), or sign in as a reviewer")
			return
		}
		if _, signedIn := sessionFrom(r.Context()); signedIn && r.Header.Get("Authorization") == "" && !csrfValid(r, r.Header.Get(csrfHeader)) {
			writeError(w, http.StatusForbidden, "a signed-in request must carry the page's CSRF token in "+csrfHeader)
			return
		}
		h(w, r)
	}
}

// dummyHash is compared against when the name is unknown, so that a
// wrong name takes as long as a wrong password.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("casefile-no-such-reviewer"), bcrypt.DefaultCost)

// checkPassword returns the reviewer's name when the password is theirs.
func (s *api) checkPassword(ctx context.Context, name, password string) (bool, error) {
	hash, err := s.store.ReviewerHash(ctx, name)
	if errors.Is(err, casefile.ErrNotFound) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil, nil
}
