package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
)

// redraftJob is one stored page of a re-draft batch.
type redraftJob struct {
	Batch     string `json:"batch"`
	SourceURL string `json:"source_url"`
}

// keepPage stores the page a fetch job read as its source's latest fetch.
// A page that cannot be stored is logged and costs the draft nothing.
func (p *Pipeline) keepPage(ctx context.Context, submissionID int64, page casefile.Page) {
	if p.Pages == nil || page.Body == nil {
		return
	}
	err := p.withStore(ctx, func(ctx context.Context) error {
		sub, err := p.Store.Submission(ctx, submissionID)
		if err != nil {
			return err
		}
		_, err = p.Pages.SavePage(ctx, sub.URL, page, p.Extractor)
		return err
	})
	if err != nil {
		p.Log.Warn("fetched page not stored; a re-draft of it will need a fetch", "submission", submissionID, "url", page.URL, "err", err)
	}
}

// QueueRedraft publishes one re-draft job per source of a batch the store
// has recorded (casefile.PageStore.StartRedraft), each under the id
// redraft-<batch>-<n>, and waits for the server's acks. A page whose job
// could not be published stays queued in the batch's report.
func QueueRedraft(ctx context.Context, js jetstream.JetStream, batch string, sourceURLs []string) error {
	const window = 256
	for start := 0; start < len(sourceURLs); start += window {
		end := min(start+window, len(sourceURLs))
		futures := make([]jetstream.PubAckFuture, 0, end-start)
		for i := start; i < end; i++ {
			data, _ := json.Marshal(redraftJob{Batch: batch, SourceURL: sourceURLs[i]})
			f, err := js.PublishAsync(SubjectRedraft, data, jetstream.WithMsgID(fmt.Sprintf("redraft-%s-%d", batch, i)))
			if err != nil {
				return casefile.Errorf(casefile.ErrTransient, "queue re-draft of %s: %w", sourceURLs[i], err)
			}
			futures = append(futures, f)
		}
		timeout := time.NewTimer(10 * time.Second)
		for i, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				timeout.Stop()
				return casefile.Errorf(casefile.ErrTransient, "queue re-draft of %s: %w", sourceURLs[start+i], err)
			case <-timeout.C:
				return casefile.Errorf(casefile.ErrTransient, "queue re-draft of %s: no ack within 10s", sourceURLs[start+i])
			case <-ctx.Done():
				timeout.Stop()
				return ctx.Err()
			}
		}
		timeout.Stop()
	}
	return nil
}

// handleRedraft drafts one stored page again and records the outcome in
// its batch: changed (a new case, version or proposal), unchanged, refused
// (no longer a postmortem) or failed. It never fetches.
func (p *Pipeline) handleRedraft(ctx context.Context, msg jetstream.Msg) error {
	var job redraftJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil || job.Batch == "" || job.SourceURL == "" {
		if err == nil {
			err = errors.New("missing batch or source url")
		}
		return p.poison(ctx, "re-draft", msg, err)
	}
	var sp casefile.StoredPage
	err := p.withStore(ctx, func(ctx context.Context) (err error) {
		sp, err = p.Pages.Page(ctx, job.SourceURL)
		return err
	})
	if err != nil && casefile.KindOf(err) != casefile.KindNotFound {
		return err
	}
	out := casefile.RedraftJob{SourceURL: job.SourceURL}
	if err != nil {
		out.Outcome, out.Reason = casefile.RedraftFailed, err.Error()
		return p.endRedraft(ctx, job.Batch, out)
	}
	dctx, cancel := context.WithTimeout(ctx, p.Config.DraftTimeout)
	res, err := p.Redraft(dctx, sp)
	cancel()
	switch casefile.KindOf(err) {
	case casefile.KindNone:
		return p.saveRedraft(ctx, job, res.Draft)
	case casefile.KindNotPostmortem:
		out.Outcome, out.Reason = casefile.RedraftRefused, err.Error()
	case casefile.KindTransient:
		if !p.lastAttempt(msg) {
			return err
		}
		out.Outcome, out.Reason = casefile.RedraftFailed, err.Error()
	default:
		out.Outcome, out.Reason = casefile.RedraftFailed, err.Error()
	}
	return p.endRedraft(ctx, job.Batch, out)
}

// saveRedraft stores a re-draft and records its outcome.
func (p *Pipeline) saveRedraft(ctx context.Context, job redraftJob, d casefile.Draft) error {
	var saved casefile.RedraftResult
	err := p.withStore(ctx, func(ctx context.Context) (err error) {
		saved, err = p.Pages.SaveRedraft(ctx, job.SourceURL, d)
		return err
	})
	out := casefile.RedraftJob{SourceURL: job.SourceURL, CaseID: saved.CaseID, Outcome: casefile.RedraftUnchanged}
	switch {
	case casefile.KindOf(err) == casefile.KindTransient:
		return err
	case err != nil:
		out.Outcome, out.Reason = casefile.RedraftFailed, err.Error()
	case saved.Changed:
		out.Outcome = casefile.RedraftChanged
	}
	p.Log.Debug("page re-drafted", "batch", job.Batch, "url", job.SourceURL, "case", saved.CaseID,
		"outcome", out.Outcome, "new_case", saved.Inserted, "proposal", saved.Proposed)
	return p.endRedraft(ctx, job.Batch, out)
}

func (p *Pipeline) endRedraft(ctx context.Context, batch string, out casefile.RedraftJob) error {
	p.Metrics.outcomes.WithLabelValues("redraft_" + string(out.Outcome)).Inc()
	extractor := p.Extractor
	if out.Outcome == casefile.RedraftFailed {
		extractor = ""
	}
	return p.withStore(ctx, func(ctx context.Context) error {
		return p.Pages.EndRedraftJob(ctx, batch, out, extractor)
	})
}
