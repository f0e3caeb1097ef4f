package archivetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Script is how the fake answers the capture requests of one URL (see
// [Fake.Script]); the zero value is the default behaviour.
type Script struct {
	// Pending is how many status polls answer pending before the job
	// ends. Negative: the job stays pending until Finish.
	Pending int
	// Error, when set, is the status_ext the job ends with
	// ("error:not-found"), with Message.
	Error   string
	Message string
	// SubmitError, when set, is the status_ext the capture request itself
	// is refused with, as HTTP 200 JSON.
	SubmitError string
	// FinalURL is the job's original_url (a redirect's target); empty:
	// the URL asked for.
	FinalURL string
	// SameSnapshot answers that a capture was made recently, with a job
	// (that then succeeds with a capture made now) or, with NoJob, a null
	// job_id (a capture made now, to be found through CDX).
	SameSnapshot bool
	NoJob        bool
	// Ambiguous answers 523 with an HTML page while the job goes on and
	// its capture is made when it ends (at submit time when Pending is 0).
	Ambiguous bool
	// Instant makes the capture when it is requested, whether or not
	// anyone polls the job (which then reports success).
	Instant bool
}

// Submit is one capture request the fake received.
type Submit struct {
	URL    string
	At     time.Time
	Form   map[string][]string
	Agent  string // the User-Agent that sent it
	Status int    // the HTTP status answered
	Result string // "job", "same-snapshot", "error:...", "429", "401", "ambiguous"
}

type job struct {
	id      string
	url     string
	script  Script
	polls   int
	done    bool
	status  string // pending, success, error
	ts      string
	orig    string
	created time.Time
}

type spnState struct {
	access, secret string
	rate           int
	window         time.Duration
	slots          int
	urlDaily       int
	daily          int
	lag            time.Duration
	system         string // "ok", a message, or "502"
	defPending     int
	scripts        map[string]Script
	jobs           map[string]*job
	submits        []Submit
	clock          func() time.Time
	seq            int
	onSubmit       func(url string)
}

func newSPNState() spnState {
	return spnState{window: time.Minute, system: "ok", scripts: map[string]Script{}, jobs: map[string]*job{}, clock: time.Now}
}

func (s *spnState) now() time.Time { return s.clock().UTC() }

// SetKeys makes capture and status requests require the header
// "Authorization: LOW access:secret" (401 JSON otherwise). Without keys
// the fake accepts any request.
func (f *Fake) SetKeys(access, secret string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.access, f.spn.secret = access, secret
}

// SetCaptureRate makes capture requests beyond n within any window answer
// 429 with an HTML page and no Retry-After; n <= 0 turns it off. A zero
// window means a minute.
func (f *Fake) SetCaptureRate(n int, window time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if window <= 0 {
		window = time.Minute
	}
	f.spn.rate, f.spn.window = n, window
}

// SetSlots makes a capture request answer error:user-session-limit while n
// jobs are pending; 0 turns it off.
func (f *Fake) SetSlots(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.slots = n
}

// SetDailyCaps sets the captures one URL (perURL) and the account (total)
// may have per UTC day: beyond them capture requests answer
// error:too-many-daily-captures, or the account's "cannot make more than N
// captures per day" message. 0 turns a cap off.
func (f *Fake) SetDailyCaps(perURL, total int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.urlDaily, f.spn.daily = perURL, total
}

// SetIndexLag makes captures made through Save Page Now show in CDX, the
// availability API and /web/ only d after they were made.
func (f *Fake) SetIndexLag(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.lag = d
}

// SetSystemStatus sets what /save/status/system answers: "ok", another
// status text (overloaded), or "502" for a 502.
func (f *Fake) SetSystemStatus(status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.system = status
}

// SetPending sets how many polls a job answers pending by default.
func (f *Fake) SetPending(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.defPending = n
}

// SetClock sets the fake's clock (capture times, daily caps, the index
// lag); nil means time.Now.
func (f *Fake) SetClock(now func() time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now == nil {
		now = time.Now
	}
	f.spn.clock = now
}

// OnSubmit calls fn with the url of every capture request accepted, before
// it is answered (tests stop a worker there). fn must not call the fake.
func (f *Fake) OnSubmit(fn func(url string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.onSubmit = fn
}

// Script sets how capture requests of url are answered.
func (f *Fake) Script(url string, s Script) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spn.scripts[urlKey(url)] = s
}

// Finish ends the pending jobs of url (scripted to stay pending) at their
// next poll.
func (f *Fake) Finish(url string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := urlKey(url)
	for _, j := range f.spn.jobs {
		if urlKey(j.url) == k {
			j.script.Pending = 0
		}
	}
}

// Submits returns the capture requests received, in order.
func (f *Fake) Submits() []Submit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Submit(nil), f.spn.submits...)
}

