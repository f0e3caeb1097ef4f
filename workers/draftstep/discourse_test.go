package draftstep

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/incidentlib/casefile/crawl"
)

// TestDraftFetchesALongTopicsLaterPosts: a Discourse URL pointing at post
// 25 of a topic whose JSON carries only the first 20 posts makes the step
// ask for the others by id, and the official post 25 is read.
func TestDraftFetchesALongTopicsLaterPosts(t *testing.T) {
	page, err := os.ReadFile("../../extract/testdata/discourse/page.html")
	if err != nil {
		t.Fatal(err)
	}
	const official = "At 11:40 UTC the login queue drained after the session cache was rebuilt"
	post := func(i int) map[string]any {
		cooked, staff, user := "<p>Same here, still stuck in the queue.</p>", false, fmt.Sprintf("player%d", i)
		if i == 25 {
			cooked, staff, user = "<p>"+official+".</p>", true, "GM_Halden"
		}
		return map[string]any{"id": 90000 + i, "username": user, "created_at": fmt.Sprintf("2017-10-27T%02d:%02d:00.000Z", 9+i/60, i%60),
			"cooked": cooked, "post_number": i, "post_type": 1, "staff": staff, "topic_id": 26296, "deleted_at": nil}
	}
	var (
		mu    sync.Mutex
		asked []string
	)
	mux := http.NewServeMux()
	mux.HandleFunc("/t/resolved-login-queue-outage-27-10-2017/26296/25", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	mux.HandleFunc("/t/resolved-login-queue-outage-27-10-2017/26296.json", func(w http.ResponseWriter, r *http.Request) {
		var stream []int
		var posts []map[string]any
		for i := 1; i <= 30; i++ {
			stream = append(stream, 90000+i)
			if i <= 20 {
				posts = append(posts, post(i))
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": 26296, "title": "Resolved: login queue outage 27-10-2017", "posts_count": 30,
			"post_stream": map[string]any{"stream": stream, "posts": posts}})
	})
	mux.HandleFunc("/t/26296/posts.json", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Query()["post_ids[]"]...)
		mu.Unlock()
		var posts []map[string]any
		for _, id := range r.URL.Query()["post_ids[]"] {
			var n int
			fmt.Sscan(id, &n)
			posts = append(posts, post(n-90000))
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": 26296, "post_stream": map[string]any{"posts": posts}})
	})
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		t.Setenv(k, "") // the fake is on loopback: dial it directly
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f, err := crawl.New(crawl.Config{AllowPrivate: true, IgnoreRobots: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := &Drafter{Fetcher: f, Log: slog.New(slog.DiscardHandler)}
	res, err := d.Draft(context.Background(), srv.URL+"/t/resolved-login-queue-outage-27-10-2017/26296/25")
	if res.Page.Body == nil {
		t.Fatalf("Draft: %v", err)
	}
	if want := "90021 90022 90023 90024 90025 90026 90027 90028 90029 90030"; strings.Join(asked, " ") != want {
		t.Errorf("posts asked for: %v, want %s", asked, want)
	}
	sections, _ := json.Marshal(res.Document.Sections)
	if !strings.Contains(string(sections), official) {
		t.Errorf("sections %s: want the official post 25 read", sections)
	}
}
