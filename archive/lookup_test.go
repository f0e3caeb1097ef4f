package archive_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/archive/archivetest"
)

var (
	older  = time.Date(2019, 3, 1, 8, 0, 0, 0, time.UTC)
	latest = time.Date(2021, 3, 25, 17, 4, 5, 0, time.UTC)
)

// newClient returns a client of srv without spacing between calls.
func newClient(srv *httptest.Server) *archive.Client {
	return archive.New(archive.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), MinInterval: -1})
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(f *archivetest.Fake)
		url       string
		want      string
		wantKind  casefile.Kind
		wantCalls map[string]int
	}{
		{
			name: "the latest 200 capture is returned in the stored link form",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/postmortem", older)
				f.AddCapture("https://example.com/postmortem", latest)
			},
			url:       "https://example.com/postmortem",
			want:      "https://web.archive.org/web/20210325170405/https://example.com/postmortem",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "the original is written as the archive reports it, port 80 included",
			setup:     func(f *archivetest.Fake) { f.AddCapture("http://example.com:80/x", older) },
			url:       "https://example.com/x",
			want:      "https://web.archive.org/web/20190301080000/http://example.com:80/x",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "a fragment is not part of the looked-up URL",
			setup:     func(f *archivetest.Fake) { f.AddCapture("https://example.com/x", older) },
			url:       "https://example.com/x#timeline",
			want:      "https://web.archive.org/web/20190301080000/https://example.com/x",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name: "a newer capture that was not a 200 is passed over",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/x", older)
				f.AddCaptureStatus("https://example.com/x", latest, http.StatusNotFound)
				f.AddCaptureStatus("https://example.com/x", latest.Add(time.Hour), 0)
			},
			url:       "https://example.com/x",
			want:      "https://web.archive.org/web/20190301080000/https://example.com/x",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "no capture gives an empty link and no error, without asking the availability API",
			setup:     func(f *archivetest.Fake) { f.AddCapture("https://example.com/other", older) },
			url:       "https://example.com/x",
			want:      "",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "only failed captures count as no capture",
			setup:     func(f *archivetest.Fake) { f.AddCaptureStatus("https://example.com/x", older, http.StatusBadGateway) },
			url:       "https://example.com/x",
			want:      "",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "every URL has a capture when the fake captures all",
			setup:     func(f *archivetest.Fake) { f.CaptureAll(latest) },
			url:       "http://status.example.com/incidents/x0ljvc9m1wxj",
			want:      "https://web.archive.org/web/20210325170405/http://status.example.com/incidents/x0ljvc9m1wxj",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name: "a blocked URL is a permanent failure and the availability API is not asked",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/x", older)
				f.Block("https://example.com/x")
			},
			url:       "https://example.com/x",
			wantKind:  casefile.KindPermanent,
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name: "a Wayback that answers 503 everywhere is a transient failure after the fallback",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/x", older)
				f.SetFailure(http.StatusServiceUnavailable)
			},
			url:       "https://example.com/x",
			wantKind:  casefile.KindTransient,
			wantCalls: map[string]int{archivetest.RouteCDX: 1, archivetest.RouteAvailable: 1},
		},
		{
			name: "a failing CDX falls back to the availability API, whose http link is normalised to https",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/x", older)
				f.AddCapture("https://example.com/x", latest)
				f.SetRouteFailure(archivetest.RouteCDX, http.StatusServiceUnavailable)
			},
			url:       "https://example.com/x",
			want:      "https://web.archive.org/web/20210325170405/https://example.com/x",
			wantCalls: map[string]int{archivetest.RouteCDX: 1, archivetest.RouteAvailable: 1},
		},
		{
			name: "an empty availability answer after a CDX failure is not proof of absence",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/x", older)
				f.SetRouteFailure(archivetest.RouteCDX, http.StatusGatewayTimeout)
				f.SetAvailabilityEmpty(true)
			},
			url:       "https://example.com/x",
			wantKind:  casefile.KindTransient,
			wantCalls: map[string]int{archivetest.RouteCDX: 1, archivetest.RouteAvailable: 1},
		},
		{
			name: "a 429 is transient and makes no fallback call",
			setup: func(f *archivetest.Fake) {
				f.AddCapture("https://example.com/x", older)
				f.SetRouteFailure(archivetest.RouteCDX, http.StatusTooManyRequests)
			},
			url:       "https://example.com/x",
			wantKind:  casefile.KindTransient,
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "a link that is already a capture is normalised without a call",
			url:       "http://web.archive.org/web/20130919044612id_/http://example.com:80/x",
			want:      "https://web.archive.org/web/20130919044612/http://example.com:80/x",
			wantCalls: map[string]int{},
		},
		{
			name:      "a calendar link is looked up like any other page",
			url:       "https://web.archive.org/web/*/https://example.com/x",
			want:      "",
			wantCalls: map[string]int{archivetest.RouteCDX: 1},
		},
		{
			name:      "a URL that is not http(s) is invalid and makes no call",
			url:       "ftp://example.com/x",
			wantKind:  casefile.KindInvalid,
			wantCalls: map[string]int{},
		},
		{
			name:      "a relative URL is invalid and makes no call",
			url:       "/incidents/x",
			wantKind:  casefile.KindInvalid,
			wantCalls: map[string]int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := archivetest.NewFake()
			if tt.setup != nil {
				tt.setup(fake)
			}
			srv := httptest.NewServer(fake)
			defer srv.Close()

			got, err := newClient(srv).Lookup(context.Background(), tt.url)
			if kind := casefile.KindOf(err); kind != tt.wantKind {
				t.Fatalf("Lookup(%q) error = %v (kind %v), want kind %v", tt.url, err, kind, tt.wantKind)
			}
			if got != tt.want {
				t.Errorf("Lookup(%q) = %q, want %q", tt.url, got, tt.want)
			}
			if diff := cmp.Diff(tt.wantCalls, fake.Calls()); diff != "" {
				t.Errorf("calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookupErrorMessages(t *testing.T) {
	fake := archivetest.NewFake()
	fake.SetRouteFailure(archivetest.RouteCDX, http.StatusServiceUnavailable)
	fake.SetRouteFailure(archivetest.RouteAvailable, http.StatusBadGateway)
	srv := httptest.NewServer(fake)
	defer srv.Close()

	_, err := newClient(srv).Lookup(context.Background(), "https://example.com/x")
	want := "wayback lookup https://example.com/x: cdx: answered 503 Service Unavailable; " +
		"availability fallback: answered 502 Bad Gateway"
	if err == nil || err.Error() != want {
		t.Errorf("Lookup() error = %v, want %q", err, want)
	}
}

func TestLookupHangingWaybackIsBoundedByContext(t *testing.T) {
	fake := archivetest.NewFake()
	fake.AddCapture("https://example.com/x", older)
	fake.SetLatency(time.Minute)
	srv := httptest.NewServer(fake)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	got, err := newClient(srv).Lookup(ctx, "https://example.com/x")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Lookup() took %v, want it to end with the context", elapsed)
	}
	if got != "" || casefile.KindOf(err) != casefile.KindTransient || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lookup() = %q, %v; want a transient error matching context.DeadlineExceeded", got, err)
	}
	if diff := cmp.Diff(map[string]int{archivetest.RouteCDX: 1}, fake.Calls()); diff != "" {
		t.Errorf("no fallback after the context ended: calls mismatch (-want +got):\n%s", diff)
	}
}

