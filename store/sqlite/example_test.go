package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

// The life of one submission: submitted, published from the outbox,
// drafted, approved.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "casefile")
	defer os.RemoveAll(dir)

	s, err := sqlite.Open(ctx, filepath.Join(dir, "casefile.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	const u = "https://status.example.com/incidents/abc123"
	subs, _ := s.Submit(ctx, []casefile.NewSubmission{{URL: u, Origin: casefile.OriginManual}})
	out, _ := s.Outbox(ctx, 10)
	fmt.Println("to publish:", out[0].URL)
	_ = s.MarkSent(ctx, []int64{out[0].SubmissionID})

	_, _ = s.StartAttempt(ctx, subs[0].ID)
	res, _ := s.SaveDraft(ctx, subs[0].ID, casefile.Draft{Case: casefile.Case{
		Org:     "Example",
		Sources: []casefile.Source{{URL: u, Kind: "official-status"}},
	}})
	fmt.Println("drafted:", res.CaseID, res.Inserted)

	_ = s.SetStatus(ctx, res.CaseID, 1, casefile.CaseApproved, "ana", "")
	c, _ := s.Case(ctx, res.CaseID)
	fmt.Println(c.ID, c.Status, *c.Case.Review.ReviewedBy)
	// Output:
	// to publish: https://status.example.com/incidents/abc123
	// drafted: IL-0001 true
	// IL-0001 approved ana
}
