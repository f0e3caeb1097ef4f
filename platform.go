package casefile

// Platform names the reader (the page template) that read a page:
// Document.Platform. The list below is the only spelling of the names.
type Platform string

// The platforms.
const (
	PlatformStatuspage   Platform = "statuspage"          // Atlassian Statuspage incidents
	PlatformIncidentIO   Platform = "incident-io"         // incident.io status pages
	PlatformGCP          Platform = "gcp-status"          // Google Cloud status incidents
	PlatformGCPOld       Platform = "gcp-status-old"      // the older Google Cloud status template
	PlatformAWS          Platform = "aws-summary"         // AWS post-event summaries
	PlatformAzure        Platform = "azure-pir"           // Azure post-incident reviews
	PlatformDiscourse    Platform = "discourse"           // Discourse forum topics
	PlatformGitHubReport Platform = "github-availability" // GitHub availability reports
	PlatformBlog         Platform = "blog"                // any other article
	// PlatformStatusUpdates is a status template without a reader of its
	// own, read by its update structure (stamp, label, body rows).
	PlatformStatusUpdates Platform = "status-updates"
)

// Platforms lists every platform.
var Platforms = []Platform{
	PlatformStatuspage, PlatformIncidentIO, PlatformGCP, PlatformGCPOld, PlatformAWS,
	PlatformAzure, PlatformDiscourse, PlatformGitHubReport, PlatformBlog, PlatformStatusUpdates,
}

// StatusPage reports whether the platform reads status pages or a
// provider's own incident reports: their pages are official status.
func (p Platform) StatusPage() bool {
	switch p {
	case PlatformStatuspage, PlatformIncidentIO, PlatformGCP, PlatformGCPOld, PlatformAWS, PlatformAzure, PlatformStatusUpdates:
		return true
	}
	return false
}

// Forum reports whether the platform reads forum topics.
func (p Platform) Forum() bool { return p == PlatformDiscourse }
