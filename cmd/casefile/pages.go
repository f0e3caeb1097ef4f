package main

import (
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/incidentlib/casefile"
)

// The review pages are rendered on the server with html/template, which
// escapes every crawled text; their only script and style sheet are files
// of the server's own (the Content-Security-Policy allows no inline script).

//go:embed static/review.js static/review.css
var staticFiles embed.FS

// pageRoutes adds the review pages to the API's mux.
func (s *api) pageRoutes(mux *http.ServeMux) {
	if s.sess == nil {
		s.sess = newSessions(s.store)
	}
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("GET /signin", s.signinPage)
	mux.HandleFunc("POST /signin", s.signin)
	mux.HandleFunc("POST /signout", s.signout)
	mux.HandleFunc("GET /submissions/unsuccessful", s.unsuccessfulPage)
	mux.HandleFunc("GET /cases/{id}", s.casePage)
	mux.HandleFunc("POST /cases/{id}/edit", s.pageEdit)
	mux.HandleFunc("POST /cases/{id}/approve", s.pageApprove)
	mux.HandleFunc("POST /cases/{id}/reject", s.pageReject)
	mux.HandleFunc("POST /cases/{id}/reopen", s.pageReopen)
	mux.HandleFunc("POST /cases/{id}/pick", s.pagePick)
	mux.HandleFunc("POST /cases/{id}/merge", s.pageMerge)
	mux.HandleFunc("POST /cases/{id}/dismiss", s.pageDismiss)
	mux.HandleFunc("POST /cases/{id}/proposal/accept", s.pageAcceptProposal)
	mux.HandleFunc("POST /cases/{id}/proposal/dismiss", s.pageDismissProposal)
}

// page is what every review page shows in its header.
type page struct {
	Title string
	// Reviewer is the signed-in reviewer ("" for none).
	Reviewer string
	// CSRF is the token every form of the page carries.
	CSRF string
	// Accounts is true when reviewer accounts exist (so sign-in is offered).
	Accounts bool
	// CanWrite is true when this browser may change cases.
	CanWrite bool
	// Here is the page's own path and query, for the sign-in form's return.
	Here string
}

// pageFor fills the header of a page for the request.
func (s *api) pageFor(w http.ResponseWriter, r *http.Request, title string) (page, error) {
	p := page{Title: title, Reviewer: reviewerFrom(r.Context()), CSRF: csrfToken(w, r), Here: r.URL.RequestURI()}
	var err error
	if p.Accounts, err = s.accountsExist(r.Context()); err != nil {
		return p, err
	}
	if p.CanWrite, err = s.mayWrite(r); err != nil {
		return p, err
	}
	return p, nil
}

