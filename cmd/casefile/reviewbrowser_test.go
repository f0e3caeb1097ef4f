package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// newBrowser starts the machine's headless Chromium with a profile of its
// own, as TestReviewPageSubmitsAURLAndListsItsDraft does.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	browser := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

// pressEnter presses Enter in the focused element; the form it submits
// navigates away, which may end the key event's call early.
func pressEnter() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.KeyEvent(kb.Enter)(ctx, tg)
		if err != nil && strings.Contains(err.Error(), "navigated or closed") {
			return nil
		}
		return err
	})
}

// waitFor polls a JavaScript condition on the page until it holds, across
// the navigation a form post makes.
func waitFor(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			ok, err := chromedp.Evaluate[bool](cond)(ctx, tg)
			if err == nil && ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("waited 10s for %s (last error: %v)", cond, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	var err error
	for range 3 {
		var s string
		if s, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel))); err == nil {
			return s
		}
		// A node found and then replaced by the page's own script
		// ("No node with given id found") is read again.
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("text of %s: %v", sel, err)
	return ""
}

func evalBool(t *testing.T, ctx context.Context, expr string) bool {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// screenshot saves a PNG of the page into $CASEFILE_SCREENSHOTS, when set
// (the README's pictures in docs/ are made so).
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("CASEFILE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReviewInTheBrowser(t *testing.T) {
	f := newReviewFixture(t, "tok")
	id := f.addDraft(t, 1, "batch-1")
	second := f.addDraft(t, 2, "batch-1")
	hash, err := hashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SetReviewer(context.Background(), "ana", hash); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	base := f.srv.URL

	// Sign in with the keyboard only.
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(1100, 900),
		chromedp.Navigate(base+"/signin?next=/cases/"+id),
		chromedp.SendKeys(chromedp.CSS("#name"), "ana"),
		chromedp.KeyEvent(kb.Tab),
		chromedp.KeyEvent("correct horse battery"),
		pressEnter(),
		waitFor(`document.getElementById("reviewer") !== null && location.pathname === "/cases/`+id+`"`),
	)
	if err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("sign in: %v\n%s", err, body)
	}
	if got := textOf(t, ctx, "#reviewer"); got != "ana" {
		t.Errorf("signed in as %q", got)
	}

	// Crawled markup shows as text and never becomes an element.
	if !evalBool(t, ctx, `document.querySelectorAll("script").length === 1 && document.querySelectorAll("[onerror], img").length === 0 && window.__pwned === undefined`) {
		t.Errorf("crawled markup became elements of the case page")
	}
	if ev := textOf(t, ctx, "#row-summary-en .evidence"); !strings.Contains(ev, `<script>window.__pwned = 1</script>`) || !strings.Contains(ev, `onerror="window.__pwned = 2"`) {
		t.Errorf("the summary's evidence does not show the crawled markup as text: %q", ev)
	}
	if ev := textOf(t, ctx, "#row-summary-en .evidence"); !strings.Contains(ev, "low: check this") {
		t.Errorf("low confidence is not marked: %q", ev)
	}
	screenshot(t, ctx, "review-case.png")

	// A bad value: the message beside the field, nothing saved.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#f-timeline-resolved_after"), "soon"),
		chromedp.Click(chromedp.CSS(`#edit button[type="submit"]`)),
		waitFor(`document.getElementById("p-timeline-resolved_after") !== null`),
	)
	if err != nil {
		t.Fatalf("bad edit: %v", err)
	}
	if msg := textOf(t, ctx, "#p-timeline-resolved_after"); !strings.Contains(msg, "duration form") {
		t.Errorf("the message beside the field reads %q", msg)
	}
	if v := textOf(t, ctx, "#version"); v != "1" {
		t.Errorf("a refused edit made version %s", v)
	}

	// The resolution picked from the timeline: the duration changes.
	if got := textOf(t, ctx, "#resolved"); got != "47m" {
		t.Fatalf("resolved after %q before the pick", got)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/cases/"+id),
		chromedp.Click(chromedp.CSS("#event-4 .pick-resolved")),
		waitFor(`document.getElementById("resolved").textContent === "1h 18m"`),
	)
	if err != nil {
		t.Fatalf("pick the resolution: %v", err)
	}
	if !strings.Contains(textOf(t, ctx, "#event-4"), "resolved") {
		t.Errorf("the picked event is not marked resolved: %q", textOf(t, ctx, "#event-4"))
	}

	// Approve.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#approve button")),
		waitFor(`document.getElementById("status").textContent === "approved"`),
	)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	if by := textOf(t, ctx, "#reviewed-by"); by != "ana" {
		t.Errorf("reviewed by %q", by)
	}
	if h := textOf(t, ctx, "#history"); !strings.Contains(h, "timeline.resolved_after") || !strings.Contains(h, "approved") {
		t.Errorf("history reads %q", h)
	}

	// Reject the second with a reason, from the keyboard.
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/cases/"+second),
		chromedp.SendKeys(chromedp.CSS("#reason"), "the same incident as "+id),
		pressEnter(),
		waitFor(`document.getElementById("status").textContent === "rejected"`),
		// The page draws the reason after the status: wait for it too.
		waitFor(`document.getElementById("reject-reason") !== null`),
	)
	if err != nil {
		t.Fatalf("reject: %v", err)
	}
	if r := textOf(t, ctx, "#reject-reason"); r != "the same incident as "+id {
		t.Errorf("reject reason %q", r)
	}

	// The queue: counts, and a search typed into the filters.
	for i := 3; i <= 8; i++ {
		f.addDraft(t, i, "batch-2")
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	if c := textOf(t, ctx, "#counts"); !strings.Contains(c, "all (8)") || !strings.Contains(c, "approved (1)") || !strings.Contains(c, "rejected (1)") {
		t.Errorf("the queue's counts read %q", c)
	}
	screenshot(t, ctx, "review-queue.png")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#filters input[name="q"]`), "(2)"),
		pressEnter(),
		waitFor(`document.querySelectorAll("#cases tbody tr").length === 1`),
	)
	if err != nil {
		t.Fatalf("search the queue: %v", err)
	}
	if row := textOf(t, ctx, "#cases tbody"); !strings.Contains(row, second) || !strings.Contains(row, "rejected") {
		t.Errorf("searching for (2) lists %q", row)
	}

	// Signed in, the queue's submit form needs no token: the session and
	// its CSRF token go with it (the page's own script).
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.SetValue(chromedp.CSS(`#submit textarea`), "https://status.larchmont.example/incidents/99"),
		chromedp.Click(chromedp.CSS(`#submit button`)),
		waitFor(`document.getElementById("result").textContent.includes("queued")`),
	)
	if err != nil {
		t.Fatalf("submit as the signed-in reviewer: %v (%s)", err, textOf(t, ctx, "#result"))
	}

	// Accept a merge proposal: the third draft is another source of the
	// first case.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/cases/IL-0003")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#merge-`+id+` button.merge`)),
		// The case's page, loaded: reading #history while the old
		// document is being replaced finds no node.
		waitFor(`location.pathname === "/cases/`+id+`" && document.readyState === "complete" && document.getElementById("history") !== null`),
	)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if h := textOf(t, ctx, "#history"); !strings.Contains(h, "incidents/3") {
		t.Errorf("the history of %s does not show the merged source: %q", id, h)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/cases/IL-0003")); err != nil {
		t.Fatal(err)
	}
	if st := textOf(t, ctx, "#status"); st != "rejected" || !strings.Contains(textOf(t, ctx, "#reject-reason"), "merged into "+id) {
		t.Errorf("the merged draft is %q: %q", st, textOf(t, ctx, "#reject-reason"))
	}

	// Every page in a 400 px wide window.
	for _, path := range []string{"/", "/cases/" + id, "/cases/" + second, "/cases/IL-0004", "/submissions/unsuccessful", "/signin"} {
		err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 800), chromedp.Navigate(base+path))
		if err != nil {
			t.Fatal(err)
		}
		if !evalBool(t, ctx, `document.documentElement.scrollWidth <= 400`) {
			w, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			t.Errorf("%s is %d px wide in a 400 px window", path, w)
		}
	}
}
