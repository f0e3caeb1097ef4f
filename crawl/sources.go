package crawl

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/casefile"
)

// Source is one place a scheduled crawl looks at for new postmortems.
type Source struct {
	// Name identifies the source in the store, in commands and in logs.
	Name string
	// Adapter is how the source is read: one of Adapters.
	Adapter string
	// URL is the source's address (a status page's root, a feed, a list).
	URL string
	// Schedule is a cron expression (five fields, or @hourly, @daily,
	// @every 6h) in UTC.
	Schedule string
	// Jitter spreads runs: each run starts up to Jitter after its time, by
	// an amount fixed for the source and the time (no two processes differ).
	Jitter time.Duration
	// Delay is the least time between two requests of a crawl to the
	// source's host.
	Delay time.Duration
	// Enabled sources run on their schedule; others only when named.
	Enabled bool
	// Builtin is true for the well-known sources casefile ships.
	Builtin bool

	schedule cron.Schedule
}

// Defaults of a source.
const (
	DefaultSchedule = "@every 6h"
	DefaultJitter   = 10 * time.Minute
	DefaultDelay    = time.Second
)

// BuiltinSources are well-known public sources, off until a sources file
// enables them by name (or `casefile crawl --once --source NAME` names one).
var BuiltinSources = []Source{
	{Name: "githubstatus", Adapter: "statuspage", URL: "https://www.githubstatus.com", Schedule: "17 */6 * * *"},
	{Name: "google-cloud", Adapter: "gcp", URL: "https://status.cloud.google.com/incidents.json", Schedule: "43 */6 * * *"},
	{Name: "cloudflare-blog", Adapter: "feed", URL: "https://blog.cloudflare.com/rss/", Schedule: "7 */12 * * *"},
	{Name: "github-blog", Adapter: "feed", URL: "https://github.blog/feed/", Schedule: "29 */12 * * *"},
	{Name: "danluu-post-mortems", Adapter: "list", URL: "https://raw.githubusercontent.com/danluu/post-mortems/master/README.md", Schedule: "0 5 * * 1"},
}

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// sourceName is what a source's name may be: it appears in commands and
// batch names.
var sourceName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// Next is the time of the source's next run after t: the schedule's next
// time plus the source's jitter for it.
func (s *Source) Next(t time.Time) time.Time {
	if s.schedule == nil {
		sch, err := cronParser.Parse(s.Schedule)
		if err != nil {
			return time.Time{}
		}
		s.schedule = sch
	}
	n := s.schedule.Next(t.UTC())
	if n.IsZero() || s.Jitter <= 0 {
		return n
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s %d", s.Name, n.Unix())
	return n.Add(time.Duration(h.Sum64() % uint64(s.Jitter)))
}

// LoadSources reads a sources file (name is used in messages; empty data
// gives the built-in sources alone) and returns the built-in sources with
// the file's changes, then the file's own, in order. A file that does not
// read is ErrInvalid with a one-line message naming the file, the line and
// the field.
func LoadSources(data []byte, name string) ([]Source, error) {
	out := make([]Source, len(BuiltinSources))
	for i, b := range BuiltinSources {
		b.Builtin, b.Jitter, b.Delay = true, DefaultJitter, DefaultDelay
		out[i] = b
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	fail := func(line int, format string, args ...any) error {
		return casefile.Errorf(casefile.ErrInvalid, "%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	list, err := sourcesList(data, name, fail)
	if list == nil || err != nil {
		return out, err
	}
	index := map[string]int{}
	for i, s := range out {
		index[s.Name] = i
	}
	fromFile := map[string]int{}
	for _, n := range list.Content {
		fields, err := sourceFieldsOf(n, fail)
		if err != nil {
			return nil, err
		}
		nameNode, ok := fields["name"]
		if !ok || nameNode.Value == "" {
			return nil, fail(n.Line, "a source needs a name")
		}
		sname := nameNode.Value
		if !sourceName.MatchString(sname) {
			return nil, fail(nameNode.Line, "name %q: use lower-case letters, digits, '.', '_' and '-' (up to 63)", sname)
		}
		if line, dup := fromFile[sname]; dup {
			return nil, fail(nameNode.Line, "source %q is already named on line %d", sname, line)
		}
		fromFile[sname] = nameNode.Line
		s := Source{Name: sname, Schedule: DefaultSchedule, Jitter: DefaultJitter, Delay: DefaultDelay, Enabled: true}
		i, builtin := index[sname]
		if builtin {
			s = out[i] // a built-in: the file changes what it gives
		}
		for _, f := range sourceFields {
			if v, ok := fields[f.key]; ok {
				if problem := f.set(&s, v.Value); problem != "" {
					return nil, fail(v.Line, "source %q: %s %s", sname, f.key, problem)
				}
			}
		}
		if s.Adapter == "" {
			return nil, fail(n.Line, "source %q needs an adapter (one of %s)", sname, AdapterNames())
		}
		if s.URL == "" {
			return nil, fail(n.Line, "source %q needs a url", sname)
		}
		if builtin {
			out[i] = s
		} else {
			index[sname] = len(out)
			out = append(out, s)
		}
	}
	return out, nil
}

// sourcesList reads the file's one field, sources: the list of sources, or
// nil when the file gives none.
func sourcesList(data []byte, name string, fail func(int, string, ...any) error) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "%s: %s", name, strings.TrimPrefix(firstLine(err.Error()), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "the file must be a mapping with a sources: list")
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "sources" {
			return nil, fail(k.Line, "unknown field %q: the file has one field, sources", k.Value)
		}
		list = v
	}
	if list != nil && list.Kind != yaml.SequenceNode {
		return nil, fail(list.Line, "sources must be a list of sources (lines starting with -)")
	}
	return list, nil
}

// sourceFieldsOf reads one source's mapping into its fields by name,
// refusing unknown, repeated and non-scalar fields.
func sourceFieldsOf(n *yaml.Node, fail func(int, string, ...any) error) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fail(n.Line, "a source must be a mapping of name, adapter, url, schedule, jitter, delay, enabled")
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name", "adapter", "url", "schedule", "jitter", "delay", "enabled":
		default:
			return nil, fail(k.Line, "unknown field %q: give name, adapter, url, schedule, jitter, delay or enabled", k.Value)
		}
		if _, dup := fields[k.Value]; dup {
			return nil, fail(k.Line, "field %s given twice", k.Value)
		}
		if v.Kind != yaml.ScalarNode {
			return nil, fail(v.Line, "%s must be a single value", k.Value)
		}
		fields[k.Value] = v
	}
	return fields, nil
}

