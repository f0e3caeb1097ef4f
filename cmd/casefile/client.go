package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

// apiClient talks to a running casefile's HTTP API.
type apiClient struct {
	server string
	token  string
	http   *http.Client
	// notReadyWait: see defaultNotReadyWait (0 takes it).
	notReadyWait time.Duration
}

func (c *apiClient) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.server, "server", envOr("CASEFILE_SERVER", "http://127.0.0.1:8080"), "URL of a running casefile (run or serve) (env CASEFILE_SERVER); a server with CASEFILE_API_TOKEN set needs the same token in this command's environment")
	c.token = envOr("CASEFILE_API_TOKEN", "")
	c.http = &http.Client{Timeout: 30 * time.Second}
}

// submit posts URLs and returns the accepted submissions and the rejected URLs.
func (c *apiClient) submit(ctx context.Context, req submissionRequest) (submissionResponse, error) {
	var resp submissionResponse
	body, _ := json.Marshal(req)
	err := c.do(ctx, http.MethodPost, "/api/submissions", body, &resp)
	return resp, err
}

func (c *apiClient) submission(ctx context.Context, id int64) (casefile.Submission, error) {
	var s casefile.Submission
	err := c.do(ctx, http.MethodGet, fmt.Sprintf("/api/submissions/%d", id), nil, &s)
	return s, err
}

// defaultNotReadyWait bounds how long a request waits for a server that
// answers 503 with Retry-After (a serve still connecting to NATS): it
// refused the request before taking anything, so sending it again is safe.
const defaultNotReadyWait = 30 * time.Second

func (c *apiClient) do(ctx context.Context, method, path string, body []byte, out any) error {
	wait := c.notReadyWait
	if wait == 0 {
		wait = defaultNotReadyWait
	}
	deadline := time.Now().Add(wait)
	for {
		retry, err := c.send(ctx, method, path, body, out)
		if retry <= 0 || time.Now().Add(retry).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(retry):
		}
	}
}

// send sends one request. When the server answers 503 with Retry-After it
// returns how long to wait before asking again, with the error.
func (c *apiClient) send(ctx context.Context, method, path string, body []byte, out any) (retry time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.server, "/")+path, bytes.NewReader(body))
	if err != nil {
		return 0, casefile.Errorf(casefile.ErrInvalid, "bad --server %q: %w", c.server, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, casefile.Errorf(casefile.ErrTransient, "cannot reach casefile at %s (is `casefile run` or `casefile serve` running?): %w", c.server, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return 0, casefile.Errorf(casefile.ErrTransient, "read answer of %s: %w", c.server, err)
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error    string        `json:"error"`
			Rejected []rejectedURL `json:"rejected"`
		}
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
			for _, r := range e.Rejected {
				msg += "; " + r.URL + ": " + r.Error
			}
		}
		kind := casefile.ErrPermanent
		switch {
		case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusRequestEntityTooLarge,
			resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			// A missing or wrong token will not work on a retry either.
			kind = casefile.ErrInvalid
		case resp.StatusCode == http.StatusNotFound:
			kind = casefile.ErrNotFound
		case resp.StatusCode == http.StatusConflict:
			kind = casefile.ErrConflict
		case resp.StatusCode >= 500:
			kind = casefile.ErrTransient
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
				retry = time.Duration(min(secs, 5)) * time.Second
			}
		}
		return retry, casefile.Errorf(kind, "casefile at %s answered %s: %s", c.server, resp.Status, msg)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return 0, fmt.Errorf("decode answer of %s%s: %w", c.server, path, err)
		}
	}
	return 0, nil
}

// waitFinal polls a submission until it ends or ctx is done.
func (c *apiClient) waitFinal(ctx context.Context, id int64) (casefile.Submission, error) {
	for {
		s, err := c.submission(ctx, id)
		if err != nil && casefile.KindOf(err) != casefile.KindTransient {
			return s, err
		}
		if err == nil && s.State.Final() {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
