package modeldraft

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/incidentlib/casefile"
)

// chatRequest is the body of a /v1/chat/completions request.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// statusError is an answer with a status other than 200.
type statusError struct {
	status     int
	retryAfter time.Duration
	body       string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("the model server answered %d: %s", e.status, e.body)
}

// retryable reports whether a failed request is worth sending again.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.status == http.StatusTooManyRequests || se.status >= 500
	}
	return errors.Is(err, context.DeadlineExceeded) || casefile.KindOf(err) == casefile.KindTransient
}

// ask sends the prompt, with retries and backoff, and reads the answer.
func (d *Drafter) ask(ctx context.Context, doc casefile.Document, rule casefile.Draft) (Answer, error) {
	prompt, err := userPrompt(doc, rule)
	if err != nil {
		return Answer{}, err
	}
	wait := d.cfg.Backoff
	for attempt := 0; ; attempt++ {
		content, err := d.complete(ctx, prompt)
		if err == nil {
			return ParseAnswer(content)
		}
		if attempt >= d.cfg.Retries || !retryable(err) || ctx.Err() != nil {
			return Answer{}, err
		}
		delay := wait
		var se *statusError
		if errors.As(err, &se) && se.retryAfter > delay {
			delay = se.retryAfter
		}
		d.cfg.Log.Info("model request failed; retrying", "model", d.cfg.Model, "in", delay.String(), "err", err)
		select {
		case <-ctx.Done():
			return Answer{}, ctx.Err()
		case <-time.After(delay):
		}
		wait *= 2
	}
}

// complete sends one request and returns the message's content. A server
// that refuses response_format json_schema is asked again without it,
// and not asked with it any more.
func (d *Drafter) complete(ctx context.Context, prompt string) (string, error) {
	if err := d.pace(ctx); err != nil {
		return "", err
	}
	d.mu.Lock()
	withSchema := !d.noSchema
	d.mu.Unlock()
	content, err := d.post(ctx, prompt, withSchema)
	var se *statusError
	if withSchema && errors.As(err, &se) && se.status == http.StatusBadRequest && strings.Contains(strings.ToLower(se.body), "response_format") {
		d.mu.Lock()
		d.noSchema = true
		d.mu.Unlock()
		d.cfg.Log.Info("the model server refuses structured output; asking for JSON in the prompt only", "model", d.cfg.Model)
		return d.post(ctx, prompt, false)
	}
	return content, err
}

// pace waits for the rate limit's next free start.
func (d *Drafter) pace(ctx context.Context) error {
	if d.cfg.MinInterval < 0 {
		return nil
	}
	d.mu.Lock()
	now := time.Now()
	start := now
	if d.next.After(now) {
		start = d.next
	}
	d.next = start.Add(d.cfg.MinInterval)
	d.mu.Unlock()
	if wait := start.Sub(now); wait > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil
}

func (d *Drafter) post(ctx context.Context, prompt string, withSchema bool) (string, error) {
	req := chatRequest{Model: d.cfg.Model, Temperature: 0.2, Messages: []chatMessage{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: prompt},
	}}
	if withSchema {
		req.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: "casefile_prose", Strict: true, Schema: AnswerSchema}}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("encode model request: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(rctx, http.MethodPost, d.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", casefile.Errorf(casefile.ErrInvalid, "model request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if d.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+d.cfg.APIKey)
	}
	resp, err := d.cfg.HTTPClient.Do(hreq)
	if err != nil {
		if rctx.Err() != nil {
			return "", fmt.Errorf("model request: no answer within %s: %w", d.cfg.Timeout, context.DeadlineExceeded)
		}
		return "", casefile.Errorf(casefile.ErrTransient, "model request: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		if rctx.Err() != nil {
			return "", fmt.Errorf("model request: no answer within %s: %w", d.cfg.Timeout, context.DeadlineExceeded)
		}
		return "", casefile.Errorf(casefile.ErrTransient, "read model answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		se := &statusError{status: resp.StatusCode, body: firstLine(string(data))}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			se.retryAfter = time.Duration(s) * time.Second
		}
		return "", se
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
		return "", fmt.Errorf("the model server's answer is not a chat completion: %.200s", data)
	}
	return cr.Choices[0].Message.Content, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
