package normalize

import (
	"strings"
	"testing"
	"time"
)

func TestZZSpeed(t *testing.T) {
	doc := netlifyLikeDoc(t)
	start := time.Now()
	for range 20 {
		if _, err := Draft(doc); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("per draft: %v", time.Since(start)/20)
	long := strings.Repeat("a.b. c. 12:00 x. ", 2000)
	doc.Sections[1].Paragraphs = []string{long}
	start = time.Now()
	Draft(doc)
	t.Logf("long: %v", time.Since(start))
}
