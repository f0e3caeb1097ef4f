package crawl

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
)

func TestLoadSourcesExample(t *testing.T) {
	data, err := os.ReadFile("../docs/sources.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := LoadSources(data, "sources.example.yaml")
	if err != nil {
		t.Fatalf("the shipped example does not load: %v", err)
	}
	gh, err := FindSource(srcs, "githubstatus")
	if err != nil || !gh.Enabled || !gh.Builtin || gh.Adapter != "statuspage" {
		t.Errorf("githubstatus: %+v, %v: want the built-in, enabled", gh, err)
	}
	ex, err := FindSource(srcs, "examplestatus")
	if err != nil || !ex.Enabled || ex.Jitter != 15*time.Minute || ex.Delay != DefaultDelay || ex.Schedule != "5 */3 * * *" {
		t.Errorf("examplestatus: %+v, %v", ex, err)
	}
	for _, name := range []string{"google-cloud", "example-engineering"} {
		if s, err := FindSource(srcs, name); err != nil || s.Enabled {
			t.Errorf("%s: %+v, %v: want it off", name, s, err)
		}
	}
}

func TestLoadSourcesBuiltinsOff(t *testing.T) {
	srcs, err := LoadSources(nil, "none")
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != len(BuiltinSources) {
		t.Fatalf("%d sources, want the %d built-ins", len(srcs), len(BuiltinSources))
	}
	for _, s := range srcs {
		if s.Enabled || !s.Builtin || !KnownAdapter(s.Adapter) || s.Next(time.Now()).IsZero() {
			t.Errorf("built-in %+v: want off, with an adapter and a schedule", s)
		}
	}
}

func TestLoadSourcesInvalid(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"yaml syntax", "sources:\n  - name: a\n    url: [\n", "s.yaml: "},
		{"top-level field", "source:\n  - name: a\n", `s.yaml:1: unknown field "source"`},
		{"not a list", "sources:\n  name: a\n", "s.yaml:2: sources must be a list"},
		{"unknown field", "sources:\n  - name: a\n    adapter: feed\n    url: https://a.example/feed\n    enable: true\n", `s.yaml:5: unknown field "enable"`},
		{"no name", "sources:\n  - adapter: feed\n    url: https://a.example/\n", "s.yaml:2: a source needs a name"},
		{"bad name", "sources:\n  - name: My Feed\n", `s.yaml:2: name "My Feed"`},
		{"unknown adapter", "sources:\n  - name: a\n    adapter: forum\n    url: https://a.example/\n", `s.yaml:3: source "a": adapter "forum" is not an adapter`},
		{"bad url", "sources:\n  - name: a\n    adapter: feed\n    url: ftp://a.example/\n", `s.yaml:4: source "a": url "ftp://a.example/" is not an http(s) URL`},
		{"bad schedule", "sources:\n  - name: a\n    adapter: feed\n    url: https://a.example/\n    schedule: \"61 * * * *\"\n", `s.yaml:5: source "a": schedule "61 * * * *"`},
		{"bad jitter", "sources:\n  - name: a\n    adapter: feed\n    url: https://a.example/\n    jitter: soon\n", `s.yaml:5: source "a": jitter "soon" is not a duration`},
		{"bad enabled", "sources:\n  - name: a\n    adapter: feed\n    url: https://a.example/\n    enabled: maybe\n", `s.yaml:5: source "a": enabled "maybe": give true or false`},
		{"no adapter", "sources:\n  - name: a\n    url: https://a.example/\n", `s.yaml:2: source "a" needs an adapter`},
		{"no url", "sources:\n  - name: a\n    adapter: list\n", `s.yaml:2: source "a" needs a url`},
		{"twice", "sources:\n  - name: a\n    adapter: list\n    url: https://a.example/l.md\n  - name: a\n", `s.yaml:5: source "a" is already named on line 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSources([]byte(tt.file), "s.yaml")
			if !errors.Is(err, casefile.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line containing %q", msg, tt.want)
			}
		})
	}
}

func TestSourceNextJitter(t *testing.T) {
	s := Source{Name: "a", Schedule: "0 * * * *", Jitter: 10 * time.Minute}
	at := time.Date(2026, 12, 1, 15, 20, 0, 0, time.UTC)
	n := s.Next(at)
	if n.Before(time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)) || !n.Before(time.Date(2026, 12, 1, 16, 10, 0, 0, time.UTC)) {
		t.Errorf("next %v: want within the jitter after 16:00", n)
	}
	if again := s.Next(at); !again.Equal(n) {
		t.Errorf("next %v then %v: want the same time for the same source and slot", n, again)
	}
	b := Source{Name: "b", Schedule: "0 * * * *", Jitter: 10 * time.Minute}
	c := Source{Name: "c", Schedule: "0 * * * *", Jitter: 10 * time.Minute}
	if n.Equal(b.Next(at)) && n.Equal(c.Next(at)) {
		t.Errorf("three sources on one slot start at the same time %v: want them spread", n)
	}
}