func TestLookupClientTimeoutFallsBack(t *testing.T) {
	// CDX hangs longer than the HTTP client's timeout while ctx is still
	// alive, so the availability API is asked.
	fake := archivetest.NewFake()
	fake.AddCapture("https://example.com/x", older)
	slowCDX := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/cdx/search/cdx" {
			select {
			case <-time.After(time.Minute):
			case <-r.Context().Done():
				return
			}
		}
		fake.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(slowCDX)
	defer srv.Close()
	hc := srv.Client()
	hc.Timeout = 100 * time.Millisecond

	c := archive.New(archive.Config{BaseURL: srv.URL, HTTPClient: hc, MinInterval: -1})
	got, err := c.Lookup(context.Background(), "https://example.com/x")
	want := "https://web.archive.org/web/20190301080000/https://example.com/x"
	if err != nil || got != want {
		t.Errorf("Lookup() = %q, %v; want %q", got, err, want)
	}
}

// waybackAnswers serves fixed CDX and availability answers.
func waybackAnswers(cdxStatus int, cdxBody string, availBody string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cdx/search/cdx":
			w.WriteHeader(cdxStatus)
			w.Write([]byte(cdxBody))
		case "/wayback/available":
			w.Write([]byte(availBody))
		default:
			http.NotFound(w, r)
		}
	})
}

