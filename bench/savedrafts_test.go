package bench

import (
	"context"

	"github.com/incidentlib/casefile"
)

func (c *countingStore) SaveDrafts(ctx context.Context, drafts []casefile.DraftToSave) ([]casefile.DraftSaved, error) {
	c.calls.Add(1)
	return c.Store.SaveDrafts(ctx, drafts)
}
