package workers

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// EmbeddedConfig configures the in-process NATS server of `casefile run`.
type EmbeddedConfig struct {
	// Dir holds the JetStream files (Dir/nats). Required: an empty store
	// folder would be a shared temp folder.
	Dir string
	// Port, when non-zero, makes the server listen on 127.0.0.1:Port so that
	// the nats CLI can inspect it (-1 picks a free port). Zero: no listener.
	Port int
}

// Embedded is a nats-server with JetStream running in this process.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts nats-server with JetStream on cfg.Dir and waits until
// it accepts connections. The server installs no signal handlers: the
// caller drains and calls Shutdown.
func StartEmbedded(cfg EmbeddedConfig) (*Embedded, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("start embedded nats: no data folder given")
	}
	opts := &server.Options{
		ServerName: "casefile",
		JetStream:  true,
		StoreDir:   filepath.Join(cfg.Dir, "nats"),
		NoSigs:     true,
		NoLog:      true,
		DontListen: cfg.Port == 0,
		Host:       "127.0.0.1",
		Port:       cfg.Port,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("start embedded nats: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(15 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("start embedded nats: not ready after 15s (is %s writable?)", cfg.Dir)
	}
	return &Embedded{srv: srv}, nil
}

// Connect opens a client connection to the embedded server that reconnects
// forever.
func (e *Embedded) Connect(name string) (*nats.Conn, error) {
	nc, err := nats.Connect("", nats.InProcessServer(e.srv), nats.Name(name),
		nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("connect to embedded nats: %w", err)
	}
	return nc, nil
}

// ClientURL is the server's address when it listens, else "".
func (e *Embedded) ClientURL() string {
	if e.srv.Addr() == nil {
		return ""
	}
	return e.srv.ClientURL()
}

// Shutdown stops the server and waits until it has stopped.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// Connect opens a connection to an external NATS server (or cluster,
// comma-separated URLs) that retries the first connection and reconnects
// forever, so that a NATS restart only delays work.
func Connect(url, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name(name),
		nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true),
		nats.ReconnectWait(time.Second), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("connect to nats %s: %w", url, err)
	}
	return nc, nil
}