// sourceFields are the settable fields of a source, in the order they are
// read: each sets its value or says what is wrong with it (the message
// follows `source "NAME": FIELD`).
var sourceFields = []struct {
	key string
	set func(s *Source, v string) string
}{
	{"adapter", func(s *Source, v string) string {
		if !KnownAdapter(v) {
			return fmt.Sprintf("%q is not an adapter: give one of %s", v, AdapterNames())
		}
		s.Adapter = v
		return ""
	}},
	{"url", func(s *Source, v string) string {
		if _, err := IndexURL("", v); err != nil {
			return displayRaw(v) + " is not an http(s) URL"
		}
		s.URL = v
		return ""
	}},
	{"schedule", func(s *Source, v string) string {
		if _, err := cronParser.Parse(v); err != nil {
			return fmt.Sprintf("%q: %s (give five cron fields such as \"17 */6 * * *\", or @hourly, @daily, @every 6h)", v, err)
		}
		s.Schedule = v
		return ""
	}},
	{"jitter", func(s *Source, v string) string { return setDuration(&s.Jitter, v) }},
	{"delay", func(s *Source, v string) string { return setDuration(&s.Delay, v) }},
	{"enabled", func(s *Source, v string) string {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Sprintf("%q: give true or false", v)
		}
		s.Enabled = b
		return ""
	}},
}

// setDuration sets *to to the duration v, or says why it is not one.
func setDuration(to *time.Duration, v string) string {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Sprintf("%q is not a duration such as 10m or 1s", v)
	}
	*to = d
	return ""
}

// FindSource returns the source of that name.
func FindSource(sources []Source, name string) (*Source, error) {
	var names []string
	for i := range sources {
		if sources[i].Name == name {
			return &sources[i], nil
		}
		names = append(names, sources[i].Name)
	}
	return nil, casefile.Errorf(casefile.ErrInvalid, "no source named %q: the sources are %s", name, strings.Join(names, ", "))
}
