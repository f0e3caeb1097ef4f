package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/natstest"
)

// TestClusterSurvivesALostLeaderAndAWrongReplicasProcess runs serve and two
// workers on a three-server JetStream cluster with R3 streams, kills the
// server that leads the work stream mid-run, and starts a third worker with
// the default replicas (1): every submission ends drafted, once, and the
// streams and consumers stay at R3.
func TestClusterSurvivesALostLeaderAndAWrongReplicasProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-server NATS cluster and runs 40 submissions")
	}
	db := postgrestest.MustDatabaseURL(t)
	site := pipelineSite(t)
	cluster := natstest.StartCluster(t, 3)
	_, js := cluster.Connect()
	urls := cluster.URLs()

	t.Setenv("CASEFILE_STREAM_REPLICAS", "3")
	api, serveLogs := startCasefile(t, "serve", "--nats-url", urls, "--database-url", db, "--log-level", "warn")
	workerArgs := []string{"worker", "--nats-url", urls, "--database-url", db,
		"--allow-private", "--no-archive", "--fetch-workers", "2", "--log-level", "warn"}
	var bases []string
	var logs []*syncBuffer
	for range 2 {
		u, l := startCasefile(t, workerArgs...)
		bases, logs = append(bases, u), append(logs, l)
	}
	allLogs := stringer(func() string {
		s := "serve: " + serveLogs.String()
		for i, l := range logs {
			s += fmt.Sprintf("\nworker %d: %s", i+1, l)
		}
		return s
	})
	for _, b := range append([]string{api}, bases...) {
		waitReady(t, b, 30*time.Second, allLogs)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := &apiClient{server: api, http: http.DefaultClient}
	const n = 40
	var pages []string
	for i := range n {
		// Half the pages take 2s, so that the run is in full flow when
		// the leader goes.
		path := "incidents"
		if i%2 == 1 {
			path = "slow"
		}
		pages = append(pages, fmt.Sprintf("%s/%s/cluster-%d", site.URL, path, i))
	}
	resp, err := c.submit(ctx, submissionRequest{URLs: pages, Batch: "cluster"})
	if err != nil || len(resp.Submissions) != n {
		t.Fatalf("submit: %v, %d accepted of %d", err, len(resp.Submissions), n)
	}
	start := time.Now()

	batch := func() []casefile.Submission {
		var out struct {
			Submissions []casefile.Submission `json:"submissions"`
		}
		if err := c.do(ctx, http.MethodGet, "/api/submissions?batch=cluster", nil, &out); err != nil {
			t.Logf("list the batch: %v", err)
		}
		return out.Submissions
	}
	final := func(subs []casefile.Submission) int {
		k := 0
		for _, s := range subs {
			if s.State.Final() {
				k++
			}
		}
		return k
	}

	// Mid-run: kill the work stream's leader.
	for final(batch()) < n/5 {
		if ctx.Err() != nil {
			t.Fatalf("fewer than %d submissions ended before the deadline\n%s", n/5, allLogs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	leader, err := cluster.StreamLeader(ctx, js, workers.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	done := final(batch())
	cluster.Shutdown(leader)
	t.Logf("killed %s, the leader of %s, after %s with %d of %d submissions ended", leader, workers.StreamName, time.Since(start).Round(time.Millisecond), done, n)

	// A process started with the wrong replicas (flags win over the
	// environment) takes part without lowering anything.
	wrong, wrongLogs := startCasefile(t, append(workerArgs, "--stream-replicas", "1")...)
	logs = append(logs, wrongLogs)
	waitReady(t, wrong, 45*time.Second, allLogs)

	var subs []casefile.Submission
	for {
		subs = batch()
		if len(subs) == n && final(subs) == n {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d submissions ended before the deadline\n%s", final(subs), n, allLogs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("all %d submissions ended %s after submitting", n, time.Since(start).Round(time.Millisecond))

	caseIDs := map[string]bool{}
	for _, s := range subs {
		if s.State != casefile.StateDrafted || s.CaseID == "" {
			t.Errorf("%s ended %s (%s), want drafted", s.RawURL, s.State, s.Error)
		}
		caseIDs[s.CaseID] = true
	}
	if len(caseIDs) != n {
		t.Errorf("%d different case ids for %d submissions, want one each", len(caseIDs), n)
	}
	var cases struct {
		Cases []casefile.StoredCase `json:"cases"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/cases?limit=1000", nil, &cases); err != nil {
		t.Fatal(err)
	}
	redrafted := 0
	for _, sc := range cases.Cases {
		if !caseIDs[sc.ID] {
			t.Errorf("case %s (%s) belongs to no submission: drafted twice?", sc.ID, sc.SourceURL)
		}
		if sc.Version > 1 {
			redrafted++
		}
	}
	if len(cases.Cases) != n {
		t.Errorf("the store holds %d cases, want %d", len(cases.Cases), n)
	}
	t.Logf("%d cases stored more than once (a job redelivered after the failover)", redrafted)

	replicas, err := natstest.Replicas(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	for what, r := range replicas {
		if r != 3 {
			t.Errorf("%s has %d replicas after the run, want 3", what, r)
		}
	}
	if l := wrongLogs.String(); !strings.Contains(l, "keeping them") || !strings.Contains(l, "stream CASEFILE has 3 replicas (this process asks for 1)") {
		t.Errorf("the worker started with --stream-replicas 1 did not warn about the mismatch:\n%s", l)
	}
}