func TestLookupAnswerQuirks(t *testing.T) {
	const noSnapshot = `{"url":"https://example.com/x","archived_snapshots":{}}`
	tests := []struct {
		name      string
		cdxStatus int
		cdxBody   string
		availBody string
		want      string
		wantKind  casefile.Kind
	}{
		{
			name:      "an empty array means no capture",
			cdxStatus: 200, cdxBody: "[]\n",
		},
		{
			name:      "a header-only array means no capture",
			cdxStatus: 200, cdxBody: `[["timestamp","original","statuscode"]]`,
		},
		{
			name:      "adjacent duplicate rows give one link",
			cdxStatus: 200,
			cdxBody: `[["timestamp","original","statuscode"],
				["20210325170405","https://example.com/x","200"],
				["20210325170405","https://example.com/x","200"]]`,
			want: "https://web.archive.org/web/20210325170405/https://example.com/x",
		},
		{
			name:      "rows with dash values are skipped",
			cdxStatus: 200,
			cdxBody: `[["timestamp","original","statuscode"],
				["20190301080000","https://example.com/x","200"],
				["20210325170405","https://example.com/x","-"],
				["-","https://example.com/x","200"]]`,
			want: "https://web.archive.org/web/20190301080000/https://example.com/x",
		},
		{
			name:      "the latest row wins whatever the order",
			cdxStatus: 200,
			cdxBody: `[["timestamp","original","statuscode"],
				["20210325170405","http://example.com:80/x","200"],
				["20190301080000","https://example.com/x","200"]]`,
			want: "https://web.archive.org/web/20210325170405/http://example.com:80/x",
		},
		{
			name:      "columns are read by the header when the server ignores fl",
			cdxStatus: 200,
			cdxBody: `[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],
				["com,example)/x","20210325170405","https://example.com/x","text/html","200","Q4YULN754FHV2U6Q5JUT6Q2P57WEWNNY","1415"]]`,
			want: "https://web.archive.org/web/20210325170405/https://example.com/x",
		},
		{
			name:      "a resume key after an empty row is ignored",
			cdxStatus: 200,
			cdxBody: `[["timestamp","original","statuscode"],
				["20210325170405","https://example.com/x","200"],
				[],
				["com%2Cexample%29%2Fx+20210325170405"]]`,
			want: "https://web.archive.org/web/20210325170405/https://example.com/x",
		},
		{
			name:      "rows without a header are read in the order asked",
			cdxStatus: 200, cdxBody: `[["20210325170405","https://example.com/x","200"]]`,
			want: "https://web.archive.org/web/20210325170405/https://example.com/x",
		},
		{
			name:      "an HTML answer is transient when the availability API has nothing",
			cdxStatus: 200, cdxBody: "<html><body>Wayback Machine is down</body></html>",
			availBody: noSnapshot,
			wantKind:  casefile.KindTransient,
		},
		{
			name:      "an empty answer is transient",
			cdxStatus: 200, cdxBody: "",
			availBody: noSnapshot,
			wantKind:  casefile.KindTransient,
		},
		{
			name:      "an answer over 1 MiB is transient",
			cdxStatus: 200, cdxBody: "[" + strings.Repeat(" ", 1<<20) + "]",
			availBody: noSnapshot,
			wantKind:  casefile.KindTransient,
		},
		{
			name:      "a robots exclusion is permanent",
			cdxStatus: 403, cdxBody: "org.archive.wayback.exception.RobotAccessControlException: Blocked By Robots",
			wantKind: casefile.KindPermanent,
		},
		{
			name:      "a 403 without an exception name is transient",
			cdxStatus: 403, cdxBody: "<html>Forbidden</html>",
			availBody: noSnapshot,
			wantKind:  casefile.KindTransient,
		},
		{
			name:      "a refused query is permanent",
			cdxStatus: 400, cdxBody: "Invalid filter",
			wantKind: casefile.KindPermanent,
		},
		{
			name:      "the availability API's numeric status is accepted",
			cdxStatus: 502,
			availBody: `{"archived_snapshots":{"closest":{"status":200,"available":true,
				"url":"http://web.archive.org/web/20210325170405/https://example.com/x","timestamp":"20210325170405"}}}`,
			want: "https://web.archive.org/web/20210325170405/https://example.com/x",
		},
		{
			name:      "an availability snapshot that is not available does not count",
			cdxStatus: 502,
			availBody: `{"archived_snapshots":{"closest":{"status":"200","available":false,
				"url":"http://web.archive.org/web/20210325170405/https://example.com/x","timestamp":"20210325170405"}}}`,
			wantKind: casefile.KindTransient,
		},
		{
			name:      "an availability link that is not a capture is transient",
			cdxStatus: 502,
			availBody: `{"archived_snapshots":{"closest":{"status":"200","available":true,
				"url":"http://web.archive.org/web/*/https://example.com/x","timestamp":"20210325170405"}}}`,
			wantKind: casefile.KindTransient,
		},
		{
			name:      "an availability answer that is not JSON is transient",
			cdxStatus: 502, availBody: "<html></html>",
			wantKind: casefile.KindTransient,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(waybackAnswers(tt.cdxStatus, tt.cdxBody, tt.availBody))
			defer srv.Close()
			got, err := newClient(srv).Lookup(context.Background(), "https://example.com/x")
			if kind := casefile.KindOf(err); kind != tt.wantKind {
				t.Fatalf("Lookup() error = %v (kind %v), want kind %v", err, kind, tt.wantKind)
			}
			if got != tt.want {
				t.Errorf("Lookup() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLookupRequest(t *testing.T) {
	var (
		mu     sync.Mutex
		gotReq []string
		query  url.Values
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		gotReq = append(gotReq, r.Method+" "+r.URL.Path+" "+r.Header.Get("User-Agent")+" "+r.Header.Get("Accept"))
		query = r.URL.Query()
		w.Write([]byte("[]"))
	}))
	defer srv.Close()

	c := archive.New(archive.Config{BaseURL: srv.URL + "/mirror/", HTTPClient: srv.Client(), MinInterval: -1})
	if _, err := c.Lookup(context.Background(), "https://example.com/a b?q=1&r=2"); err != nil {
		t.Fatal(err)
	}
	wantReq := []string{"GET /mirror/cdx/search/cdx casefile/0.1 (+https://github.com/incidentlib/casefile) application/json"}
	if diff := cmp.Diff(wantReq, gotReq); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	wantQuery := url.Values{
		"url":    {"https://example.com/a%20b?q=1&r=2"},
		"fl":     {"timestamp,original,statuscode"},
		"filter": {"statuscode:200"},
		"limit":  {"-1"},
		"output": {"json"},
	}
	if diff := cmp.Diff(wantQuery, query); diff != "" {
		t.Errorf("query mismatch (-want +got):\n%s", diff)
	}
}

func TestNewReadsBaseURLFromEnvironment(t *testing.T) {
	fake := archivetest.NewFake()
	fake.CaptureAll(latest)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	t.Setenv(archive.BaseURLEnv, srv.URL)

	got, err := archive.New(archive.Config{MinInterval: -1}).Lookup(context.Background(), "https://example.com/x")
	want := "https://web.archive.org/web/20210325170405/https://example.com/x"
	if err != nil || got != want {
		t.Errorf("Lookup() = %q, %v; want %q", got, err, want)
	}
}

func TestNewWithUnusableBaseURL(t *testing.T) {
	for _, base := range []string{"ftp://mirror.example", "not a url", "http://"} {
		_, err := archive.New(archive.Config{BaseURL: base}).Lookup(context.Background(), "https://example.com/x")
		if casefile.KindOf(err) != casefile.KindInvalid {
			t.Errorf("base %q: Lookup() error = %v, want kind invalid", base, err)
		}
	}
}

func TestLookupPausesAllCallsAfter429(t *testing.T) {
	fake := archivetest.NewFake()
	fake.AddCapture("https://example.com/x", older)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := archive.New(archive.Config{
		BaseURL: srv.URL, HTTPClient: srv.Client(), MinInterval: -1,
		Now: func() time.Time { return now },
	})
	lookup := func() (string, error) { return c.Lookup(context.Background(), "https://example.com/x") }
	want := "https://web.archive.org/web/20190301080000/https://example.com/x"

	fake.SetFailure(http.StatusTooManyRequests)
	if _, err := lookup(); casefile.KindOf(err) != casefile.KindTransient {
		t.Fatalf("first 429: error = %v, want transient", err)
	}
	fake.SetFailure(0)

	steps := []struct {
		name      string
		advance   time.Duration
		fail      int
		want      string
		wantKind  casefile.Kind
		wantCalls int // total CDX calls so far
	}{
		{name: "during the first pause no call is made", advance: 59 * time.Second, wantKind: casefile.KindTransient, wantCalls: 1},
		{name: "after 60 s calls resume and a second 429 pauses again", advance: 2 * time.Second, fail: 429, wantKind: casefile.KindTransient, wantCalls: 2},
		{name: "the second pause is twice as long", advance: 119 * time.Second, wantKind: casefile.KindTransient, wantCalls: 2},
		{name: "after the second pause calls resume", advance: 2 * time.Second, want: want, wantCalls: 3},
		{name: "a success resets the doubling", advance: 0, fail: 429, wantKind: casefile.KindTransient, wantCalls: 4},
		{name: "so the next pause is 60 s again", advance: 61 * time.Second, want: want, wantCalls: 5},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		fake.SetFailure(s.fail)
		got, err := lookup()
		if kind := casefile.KindOf(err); kind != s.wantKind || got != s.want {
			t.Errorf("%s: Lookup() = %q, %v; want %q, kind %v", s.name, got, err, s.want, s.wantKind)
		}
		if n := fake.Calls()[archivetest.RouteCDX]; n != s.wantCalls {
			t.Errorf("%s: %d CDX calls, want %d", s.name, n, s.wantCalls)
		}
	}
}

func TestLookupSpacesCalls(t *testing.T) {
	fake := archivetest.NewFake()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := archive.New(archive.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), MinInterval: 40 * time.Millisecond})

	start := time.Now()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Lookup(context.Background(), "https://example.com/x"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if elapsed := time.Since(start); elapsed < 80*time.Millisecond {
		t.Errorf("3 lookups took %v, want at least 2 intervals of 40ms", elapsed)
	}

	// A caller whose context ends while waiting for its turn gives up.
	c = archive.New(archive.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), MinInterval: time.Hour})
	if _, err := c.Lookup(context.Background(), "https://example.com/x"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Lookup(ctx, "https://example.com/x")
	if casefile.KindOf(err) != casefile.KindTransient || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lookup() while waiting for the limiter: error = %v, want transient deadline", err)
	}
}