// SubmitsOf counts the capture requests of url that were accepted (a job
// or a capture made), whatever was answered.
func (f *Fake) SubmitsOf(url string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, k := 0, urlKey(url)
	for _, s := range f.spn.submits {
		if urlKey(s.URL) == k && (s.Result == "job" || s.Result == "ambiguous" || s.Result == "same-snapshot") {
			n++
		}
	}
	return n
}

// serveSave answers the Save Page Now routes.
func (f *Fake) serveSave(w http.ResponseWriter, r *http.Request, route string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if route == RouteSaveSystem {
		switch f.spn.system {
		case "502":
			failPage(w, http.StatusBadGateway)
		default:
			writeJSON(w, http.StatusOK, map[string]any{"status": f.spn.system})
		}
		return
	}
	if f.spn.access != "" && r.Header.Get("Authorization") != "LOW "+f.spn.access+":"+f.spn.secret {
		if route == RouteSave {
			f.record(r, http.StatusUnauthorized, "401")
		}
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "You need to be logged in to use Save Page Now."})
		return
	}
	switch route {
	case RouteSaveUser:
		pending := f.pendingJobs()
		writeJSON(w, http.StatusOK, map[string]any{"available": max(f.spn.slots-pending, 0), "processing": pending,
			"daily_captures": f.capturesToday(""), "daily_captures_limit": f.spn.daily})
	case RouteSaveStatus:
		f.serveJobStatus(w, r)
	default:
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		f.serveSubmit(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// record notes a capture request; f.mu is held.
func (f *Fake) record(r *http.Request, status int, result string) {
	_ = r.ParseForm()
	f.spn.submits = append(f.spn.submits, Submit{URL: r.PostForm.Get("url"), At: f.spn.now(), Form: r.PostForm,
		Agent: r.UserAgent(), Status: status, Result: result})
}

func (f *Fake) pendingJobs() int {
	n := 0
	for _, j := range f.spn.jobs {
		if !j.done {
			n++
		}
	}
	return n
}

// capturesToday counts today's accepted capture requests, of url or ("")
// all.
func (f *Fake) capturesToday(url string) int {
	day := f.spn.now().Format(time.DateOnly)
	n := 0
	for _, s := range f.spn.submits {
		if s.At.Format(time.DateOnly) == day && (s.Result == "job" || s.Result == "ambiguous" || s.Result == "same-snapshot") &&
			(url == "" || urlKey(s.URL) == urlKey(url)) {
			n++
		}
	}
	return n
}

// serveSubmit answers POST /save; f.mu is held.
func (f *Fake) serveSubmit(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	target := r.PostForm.Get("url")
	now := f.spn.now()
	if f.spn.rate > 0 {
		n := 0
		for _, s := range f.spn.submits {
			if s.Status != http.StatusTooManyRequests && now.Sub(s.At) < f.spn.window {
				n++
			}
		}
		if n >= f.spn.rate {
			f.record(r, http.StatusTooManyRequests, "429")
			failPage(w, http.StatusTooManyRequests)
			return
		}
	}
	for _, opt := range []string{"skip_first_archive", "capture_all", "force_get", "capture_outlinks", "delay_wb_availability"} {
		if v := r.PostForm.Get(opt); v != "" && v != "1" && v != "on" {
			// Only 1 and on turn an option on; anything else is off.
			r.PostForm.Del(opt)
		}
	}
	refuse := func(code, msg string) {
		f.record(r, http.StatusOK, code)
		writeJSON(w, http.StatusOK, map[string]any{"status": "error", "status_ext": code, "message": msg})
	}
	sc := f.spn.scripts[urlKey(target)]
	switch {
	case target == "":
		refuse("error:invalid-url-syntax", "The url is missing.")
		return
	case f.spn.slots > 0 && f.pendingJobs() >= f.spn.slots:
		refuse("error:user-session-limit", "You have already reached the limit of active sessions.")
		return
	case f.spn.daily > 0 && f.capturesToday("") >= f.spn.daily:
		refuse("error:too-many-daily-captures", fmt.Sprintf("You cannot make more than %d captures per day.", f.spn.daily))
		return
	case f.spn.urlDaily > 0 && f.capturesToday(target) >= f.spn.urlDaily:
		refuse("error:too-many-daily-captures", "This URL has been already captured 10 times today. Please try again tomorrow.")
		return
	case sc.SubmitError != "":
		refuse(sc.SubmitError, sc.Message)
		return
	}
	f.spn.seq++
	j := &job{id: fmt.Sprintf("spn2-%040x", f.spn.seq), url: target, script: sc, status: "pending", created: now}
	if sc.Pending == 0 && f.spn.defPending != 0 {
		j.script.Pending = f.spn.defPending
	}
	f.spn.jobs[j.id] = j
	if f.spn.onSubmit != nil {
		f.spn.onSubmit(target)
	}
	if sc.Instant {
		f.finishJob(j)
	}
	switch {
	case sc.SameSnapshot && sc.NoJob:
		f.finishJob(j)
		f.record(r, http.StatusOK, "same-snapshot")
		writeJSON(w, http.StatusOK, map[string]any{"url": target, "job_id": nil,
			"message": "The same snapshot had been made 2 minutes ago. You can make new capture of this URL after 1 hour."})
	case sc.SameSnapshot:
		f.record(r, http.StatusOK, "same-snapshot")
		writeJSON(w, http.StatusOK, map[string]any{"url": target, "job_id": j.id,
			"message": "The same snapshot had been made 2 minutes ago. You can make new capture of this URL after 1 hour."})
	case sc.Ambiguous:
		if j.script.Pending == 0 {
			f.finishJob(j)
		}
		f.record(r, 523, "ambiguous")
		failPage(w, 523)
	default:
		f.record(r, http.StatusOK, "job")
		writeJSON(w, http.StatusOK, map[string]any{"url": target, "job_id": j.id})
	}
}

// finishJob ends a job as its script says; a success makes its capture,
// shown after the index lag. f.mu is held.
func (f *Fake) finishJob(j *job) {
	j.done = true
	if j.script.Error != "" {
		j.status = "error"
		return
	}
	now := f.spn.now()
	j.status, j.ts, j.orig = "success", now.Format(tsLayout), j.url
	if j.script.FinalURL != "" {
		j.orig = j.script.FinalURL
	}
	k := urlKey(j.orig)
	f.captures[k] = append(f.captures[k], capture{original: j.orig, ts: j.ts, status: "200", visible: now.Add(f.spn.lag)})
	if k2 := urlKey(j.url); k2 != k {
		// The asked URL redirected: the index holds the redirect too.
		f.captures[k2] = append(f.captures[k2], capture{original: j.url, ts: j.ts, status: "302", visible: now.Add(f.spn.lag)})
	}
}

// serveJobStatus answers GET /save/status/<id> and POST /save/status.
func (f *Fake) serveJobStatus(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/save/status/")
	if r.Method == http.MethodPost {
		_ = r.ParseForm()
		id = r.PostForm.Get("job_id")
	}
	j, ok := f.spn.jobs[id]
	if !ok || id == "" {
		writeJSON(w, http.StatusOK, map[string]any{"status": "error", "job_id": id, "message": "Job not found.", "resources": []string{}})
		return
	}
	if !j.done {
		j.polls++
		if j.script.Pending >= 0 && j.polls > j.script.Pending {
			f.finishJob(j)
		}
	}
	switch j.status {
	case "pending":
		writeJSON(w, http.StatusOK, map[string]any{"status": "pending", "job_id": j.id, "resources": []string{j.url},
			"message": "Your capture will begin in 3 s."})
	case "success":
		writeJSON(w, http.StatusOK, map[string]any{"status": "success", "job_id": j.id, "original_url": j.orig, "timestamp": j.ts,
			"duration_sec": 6.2, "resources": []string{j.url}, "outlinks": map[string]any{"capture_outlinks": []string{}},
			"first_archive": true, "http_status": 200, "counters": map[string]int{"embeds": 3, "outlinks": 1}})
	default:
		msg := j.script.Message
		if msg == "" {
			msg = "The capture failed."
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "error", "job_id": j.id, "status_ext": j.script.Error,
			"exception": "", "message": msg, "resources": []string{}})
	}
}
