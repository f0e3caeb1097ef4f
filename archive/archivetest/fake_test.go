package archivetest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile/archive/archivetest"
)

var (
	t1 = time.Date(2019, 3, 1, 8, 0, 0, 0, time.UTC)
	t2 = time.Date(2019, 3, 1, 20, 30, 0, 0, time.UTC)
	t3 = time.Date(2021, 3, 25, 17, 4, 5, 0, time.UTC)
)

// serve runs one request through f and returns the status, the body and
// the headers of the answer.
func serve(f *archivetest.Fake, target string) (int, string, http.Header) {
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Code, rec.Body.String(), rec.Header()
}

// sample is a fake with three 200 captures of one page, a 404 and a
// revisit, and a capture of another page.
func sample() *archivetest.Fake {
	f := archivetest.NewFake()
	f.AddCapture("https://example.com/x", t1)
	f.AddCapture("http://www.example.com:80/x", t2)
	f.AddCaptureStatus("https://example.com/x", t2.Add(time.Hour), http.StatusNotFound)
	f.AddCaptureStatus("https://example.com/x", t2.Add(2*time.Hour), 0)
	f.AddCapture("https://example.com/x", t3)
	f.AddCapture("https://example.com/y", t3)
	return f
}

func TestCDX(t *testing.T) {
	const fl = "&fl=timestamp,original,statuscode"
	tests := []struct {
		name       string
		setup      func(f *archivetest.Fake)
		query      string
		wantStatus int
		wantBody   string
	}{
		{
			name:       "JSON output has a header row and every field by default",
			query:      "url=example.com/y&output=json",
			wantStatus: 200,
			wantBody:   `[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],["com,example)/y","20210325170405","https://example.com/y","text/html","200","L3EKODIP6CFRPM52C266JENGOI37S2FA","921"]]` + "\n",
		},
		{
			name:       "captures of scheme, www and port variants are one page, sorted by time",
			query:      "url=https://example.com/x&output=json" + fl,
			wantStatus: 200,
			wantBody: `[["timestamp","original","statuscode"],["20190301080000","https://example.com/x","200"],` +
				`["20190301203000","http://www.example.com:80/x","200"],["20190301213000","https://example.com/x","404"],` +
				`["20190301223000","https://example.com/x","-"],["20210325170405","https://example.com/x","200"]]` + "\n",
		},
		{
			name:       "text output is one space-separated line per row without a header",
			query:      "url=example.com/x&fl=timestamp,statuscode&limit=2",
			wantStatus: 200,
			wantBody:   "20190301080000 200\n20190301203000 200\n",
		},
		{
			name:       "a filter keeps the matching rows and limit -1 the last",
			query:      "url=example.com/x&output=json&filter=statuscode:200&limit=-1" + fl,
			wantStatus: 200,
			wantBody:   `[["timestamp","original","statuscode"],["20210325170405","https://example.com/x","200"]]` + "\n",
		},
		{
			name:       "filters repeat, a negated one drops revisits, and the regex must match the whole field",
			query:      "url=example.com/x&fl=timestamp,mimetype&filter=!mimetype:warc/revisit&filter=statuscode:[24]0",
			wantStatus: 200,
			wantBody:   "",
		},
		{
			name:       "a status class filter as used to verify a capture",
			query:      "url=example.com/x&fl=timestamp,mimetype&filter=!mimetype:warc/revisit&filter=statuscode:[24]..",
			wantStatus: 200,
			wantBody:   "20190301080000 text/html\n20190301203000 text/html\n20190301213000 text/html\n20210325170405 text/html\n",
		},
		{
			name:       "from and to are inclusive and padded",
			query:      "url=example.com/x&fl=timestamp&from=2019030120&to=2019",
			wantStatus: 200,
			wantBody:   "20190301203000\n20190301213000\n20190301223000\n",
		},
		{
			name:       "sort=closest orders by distance to closest",
			query:      "url=example.com/x&fl=timestamp&filter=statuscode:200&sort=closest&closest=20190302&limit=2",
			wantStatus: 200,
			wantBody:   "20190301203000\n20190301080000\n",
		},
		{
			name:       "closest without sort=closest seeks to captures at or after it",
			query:      "url=example.com/x&fl=timestamp&closest=20190301220000",
			wantStatus: 200,
			wantBody:   "20190301223000\n20210325170405\n",
		},
		{
			name:       "collapse on the first 8 timestamp digits keeps one row a day",
			query:      "url=example.com/x&fl=timestamp&collapse=timestamp:8",
			wantStatus: 200,
			wantBody:   "20190301080000\n20210325170405\n",
		},
		{
			name:       "a prefix query spans pages",
			query:      "url=example.com/*&fl=original&filter=statuscode:200&collapse=urlkey",
			wantStatus: 200,
			wantBody:   "https://example.com/x\nhttps://example.com/y\n",
		},
		{
			name:       "no match is an empty JSON array",
			query:      "url=example.com/z&output=json",
			wantStatus: 200,
			wantBody:   "[]\n",
		},
		{
			name:       "CaptureAll adds one capture of any URL as asked",
			setup:      func(f *archivetest.Fake) { f.CaptureAll(t3) },
			query:      "url=http://status.example.com/incidents/x0ljvc9m1wxj&output=json" + fl,
			wantStatus: 200,
			wantBody:   `[["timestamp","original","statuscode"],["20210325170405","http://status.example.com/incidents/x0ljvc9m1wxj","200"]]` + "\n",
		},
		{
			name:       "CaptureAll gives a scheme-less URL the http scheme",
			setup:      func(f *archivetest.Fake) { f.CaptureAll(t3) },
			query:      "url=status.example.com/a&fl=original",
			wantStatus: 200,
			wantBody:   "http://status.example.com/a\n",
		},
		{
			name:       "a blocked URL answers 403 with the access-control exception",
			setup:      func(f *archivetest.Fake) { f.Block("http://example.com/x") },
			query:      "url=https://www.example.com/x&output=json",
			wantStatus: 403,
			wantBody:   "org.archive.wayback.exception.AdministrativeAccessControlException: Blocked Site Error\n",
		},
		{
			name:       "a bad filter regex is a 400",
			query:      "url=example.com/x&filter=statuscode:(",
			wantStatus: 400,
			wantBody:   "Invalid filter regex: (\n",
		},
		{
			name:       "an unknown field is a 400",
			query:      "url=example.com/x&fl=timestamp,size",
			wantStatus: 400,
			wantBody:   "Unknown field: size\n",
		},
		{
			name:       "a bad limit is a 400",
			query:      "url=example.com/x&limit=latest",
			wantStatus: 400,
			wantBody:   "Invalid limit: latest\n",
		},
		{
			name:       "a missing url is a 400",
			query:      "output=json",
			wantStatus: 400,
			wantBody:   "No url specified\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := sample()
			if tt.setup != nil {
				tt.setup(f)
			}
			status, body, _ := serve(f, "/cdx/search/cdx?"+tt.query)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.wantBody, body); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCDXDuplicatesAndRevisits(t *testing.T) {
	f := archivetest.NewFake()
	f.AddCapture("https://example.com/x", t1)
	f.AddCapture("https://example.com/x", t1)
	f.AddCaptureStatus("https://example.com/x", t2, 0)
	_, body, _ := serve(f, "/cdx/search/cdx?url=example.com/x&fl=timestamp,mimetype,statuscode,length")
	want := "20190301080000 text/html 200 921\n20190301080000 text/html 200 921\n20190301203000 warc/revisit - -\n"
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("body mismatch (-want +got):\n%s", diff)
	}
}

func TestAvailable(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(f *archivetest.Fake)
		query    string
		wantBody string
	}{
		{
			name:     "without a timestamp the latest 200 capture is named on an http link",
			query:    "url=example.com/x",
			wantBody: `{"url":"example.com/x","archived_snapshots":{"closest":{"status":"200","available":true,"url":"http://web.archive.org/web/20210325170405/https://example.com/x","timestamp":"20210325170405"}}}` + "\n",
		},
		{
			name:     "a timestamp selects the nearest 200 capture and is echoed",
			query:    "url=example.com/x&timestamp=20190301220000",
			wantBody: `{"url":"example.com/x","timestamp":"20190301220000","archived_snapshots":{"closest":{"status":"200","available":true,"url":"http://web.archive.org/web/20190301203000/http://www.example.com:80/x","timestamp":"20190301203000"}}}` + "\n",
		},
		{
			name:     "an unknown URL has empty snapshots",
			query:    "url=example.com/z",
			wantBody: `{"url":"example.com/z","archived_snapshots":{}}` + "\n",
		},
		{
			name:     "the empty-answer knob hides known captures",
			setup:    func(f *archivetest.Fake) { f.SetAvailabilityEmpty(true) },
			query:    "url=example.com/x",
			wantBody: `{"url":"example.com/x","archived_snapshots":{}}` + "\n",
		},
		{
			name:     "a blocked URL has empty snapshots",
			setup:    func(f *archivetest.Fake) { f.Block("https://example.com/x") },
			query:    "url=example.com/x",
			wantBody: `{"url":"example.com/x","archived_snapshots":{}}` + "\n",
		},
		{
			name:     "CaptureAll answers for any URL",
			setup:    func(f *archivetest.Fake) { f.CaptureAll(t1) },
			query:    "url=http://example.org/a",
			wantBody: `{"url":"http://example.org/a","archived_snapshots":{"closest":{"status":"200","available":true,"url":"http://web.archive.org/web/20190301080000/http://example.org/a","timestamp":"20190301080000"}}}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := sample()
			if tt.setup != nil {
				tt.setup(f)
			}
			status, body, _ := serve(f, "/wayback/available?"+tt.query)
			if status != http.StatusOK {
				t.Errorf("status = %d, want 200", status)
			}
			if diff := cmp.Diff(tt.wantBody, body); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWeb(t *testing.T) {
	type result struct {
		Status          int
		MementoDatetime string
		Location        string
	}
	tests := []struct {
		name   string
		setup  func(f *archivetest.Fake)
		target string
		want   result
	}{
		{
			name:   "a capture at exactly the timestamp answers 200 with Memento-Datetime",
			target: "/web/20210325170405/https://example.com/x",
			want:   result{Status: 200, MementoDatetime: "Thu, 25 Mar 2021 17:04:05 GMT"},
		},
		{
			name:   "the id_ form of a capture answers 200 too",
			target: "/web/20190301203000id_/http://www.example.com:80/x",
			want:   result{Status: 200, MementoDatetime: "Fri, 01 Mar 2019 20:30:00 GMT"},
		},
		{
			name:   "a collapsed scheme slash still finds the capture",
			target: "/web/20190301080000/https:/example.com/x",
			want:   result{Status: 200, MementoDatetime: "Fri, 01 Mar 2019 08:00:00 GMT"},
		},
		{
			name:   "another timestamp redirects to the nearest 200 capture",
			target: "/web/20190301223000if_/https://example.com/x",
			want:   result{Status: 302, Location: "/web/20190301203000if_/http://www.example.com:80/x"},
		},
		{
			name:   "a partial timestamp redirects",
			target: "/web/2021/https://example.com/x",
			want:   result{Status: 302, Location: "/web/20210325170405/https://example.com/x"},
		},
		{
			name:   "a URL without captures is a 404",
			target: "/web/20210325170405/https://example.com/z",
			want:   result{Status: 404},
		},
		{
			name:   "a calendar page answers without Memento-Datetime",
			target: "/web/*/https://example.com/x",
			want:   result{Status: 200},
		},
		{
			name:   "a blocked URL is a 403",
			setup:  func(f *archivetest.Fake) { f.Block("https://example.com/x") },
			target: "/web/20210325170405/https://example.com/x",
			want:   result{Status: 403},
		},
		{
			name:   "CaptureAll serves any URL at its timestamp",
			setup:  func(f *archivetest.Fake) { f.CaptureAll(t1) },
			target: "/web/20190301080000/http://example.org/a?b=1",
			want:   result{Status: 200, MementoDatetime: "Fri, 01 Mar 2019 08:00:00 GMT"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := sample()
			if tt.setup != nil {
				tt.setup(f)
			}
			status, _, h := serve(f, tt.target)
			got := result{Status: status, MementoDatetime: h.Get("Memento-Datetime"), Location: h.Get("Location")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GET %s mismatch (-want +got):\n%s", tt.target, diff)
			}
		})
	}
}

func TestFailuresAndCalls(t *testing.T) {
	f := sample()
	f.SetRouteFailure(archivetest.RouteCDX, http.StatusServiceUnavailable)

	type answer struct {
		Status     int
		RetryAfter string
	}
	var got []answer
	for _, target := range []string{
		"/cdx/search/cdx?url=example.com/x", // 503: the route fails
		"/wayback/available?url=example.com/x",
		"/nowhere",
	} {
		status, _, h := serve(f, target)
		got = append(got, answer{status, h.Get("Retry-After")})
	}
	f.SetFailure(http.StatusTooManyRequests)
	status, _, h := serve(f, "/wayback/available?url=example.com/x")
	got = append(got, answer{status, h.Get("Retry-After")})
	status, _, _ = serve(f, "/cdx/search/cdx?url=example.com/x") // the route failure wins
	got = append(got, answer{Status: status})
	f.SetFailure(0)
	f.SetRouteFailure(archivetest.RouteCDX, 0)
	status, _, _ = serve(f, "/cdx/search/cdx?url=example.com/x")
	got = append(got, answer{Status: status})

	want := []answer{{503, ""}, {200, ""}, {404, ""}, {429, ""}, {503, ""}, {200, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
	wantCalls := map[string]int{archivetest.RouteCDX: 3, archivetest.RouteAvailable: 2, archivetest.RouteUnknown: 1}
	if diff := cmp.Diff(wantCalls, f.Calls()); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
}

func TestLatencyEndsWithTheRequest(t *testing.T) {
	f := sample()
	f.SetLatency(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	rec := httptest.NewRecorder()
	start := time.Now()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/cdx/search/cdx?url=example.com/x", nil).WithContext(ctx))
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("ServeHTTP took %v, want it to return when the request ends", elapsed)
	}
	if rec.Body.Len() != 0 {
		t.Errorf("body = %q, want nothing written", rec.Body.String())
	}

	f.SetLatency(20 * time.Millisecond)
	start = time.Now()
	status, _, _ := serve(f, "/cdx/search/cdx?url=example.com/x")
	if elapsed := time.Since(start); status != 200 || elapsed < 20*time.Millisecond {
		t.Errorf("delayed call: status %d after %v, want 200 after at least 20ms", status, elapsed)
	}
}

func TestProxyFormRequest(t *testing.T) {
	// A forward proxy passes the request on in absolute form.
	f := sample()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/cdx/search/cdx?url=example.com/y&fl=timestamp", nil)
	f.ServeHTTP(rec, req)
	if diff := cmp.Diff("20210325170405\n", rec.Body.String()); diff != "" {
		t.Errorf("body mismatch (-want +got):\n%s", diff)
	}
}
