package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
)

// browserClient is an HTTP client with cookies that does not follow
// redirects, as a browser's form posts are checked step by step.
func browserClient(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// getPage fetches a page and returns its body and the CSRF token of its forms.
func getPage(t *testing.T, c *http.Client, u string) (body, csrf string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, b)
	}
	if m := csrfRe.FindStringSubmatch(string(b)); m != nil {
		csrf = m[1]
	}
	return string(b), csrf
}

func postForm(t *testing.T, c *http.Client, u string, v url.Values) (int, string, string) {
	t.Helper()
	resp, err := c.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

func TestCasePageSignInAndReview(t *testing.T) {
	f := newReviewFixture(t, "tok")
	id := f.addDraft(t, 1, "b1")
	hash, err := hashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SetReviewer(context.Background(), "ana", hash); err != nil {
		t.Fatal(err)
	}
	c := browserClient(t)
	page, csrf := getPage(t, c, f.srv.URL+"/cases/"+id)
	if strings.Contains(page, `action="/cases/`+id+`/approve"`) || !strings.Contains(page, "Sign in</a> to edit") {
		t.Errorf("a reader who is not signed in is offered the review forms")
	}
	if strings.Contains(page, "<script>window") || !strings.Contains(page, "&lt;script&gt;window.__pwned") {
		t.Errorf("crawled markup is not escaped on the case page")
	}
	if !strings.Contains(page, `<a class="archived" href="https://web.archive.org/web/20250212080000/https://status.larchmont.example/incidents/1"`) ||
		!strings.Contains(page, `<a id="live" href="https://status.larchmont.example/incidents/1"`) {
		t.Errorf("the case page does not link the live and the archived source")
	}
	// Not signed in: the form is refused and leads to the sign-in page.
	st, loc, _ := postForm(t, c, f.srv.URL+"/cases/"+id+"/approve", url.Values{"csrf": {csrf}, "version": {"1"}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin") {
		t.Errorf("approve without signing in: %d to %q, want a redirect to /signin", st, loc)
	}

	_, csrf = getPage(t, c, f.srv.URL+"/signin?next=/cases/"+id)
	st, _, body := postForm(t, c, f.srv.URL+"/signin", url.Values{"csrf": {csrf}, "name": {"ana"}, "password": {"wrong password"}, "next": {"/cases/" + id}})
	if st != http.StatusUnauthorized || !strings.Contains(body, "Wrong name or password") {
		t.Errorf("wrong password: %d", st)
	}
	st, _, _ = postForm(t, c, f.srv.URL+"/signin", url.Values{"csrf": {"forged"}, "name": {"ana"}, "password": {"correct horse battery"}})
	if st != http.StatusForbidden {
		t.Errorf("sign-in with a forged CSRF token: %d, want 403", st)
	}
	st, loc, _ = postForm(t, c, f.srv.URL+"/signin", url.Values{"csrf": {csrf}, "name": {"ana"}, "password": {"correct horse battery"}, "next": {"/cases/" + id}})
	if st != http.StatusSeeOther || loc != "/cases/"+id {
		t.Fatalf("sign-in: %d to %q", st, loc)
	}
	u, _ := url.Parse(f.srv.URL)
	var cookie string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == sessionCookie {
			cookie = ck.Value
		}
	}
	if cookie == "" {
		t.Fatal("no session cookie after signing in")
	}
	// The session is kept in the store: another server on it (or this one
	// restarted) knows the reviewer.
	restarted := httptest.NewServer((&api{store: f.st, token: "tok", log: f.api.log}).routes())
	defer restarted.Close()
	req, _ := http.NewRequest("GET", restarted.URL+"/cases/"+id, nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `id="reviewer">ana<`) {
			t.Errorf("a restarted server does not know the session")
		}
	}

	page, csrf = getPage(t, c, f.srv.URL+"/cases/"+id)
	if !strings.Contains(page, `id="reviewer">ana<`) || !strings.Contains(page, `action="/cases/`+id+`/approve"`) {
		t.Fatalf("signed in, the case page offers no review")
	}
	// A form without the session's CSRF token is refused.
	st, _, _ = postForm(t, c, f.srv.URL+"/cases/"+id+"/approve", url.Values{"csrf": {"forged"}, "version": {"1"}})
	if st != http.StatusForbidden {
		t.Errorf("approve with a forged CSRF token: %d, want 403", st)
	}
	// A bad value is refused with the field's message and saves nothing.
	st, _, body = postForm(t, c, f.srv.URL+"/cases/"+id+"/edit", url.Values{"csrf": {csrf}, "version": {"1"},
		"f.timeline.resolved_after": {"about an hour"}, "f.severity": {"major"}})
	if st != http.StatusBadRequest || !strings.Contains(body, `id="p-timeline-resolved_after"`) || !strings.Contains(body, "duration form") ||
		!strings.Contains(body, `value="about an hour"`) {
		t.Errorf("bad edit: %d; want 400 with the message beside the field and the value kept", st)
	}
	if got, _ := f.st.Case(context.Background(), id); got.Version != 1 || got.Case.Severity != "unknown" {
		t.Errorf("a refused edit changed the case: version %d, severity %q", got.Version, got.Case.Severity)
	}
	st, loc, _ = postForm(t, c, f.srv.URL+"/cases/"+id+"/edit", url.Values{"csrf": {csrf}, "version": {"1"},
		"f.timeline.resolved_after": {"52m"}, "f.severity": {"major"}, "f.components": {"cloud-load-balancer, quota-service"}})
	if st != http.StatusSeeOther {
		t.Fatalf("edit: %d", st)
	}
	// List items one a line (the Korean side kept by position), related
	// cases, and a recurrence cleared with an empty field.
	cur, _ := f.st.Case(context.Background(), id)
	st, _, body = postForm(t, c, f.srv.URL+"/cases/"+id+"/edit", url.Values{"csrf": {csrf}, "version": {"2"},
		"f.action_items": {"Compare pool membership before and after every load balancer push\r\nAlert on drained pools taking traffic\r\n"},
		"f.related":      {"IL-0900, IL-0901"}, "f.recurrence_of": {""}, "f.docs": {"https://docs.example/lb\nhttps://docs.example/pools"}})
	if st != http.StatusSeeOther {
		t.Fatalf("edit the lists: %d\n%s", st, body)
	}
	got, _ := f.st.Case(context.Background(), id)
	if len(got.Case.ActionItems) != 2 || got.Case.ActionItems[0] != cur.Case.ActionItems[0] || got.Case.ActionItems[1].Text.EN != "Alert on drained pools taking traffic" ||
		strings.Join(got.Case.Related, ",") != "IL-0900,IL-0901" || got.Case.RecurrenceOf != nil || len(got.Case.Docs) != 2 || len(got.Case.Remediation) != len(cur.Case.Remediation) {
		t.Errorf("after editing the lists: action items %+v, related %v, recurrence %v, docs %v", got.Case.ActionItems, got.Case.Related, got.Case.RecurrenceOf, got.Case.Docs)
	}
	page, _ = getPage(t, c, f.srv.URL+loc)
	if !strings.Contains(page, "new component: quota-service") || !strings.Contains(page, `id="resolved">52m<`) {
		t.Errorf("after the edit the page does not show the new values")
	}
	// Picking a later resolution event recomputes the duration.
	st, _, _ = postForm(t, c, f.srv.URL+"/cases/"+id+"/pick", url.Values{"csrf": {csrf}, "version": {"3"}, "event": {"4"}, "role": {"resolved"}})
	if st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	got, _ = f.st.Case(context.Background(), id)
	if *got.Case.Timeline.ResolvedAfter != "1h 18m" || got.Timeline[4].Role != casefile.RoleResolved {
		t.Errorf("after picking 10:30 as resolved: resolved after %s, role %s", *got.Case.Timeline.ResolvedAfter, got.Timeline[4].Role)
	}
	st, _, body = postForm(t, c, f.srv.URL+"/cases/"+id+"/reject", url.Values{"csrf": {csrf}, "version": {"4"}, "reason": {" "}})
	if st != http.StatusBadRequest || !strings.Contains(body, "give the reason") {
		t.Errorf("reject without a reason: %d", st)
	}
	st, _, body = postForm(t, c, f.srv.URL+"/cases/"+id+"/approve", url.Values{"csrf": {csrf}, "version": {"3"}})
	if st != http.StatusConflict || !strings.Contains(body, "version 4") {
		t.Errorf("approve an old version: %d", st)
	}
	st, _, _ = postForm(t, c, f.srv.URL+"/cases/"+id+"/approve", url.Values{"csrf": {csrf}, "version": {"4"}})
	if st != http.StatusSeeOther {
		t.Fatalf("approve: %d", st)
	}
	got, _ = f.st.Case(context.Background(), id)
	if got.Status != casefile.CaseApproved || got.Case.Review.ReviewedBy == nil || *got.Case.Review.ReviewedBy != "ana" {
		t.Errorf("approved case: %s, reviewed by %v", got.Status, got.Case.Review.ReviewedBy)
	}
	page, _ = getPage(t, c, f.srv.URL+"/cases/"+id)
	for _, want := range []string{"timeline.resolved_event", "<td>ana</td>", "<td>severity</td>", "<td>approved</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("history on the page lacks %q", want)
		}
	}

	// The JSON API with the session cookie needs the CSRF header.
	other := f.addDraft(t, 2, "b1")
	req, _ = http.NewRequest("POST", f.srv.URL+"/api/cases/"+other+"/approve", strings.NewReader(`{"version": 1}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("API approve with the session cookie and no CSRF header: %d, want 403", resp.StatusCode)
	}
	req, _ = http.NewRequest("POST", f.srv.URL+"/api/cases/"+other+"/approve", strings.NewReader(`{"version": 1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(csrfHeader, csrf)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, _ := f.st.Case(context.Background(), other); resp.StatusCode != 200 || *got.Case.Review.ReviewedBy != "ana" {
		t.Errorf("API approve with session and CSRF header: %d, reviewed by %v", resp.StatusCode, got.Case.Review.ReviewedBy)
	}

	// Signed out, writing is refused again.
	st, _, _ = postForm(t, c, f.srv.URL+"/signout", url.Values{"csrf": {csrf}})
	if st != http.StatusSeeOther {
		t.Errorf("sign out: %d", st)
	}
	_, csrf = getPage(t, c, f.srv.URL+"/cases/"+other)
	if st, loc, _ := postForm(t, c, f.srv.URL+"/cases/"+other+"/reopen", url.Values{"csrf": {csrf}, "version": {"1"}}); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin") {
		t.Errorf("reopen after signing out: %d to %q, want the sign-in page", st, loc)
	}
}

func TestSignInThrottlesWrongPasswords(t *testing.T) {
	f := newReviewFixture(t, "")
	hash, err := hashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SetReviewer(context.Background(), "ana", hash); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	f.api.sess.now = func() time.Time { return now }
	c := browserClient(t)
	_, csrf := getPage(t, c, f.srv.URL+"/signin")
	try := func(pw string) int {
		st, _, _ := postForm(t, c, f.srv.URL+"/signin", url.Values{"csrf": {csrf}, "name": {"ana"}, "password": {pw}})
		return st
	}
	for i := range maxFailures {
		if st := try("wrong password"); st != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d", i+1, st)
		}
	}
	if st := try("correct horse battery"); st != http.StatusTooManyRequests {
		t.Errorf("the right password after %d wrong ones: %d, want 429", maxFailures, st)
	}
	now = now.Add(failureWindow + time.Second)
	if st := try("correct horse battery"); st != http.StatusSeeOther {
		t.Errorf("the right password after the window: %d, want a redirect", st)
	}
}

