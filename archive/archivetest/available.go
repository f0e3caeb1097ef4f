package archivetest

import (
	"encoding/json"
	"net/http"
	"time"
)

// availableAnswer is the availability API's answer. Fields are in the order
// the documented example shows; the real service varies it.
type availableAnswer struct {
	URL               string    `json:"url"`
	Timestamp         string    `json:"timestamp,omitempty"`
	ArchivedSnapshots snapshots `json:"archived_snapshots"`
}

type snapshots struct {
	Closest *closest `json:"closest,omitempty"`
}

type closest struct {
	Status    string `json:"status"` // a string, as the real API writes it
	Available bool   `json:"available"`
	URL       string `json:"url"`
	Timestamp string `json:"timestamp"`
}

// serveAvailable answers GET /wayback/available?url=&timestamp=: the 200
// capture nearest the timestamp (the latest without one) on an http://
// link, or empty snapshots; always HTTP 200.
func (f *Fake) serveAvailable(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	asked := q.Get("url")
	ans := availableAnswer{URL: asked, Timestamp: q.Get("timestamp")}

	f.mu.Lock()
	empty := f.availEmpty
	f.mu.Unlock()
	if asked != "" && !empty {
		key := urlKey(asked)
		cs, blocked := f.lookup(asked, func(k string) bool { return k == key })
		target := time.Now().UTC().Format(tsLayout)
		if ts, ok := padTS(ans.Timestamp, '0'); ok {
			target = ts
		}
		var best *capture
		for i := range cs {
			c := &cs[i]
			if c.status != "200" || blocked {
				continue
			}
			if best == nil || distance(c.ts, target) <= distance(best.ts, target) {
				best = c
			}
		}
		if best != nil {
			ans.ArchivedSnapshots.Closest = &closest{Status: "200", Available: true, URL: link(*best), Timestamp: best.ts}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}