var pageFuncs = template.FuncMap{
	// httpURL returns u when it is an http(s) URL, else "": anything else
	// (javascript:, data:) is shown as text, never as a link.
	"httpURL": func(u string) string {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return ""
		}
		return u
	},
	"jsonText": jsonText,
	"list":     func(s ...string) []string { return s },
	"percent":  func(f float64) string { return strconv.Itoa(int(f*100+0.5)) + "%" },
	"low":      func(f float64) bool { return f < lowConfidence },
	"utc": func(t *time.Time) string {
		if t == nil {
			return "no zone"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"deref": func(p *string) string {
		if p == nil {
			return "–"
		}
		return *p
	},
}

// lowConfidence marks evidence a reviewer should check first.
const lowConfidence = 0.5

// jsonText shows a history value: a JSON string as its text, null as "–",
// anything else as compact JSON.
func jsonText(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case nil:
		return "–"
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const layoutTemplate = `{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="{{.CSRF}}">
<title>{{.Title}} · casefile</title>
<link rel="stylesheet" href="/static/review.css">
<script src="/static/review.js" defer></script>
</head>
<body>
<header class="top">
<a class="home" href="/">casefile review</a>
<nav>{{if .Reviewer}}Signed in as <b id="reviewer">{{.Reviewer}}</b>
<form class="inline" method="post" action="/signout"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit">Sign out</button></form>
{{else if .Accounts}}<a href="/signin?next={{.Here}}">Sign in</a>{{end}}</nav>
</header>
<main>
{{end}}
{{define "foot"}}</main>
</body>
</html>
{{end}}`

var signinTemplate = template.Must(template.New("signin").Funcs(pageFuncs).Parse(layoutTemplate + `{{template "head" .}}
<h1>Sign in</h1>
{{with .Message}}<p class="notice error" role="alert">{{.}}</p>{{end}}
{{if .Accounts}}
<form method="post" action="/signin" id="signin">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<input type="hidden" name="next" value="{{.Next}}">
<p><label for="name">Name</label><input type="text" id="name" name="name" autocomplete="username" required value="{{.Name}}"></p>
<p><label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>
{{else}}<p>No reviewer accounts exist yet. Add one on the server with <code>casefile reviewers add NAME</code>.</p>{{end}}
{{template "foot" .}}`))

type signinPage struct {
	page
	Message, Name, Next string
}

// localPath returns next when it is a path on this server, else "/".
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

func (s *api) signinPage(w http.ResponseWriter, r *http.Request) {
	s.renderSignin(w, r, http.StatusOK, "", "")
}

func (s *api) renderSignin(w http.ResponseWriter, r *http.Request, status int, msg, name string) {
	p, err := s.pageFor(w, r, "Sign in")
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	next := r.URL.Query().Get("next")
	if r.Method == http.MethodPost {
		next = r.PostFormValue("next")
	}
	s.render(w, status, signinTemplate, signinPage{page: p, Message: msg, Name: name, Next: localPath(next)})
}

func (s *api) signin(w http.ResponseWriter, r *http.Request) {
	if !csrfValid(r, r.PostFormValue(csrfField)) {
		s.renderSignin(w, r, http.StatusForbidden, "The form had expired; sign in again.", "")
		return
	}
	name, password := r.PostFormValue("name"), r.PostFormValue("password")
	if s.sess.throttled(name) {
		s.renderSignin(w, r, http.StatusTooManyRequests, "Too many wrong passwords for this name: wait a quarter of an hour.", name)
		return
	}
	ok, err := s.checkPassword(r.Context(), name, password)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if !ok {
		s.sess.failed(name)
		s.log.Info("sign-in refused", "name", termSafe(name))
		s.renderSignin(w, r, http.StatusUnauthorized, "Wrong name or password.", name)
		return
	}
	tok, err := s.sess.start(r.Context(), name)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	setCookie(w, r, sessionCookie, tok, int(sessionTTL/time.Second))
	s.log.Info("signed in", "reviewer", name)
	http.Redirect(w, r, localPath(r.PostFormValue("next")), http.StatusSeeOther)
}

func (s *api) signout(w http.ResponseWriter, r *http.Request) {
	if !csrfValid(r, r.PostFormValue(csrfField)) {
		http.Error(w, "the form had expired: reload the page", http.StatusForbidden)
		return
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := s.sess.end(r.Context(), c.Value); err != nil {
			s.writeStoreError(w, r, err)
			return
		}
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// render writes a page; a template error after the header is only logged.
func (s *api) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := t.Execute(w, data); err != nil {
		s.log.Error("render page", "page", t.Name(), "err", err)
	}
}

// staticHandler serves the pages' script and style sheet.
func staticHandler() http.Handler {
	fs := http.FileServerFS(staticFiles)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		fs.ServeHTTP(w, r)
	})
}

// formAction checks a page form's CSRF token and the right to write; on
// failure it has answered the request.
func (s *api) formAction(w http.ResponseWriter, r *http.Request) bool {
	if !csrfValid(r, r.PostFormValue(csrfField)) {
		http.Error(w, "the form had expired or came from another site: reload the page and try again", http.StatusForbidden)
		return false
	}
	ok, err := s.mayWrite(r)
	if err != nil {
		s.writeStoreError(w, r, err)
		return false
	}
	if !ok {
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(path.Dir(r.URL.Path)), http.StatusSeeOther)
		return false
	}
	return true
}

// errorMessage is the text a page shows for an action's error.
func errorMessage(err error) string {
	switch casefile.KindOf(err) {
	case casefile.KindInvalid, casefile.KindConflict, casefile.KindNotFound:
		return err.Error()
	case casefile.KindTransient:
		return "the review store is unavailable; try again in a few seconds"
	}
	return "internal error"
}

// formVersion reads the version field of a page form.
func formVersion(r *http.Request) int {
	n, _ := strconv.Atoi(r.PostFormValue("version"))
	return n
}
