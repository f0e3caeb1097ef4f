package extract

import (
	"regexp"
	"strings"
)

var incidentIOPath = regexp.MustCompile(`^/incidents/[0-9A-HJKMNP-TV-Z]{26}/?$`)

// isIncidentIO reports a status page hosted by incident.io: incidents are
// addressed by ULID, and the page names its host.
func isIncidentIO(pg *page) bool {
	if incidentIOPath.MatchString(pg.orig.Path) {
		return true
	}
	return strings.Contains(strings.ToLower(pg.meta["generator"]), "incident.io")
}

// readIncidentIO reads an incident.io status page incident. Its markup is
// not pinned yet: the generic reader does the work.
func readIncidentIO(pg *page) (reading, bool) {
	return reading{}, false
}
