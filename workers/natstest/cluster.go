// Package natstest runs a NATS JetStream cluster inside a test process.
package natstest

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile/workers"
)

// Cluster is n nats-servers with JetStream, routed to each other on
// loopback ports.
type Cluster struct {
	t       testing.TB
	servers []*server.Server
}

// StartCluster starts an n-server JetStream cluster and waits until it has
// a meta leader. The servers stop when the test ends.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	// Every server lists every route, as a real cluster's configuration
	// does; the route ports are picked free first.
	ports := make([]int, n)
	var routes []string
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	dir := t.TempDir()
	c := &Cluster{t: t}
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		opts := &server.Options{
			ServerName: name,
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   filepath.Join(dir, name),
			NoSigs:     true,
			NoLog:      true,
			Cluster:    server.ClusterOpts{Name: "casefile-test", Host: "127.0.0.1", Port: ports[i]},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			t.Fatalf("start nats %s: %v", name, err)
		}
		srv.Start()
		c.servers = append(c.servers, srv)
		t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	}
	for _, srv := range c.servers {
		if !srv.ReadyForConnections(15 * time.Second) {
			t.Fatalf("nats %s not ready after 15s", srv.Name())
		}
	}
	// The cluster serves the JetStream API once it has elected a meta
	// leader: wait for an answer from it.
	_, js := c.Connect()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the JetStream cluster does not answer after 60s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return c
}

// URLs are the client URLs of all servers, comma-separated, as
// --nats-url takes them.
func (c *Cluster) URLs() string {
	var urls []string
	for _, srv := range c.servers {
		urls = append(urls, srv.ClientURL())
	}
	return strings.Join(urls, ",")
}

// Connect opens a client connection to the cluster that reconnects
// forever, closed when the test ends.
func (c *Cluster) Connect() (*nats.Conn, jetstream.JetStream) {
	c.t.Helper()
	nc, err := nats.Connect(c.URLs(), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		c.t.Fatal(err)
	}
	return nc, js
}

// StreamLeader is the name of the server that leads stream.
func (c *Cluster) StreamLeader(ctx context.Context, js jetstream.JetStream, stream string) (string, error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return "", fmt.Errorf("stream leader of %s: %w", stream, err)
	}
	info := s.CachedInfo()
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return "", fmt.Errorf("stream %s has no leader", stream)
	}
	return info.Cluster.Leader, nil
}

// Shutdown stops the server called name, as a crash of its machine would.
func (c *Cluster) Shutdown(name string) {
	c.t.Helper()
	for _, srv := range c.servers {
		if srv.Name() == name {
			srv.Shutdown()
			srv.WaitForShutdown()
			return
		}
	}
	c.t.Fatalf("no nats server called %q", name)
}

// Replicas returns the replicas of casefile's streams and consumers, keyed
// "STREAM" and "STREAM/consumer".
func Replicas(ctx context.Context, js jetstream.JetStream) (map[string]int, error) {
	got := map[string]int{}
	for stream, consumers := range map[string][]string{
		workers.StreamName:    {workers.ConsumerFetch, workers.ConsumerStore, workers.ConsumerArchive, workers.ConsumerRedraft},
		workers.DLQStreamName: {workers.ConsumerDLQ},
	} {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return nil, fmt.Errorf("replicas of %s: %w", stream, err)
		}
		got[stream] = s.CachedInfo().Config.Replicas
		for _, name := range consumers {
			c, err := s.Consumer(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("replicas of %s/%s: %w", stream, name, err)
			}
			got[stream+"/"+name] = c.CachedInfo().Config.Replicas
		}
	}
	return got, nil
}
