package archivetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// cdxFields are the CDX fields in their default order.
var cdxFields = []string{"urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"}

// field returns one field of a capture as CDX reports it.
func field(c capture, name string) string {
	switch name {
	case "urlkey":
		return surt(urlKey(c.original))
	case "timestamp":
		return c.ts
	case "original":
		return c.original
	case "mimetype":
		if c.status == "-" {
			return "warc/revisit"
		}
		return "text/html"
	case "statuscode":
		return c.status
	case "digest":
		return digest(c)
	case "length":
		if c.status == "-" {
			return "-"
		}
		return strconv.Itoa(900 + len(c.original))
	}
	return ""
}

func knownField(name string) bool {
	for _, f := range cdxFields {
		if f == name {
			return true
		}
	}
	return false
}

// filter is one parsed filter parameter, [!]field:regex.
type filter struct {
	neg   bool
	field string
	re    *regexp.Regexp
}

// serveCDX answers GET /cdx/search/cdx: url, matchType (exact, prefix,
// host, domain; a url ending in /* means prefix), output (json or text),
// fl, repeated filter, collapse, from and to, closest with or without
// sort=closest, and limit ±N.
func (f *Fake) serveCDX(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	asked := q.Get("url")
	if asked == "" {
		cdxError(w, "No url specified")
		return
	}
	matchType := q.Get("matchType")
	if strings.HasSuffix(asked, "/*") && matchType == "" {
		asked, matchType = strings.TrimSuffix(asked, "*"), "prefix"
	}
	key := urlKey(asked)
	var match func(string) bool
	switch matchType {
	case "", "exact":
		match = func(k string) bool { return k == key }
	case "prefix":
		match = func(k string) bool { return strings.HasPrefix(k, key) }
	case "host":
		match = func(k string) bool { return keyHost(k) == keyHost(key) }
	case "domain":
		match = func(k string) bool {
			h, d := keyHost(k), keyHost(key)
			return h == d || strings.HasSuffix(h, "."+d)
		}
	default:
		cdxError(w, "Invalid matchType: "+matchType)
		return
	}

	fl := cdxFields
	if v := q.Get("fl"); v != "" {
		fl = strings.Split(v, ",")
		for _, name := range fl {
			if !knownField(name) {
				cdxError(w, "Unknown field: "+name)
				return
			}
		}
	}
	var filters []filter
	for _, v := range q["filter"] {
		ft := filter{}
		if strings.HasPrefix(v, "!") {
			ft.neg, v = true, v[1:]
		}
		name, expr, ok := strings.Cut(v, ":")
		if !ok || !knownField(name) {
			cdxError(w, "Invalid filter: "+v)
			return
		}
		re, err := regexp.Compile("^(?:" + expr + ")$")
		if err != nil {
			cdxError(w, "Invalid filter regex: "+expr)
			return
		}
		ft.field, ft.re = name, re
		filters = append(filters, ft)
	}
	from, to := "", ""
	var ok bool
	if v := q.Get("from"); v != "" {
		if from, ok = padTS(v, '0'); !ok {
			cdxError(w, "Invalid from: "+v)
			return
		}
	}
	if v := q.Get("to"); v != "" {
		if to, ok = padTS(v, '9'); !ok {
			cdxError(w, "Invalid to: "+v)
			return
		}
	}
	closest := ""
	if v := q.Get("closest"); v != "" {
		if closest, ok = padTS(v, '0'); !ok {
			cdxError(w, "Invalid closest: "+v)
			return
		}
	}
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			cdxError(w, "Invalid limit: "+v)
			return
		}
		limit = n
	}
	collapseField, collapseLen := "", 0
	if v := q.Get("collapse"); v != "" {
		name, n, hasN := strings.Cut(v, ":")
		if !knownField(name) {
			cdxError(w, "Invalid collapse: "+v)
			return
		}
		collapseField = name
		if hasN {
			m, err := strconv.Atoi(n)
			if err != nil || m < 1 {
				cdxError(w, "Invalid collapse: "+v)
				return
			}
			collapseLen = m
		}
	}

	cs, blocked := f.lookup(asked, match)
	if blocked {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintln(w, "org.archive.wayback.exception.AdministrativeAccessControlException: Blocked Site Error")
		return
	}

	kept := cs[:0:0]
	var last string
	for _, c := range cs {
		if (from != "" && c.ts < from) || (to != "" && c.ts > to) {
			continue
		}
		if closest != "" && q.Get("sort") != "closest" && c.ts < closest {
			continue
		}
		if !passes(c, filters) {
			continue
		}
		if collapseField != "" {
			v := field(c, collapseField)
			if collapseLen > 0 && len(v) > collapseLen {
				v = v[:collapseLen]
			}
			if len(kept) > 0 && v == last {
				continue
			}
			last = v
		}
		kept = append(kept, c)
	}
	if q.Get("sort") == "closest" && closest != "" {
		sort.SliceStable(kept, func(i, j int) bool {
			return distance(kept[i].ts, closest) < distance(kept[j].ts, closest)
		})
	}
	switch {
	case limit > 0 && limit < len(kept):
		kept = kept[:limit]
	case limit < 0 && -limit < len(kept):
		kept = kept[len(kept)+limit:]
	}

	rows := make([][]string, 0, len(kept)+1)
	for _, c := range kept {
		row := make([]string, len(fl))
		for i, name := range fl {
			row[i] = field(c, name)
		}
		rows = append(rows, row)
	}
	if q.Get("output") == "json" {
		w.Header().Set("Content-Type", "application/json")
		if len(rows) == 0 {
			fmt.Fprintln(w, "[]")
			return
		}
		rows = append([][]string{fl}, rows...)
		b, _ := json.Marshal(rows)
		w.Write(b)
		fmt.Fprintln(w)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	for _, row := range rows {
		fmt.Fprintln(w, strings.Join(row, " "))
	}
}

// passes reports whether c satisfies every filter.
func passes(c capture, filters []filter) bool {
	for _, ft := range filters {
		if ft.re.MatchString(field(c, ft.field)) == ft.neg {
			return false
		}
	}
	return true
}

// cdxError answers a bad query as CDX does, 400 with a line of text.
func cdxError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintln(w, msg)
}
