package main

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is the part of docker-compose.yaml the checks read.
type composeFile struct {
	Services map[string]struct {
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
}

func TestDockerComposeIsSafeAndChecksHealth(t *testing.T) {
	data, err := os.ReadFile("../../docker-compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	for name, s := range c.Services {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s on every host address", name, p)
			}
			if strings.Contains(p, ":4222") || strings.Contains(p, ":5432") || strings.Contains(p, ":9090") {
				t.Errorf("%s publishes an internal port on the host: %s", name, p)
			}
		}
	}
	for _, name := range []string{"api", "worker"} {
		s, ok := c.Services[name]
		if !ok {
			t.Fatalf("no %s service", name)
		}
		if s.Healthcheck == nil || len(s.Healthcheck.Test) < 3 || s.Healthcheck.Test[1] != "/usr/local/bin/casefile" || s.Healthcheck.Test[2] != "health" ||
			!strings.HasSuffix(s.Healthcheck.Test[len(s.Healthcheck.Test)-1], "/healthz") && !strings.HasSuffix(s.Healthcheck.Test[len(s.Healthcheck.Test)-1], "/readyz") {
			t.Errorf("%s: healthcheck %+v, want the binary's health command on /healthz or /readyz", name, s.Healthcheck)
		}
		// The healthcheck probes the port the service listens on.
		listen := ""
		for i, a := range s.Command {
			if a == "--listen" && i+1 < len(s.Command) {
				_, listen, _ = strings.Cut(s.Command[i+1], ":")
			}
		}
		if s.Healthcheck != nil && (listen == "" || !strings.Contains(strings.Join(s.Healthcheck.Test, " "), ":"+listen+"/")) {
			t.Errorf("%s listens on port %q but its healthcheck is %v", name, listen, s.Healthcheck.Test)
		}
	}
	if c.Services["worker"].DependsOn["api"].Condition != "service_healthy" {
		t.Errorf("worker waits for api with %+v, want service_healthy", c.Services["worker"].DependsOn["api"])
	}
	// A required token must say where to put it, and the README must say so too.
	if tok := c.Services["api"].Environment["CASEFILE_API_TOKEN"]; strings.Contains(tok, ":?") && !strings.Contains(tok, ".env") {
		t.Errorf("CASEFILE_API_TOKEN is required without saying how to give it: %s", tok)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), `CASEFILE_API_TOKEN=$(openssl rand -hex 32)" > .env`) {
		t.Error("the README does not show how to give docker compose its CASEFILE_API_TOKEN")
	}

	ignore, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatalf("no .dockerignore: %v", err)
	}
	for _, want := range []string{".git", ".env", "casefile-data", "*.casefile-state.json"} {
		if !strings.Contains(string(ignore), want) {
			t.Errorf(".dockerignore does not keep %s out of the build context", want)
		}
	}
}

func TestHealthCommand(t *testing.T) {
	api, _ := startCasefile(t, "run", "--data", t.TempDir(), "--no-archive", "--log-level", "warn")
	tests := []struct {
		name, url string
		wantCode  int
		want      string
	}{
		{"a healthy server", api + "/healthz", 0, "200 OK"},
		{"an endpoint that is not there", api + "/nothing", 4, "404"},
		{"nothing listening", closedServerURL(t) + "/healthz", 4, "health:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "health", tt.url)
			if code != tt.wantCode || !strings.Contains(stdout+stderr, tt.want) || len(lines(stdout+stderr)) != 1 {
				t.Errorf("exit %d, output %q; want %d and one line with %q", code, stdout+stderr, tt.wantCode, tt.want)
			}
		})
	}
}
