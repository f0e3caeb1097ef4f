package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// longTopic is a topic JSON whose stream lists n posts and whose posts
// carry the first carried of them.
func longTopic(n, carried int) []byte {
	var stream, posts []string
	for i := 1; i <= n; i++ {
		stream = append(stream, fmt.Sprint(90000+i))
		if i <= carried {
			posts = append(posts, fmt.Sprintf(`{"id": %d, "username": "player%d", "created_at": "2017-10-27T09:%02d:00.000Z", "cooked": "<p>Still cannot log in here.</p>", "post_number": %d, "post_type": 1, "staff": false, "topic_id": 26296, "deleted_at": null}`, 90000+i, i, i%60, i))
		}
	}
	return []byte(fmt.Sprintf(`{"id": 26296, "title": "Resolved: login queue outage 27-10-2017", "slug": "resolved-login-queue-outage-27-10-2017", "posts_count": %d,
 "post_stream": {"stream": [%s], "posts": [%s]}}`, n, strings.Join(stream, ", "), strings.Join(posts, ",\n")))
}

func TestMoreURLsAsksForLaterPosts(t *testing.T) {
	const topic = "https://forums.starfall.example/t/resolved-login-queue-outage-27-10-2017/26296"
	ids := func(from, to int) string {
		var parts []string
		for i := from; i <= to; i++ {
			parts = append(parts, fmt.Sprintf("post_ids%%5B%%5D=%d", 90000+i))
		}
		return "https://forums.starfall.example/t/26296/posts.json?" + strings.Join(parts, "&")
	}
	tests := []struct {
		name, page string
		extra      map[string][]byte
		want       []string
	}{
		{"every post carried", topic, map[string][]byte{topic + ".json": longTopic(20, 20)}, nil},
		{"45 posts, 20 carried: two requests in stream order", topic, map[string][]byte{topic + ".json": longTopic(45, 20)}, []string{ids(21, 40), ids(41, 45)}},
		{"the post the URL points at first", topic + "/43", map[string][]byte{topic + ".json": longTopic(45, 20)}, []string{ids(41, 45), ids(21, 40)}},
		{"at most 200 more posts", topic, map[string][]byte{topic + ".json": longTopic(500, 20)}, func() []string {
			var out []string
			for i := 21; i < 221; i += 20 {
				out = append(out, ids(i, i+19))
			}
			return out
		}()},
		{"no topic JSON fetched", topic, nil, nil},
		{"not a Discourse topic", "https://blog.example.test/2026/outage", map[string][]byte{topic + ".json": longTopic(45, 20)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, MoreURLs(tt.page, tt.extra)); diff != "" {
				t.Errorf("MoreURLs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscourseReadsLaterPostsFetchedByID(t *testing.T) {
	p := mustLoadPage(t, filepath.Join("testdata", "discourse"))
	const official = "At 11:40 UTC the login queue drained after the session cache was rebuilt"
	p.URL = "https://forums.starfall.example/t/resolved-login-queue-outage-27-10-2017/26296/25"
	p.FinalURL = p.URL
	topicURL := "https://forums.starfall.example/t/resolved-login-queue-outage-27-10-2017/26296.json"
	p.Extra = map[string][]byte{topicURL: longTopic(30, 20)}
	before, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	more := MoreURLs(p.URL, p.Extra)
	if len(more) != 1 {
		t.Fatalf("MoreURLs = %v, want one request", more)
	}
	var posts []string
	for i := 21; i <= 30; i++ {
		cooked, staff, user := "<p>Same here.</p>", false, fmt.Sprintf("player%d", i)
		if i == 25 {
			cooked, staff, user = "<p>"+official+".</p>", true, "GM_Halden"
		}
		b, _ := json.Marshal(map[string]any{"id": 90000 + i, "username": user, "created_at": "2017-10-27T11:45:00.000Z",
			"cooked": cooked, "post_number": i, "post_type": 1, "staff": staff, "topic_id": 26296, "deleted_at": nil})
		posts = append(posts, string(b))
	}
	p.Extra[more[0]] = []byte(`{"id": 26296, "post_stream": {"posts": [` + strings.Join(posts, ",") + `]}}`)
	after, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	text := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if strings.Contains(text(before.Sections), official) {
		t.Fatal("the later post is read without being fetched: the test proves nothing")
	}
	if !strings.Contains(text(after.Sections), official) {
		t.Errorf("sections %s: want the official post 25, fetched by id, read", text(after.Sections))
	}
}