func TestCasePageNeverLinksAJavascriptURL(t *testing.T) {
	f := newReviewFixture(t, "")
	const u = "javascript:alert(document.domain)//"
	subs, err := f.st.Submit(context.Background(), []casefile.NewSubmission{{URL: u}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.st.SaveDraft(context.Background(), subs[0].ID, exampleDraft(t, u, "A link that is script"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/cases/" + res.CaseID, "/"} {
		body, _ := getPage(t, browserClient(t), f.srv.URL+path)
		if strings.Contains(body, `href="javascript:`) || !strings.Contains(body, "javascript:alert(document.domain)//") {
			t.Errorf("%s: a javascript: source is a link, or not shown as text", path)
		}
	}
}

func TestPageFormsAreOpenOnlyWithoutTokenAndAccounts(t *testing.T) {
	f := newReviewFixture(t, "")
	id := f.addDraft(t, 1, "")
	c := browserClient(t)
	_, csrf := getPage(t, c, f.srv.URL+"/cases/"+id)
	if st, _, body := postForm(t, c, f.srv.URL+"/cases/"+id+"/reject", url.Values{"csrf": {csrf}, "version": {"1"}, "reason": {"not an incident"}}); st != http.StatusSeeOther {
		t.Fatalf("reject with neither token nor accounts: %d %s", st, body)
	}
	if got, _ := f.st.Case(context.Background(), id); got.Status != casefile.CaseRejected || got.RejectReason != "not an incident" {
		t.Errorf("rejected case: %s %q", got.Status, got.RejectReason)
	}
	// Once an account exists, the same browser must sign in.
	if _, err := f.st.SetReviewer(context.Background(), "bo", "$2a$10$abcdefghijklmnopqrstuu"); err != nil {
		t.Fatal(err)
	}
	if st, loc, _ := postForm(t, c, f.srv.URL+"/cases/"+id+"/reopen", url.Values{"csrf": {csrf}, "version": {"1"}}); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin") {
		t.Errorf("reopen once accounts exist: %d to %q, want the sign-in page", st, loc)
	}
	var e struct{ Error string }
	if st := f.call(t, "POST", "/api/cases/"+id+"/approve", "", `{"version": 1}`, &e); st != http.StatusUnauthorized {
		t.Errorf("API approve once accounts exist, without token or session: %d, want 401", st)
	}
	if st := f.call(t, "POST", "/api/submissions", "", `{"urls": ["https://a.example/post"]}`, &e); st != http.StatusUnauthorized {
		t.Errorf("a submission once accounts exist, without token or session: %d, want 401", st)
	}
}

func TestSessionCookieFlags(t *testing.T) {
	f := newReviewFixture(t, "")
	hash, err := hashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SetReviewer(context.Background(), "ana", hash); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{"", "https"} {
		t.Run("forwarded proto "+proto, func(t *testing.T) {
			c := browserClient(t)
			_, csrf := getPage(t, c, f.srv.URL+"/signin")
			req, _ := http.NewRequest("POST", f.srv.URL+"/signin", strings.NewReader(url.Values{"csrf": {csrf}, "name": {"ana"}, "password": {"correct horse battery"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if proto != "" {
				req.Header.Set("X-Forwarded-Proto", proto)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var ck *http.Cookie
			for _, x := range resp.Cookies() {
				if x.Name == sessionCookie {
					ck = x
				}
			}
			if ck == nil {
				t.Fatalf("no session cookie (status %d)", resp.StatusCode)
			}
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure != (proto == "https") || ck.Path != "/" {
				t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Secure only behind TLS", ck)
			}
		})
	}
}
