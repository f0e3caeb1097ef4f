package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds the machine's headless browser; the test fails in CI and
// skips elsewhere when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CASEFILE_REQUIRE_SERVICES") == "1" {
		t.Fatal("no chromium on this machine (.ci/run installs Debian's chromium)")
	}
	t.Skip("SKIPPING: no chromium on this machine")
	return ""
}

func TestReviewPageSubmitsAURLAndListsItsDraft(t *testing.T) {
	browser := chromium(t)
	postmortem, _ := corpusPages(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(postmortem)
	}))
	defer site.Close()
	api, _ := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn")

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	empty, err := runText(ctx, api+"/", "#cases tbody")
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(`textarea[name="urls"]`, site.URL+"/blog/2024/outage"),
		chromedp.Click(`#submit button`),
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Poll[bool](`document.getElementById("result").textContent.includes("queued")`, chromedp.WithPollingTimeout(10*time.Second))(ctx, tg)
			return chromedp.Void{}, err
		},
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	result, err := chromedp.Run(ctx, chromedp.Text("#result"))
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if !strings.Contains(empty, "No cases yet") {
		t.Errorf("empty queue reads %q", empty)
	}
	if !strings.Contains(result, "submission 1 queued") {
		t.Errorf("after submit the page says %q", result)
	}

	// Reload until the draft shows up in the queue.
	var row string
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(row, "IL-0001") {
		if time.Now().After(deadline) {
			t.Fatalf("the draft never appeared; the queue reads %q", row)
		}
		if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		if row, err = chromedp.Run(ctx, chromedp.Text("#cases tbody")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if !strings.Contains(row, "draft") {
		t.Errorf("the row %q does not show the draft status", row)
	}
}

// runText opens url and returns the text of the element sel.
func runText(ctx context.Context, url, sel string) (string, error) {
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return "", err
	}
	return chromedp.Run(ctx, chromedp.Text(sel))
}
