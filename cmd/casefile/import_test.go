package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

const libraryDir = "testdata/import/library"

func TestCasesImport(t *testing.T) {
	data := t.TempDir()
	steps := []struct {
		name       string
		args       []string
		wantCode   int
		wantReport string
		wantStderr []string
	}{
		{"a folder of library cases is imported", []string{libraryDir}, 0, "2 imported, 0 updated, 0 unchanged, 0 invalid, 0 refused", nil},
		{"importing it again changes nothing", []string{libraryDir}, 0, "0 imported, 0 updated, 2 unchanged, 0 invalid, 0 refused", nil},
		{"one file is imported", []string{filepath.Join(libraryDir, "IL-0911.json")}, 0, "0 imported, 0 updated, 1 unchanged, 0 invalid, 0 refused", nil},
		{"bad lines of a JSONL file are named by line and field; the good one is imported", []string{"testdata/import/mixed.jsonl"}, 2,
			"1 imported, 0 updated, 0 unchanged, 2 invalid, 0 refused", []string{
				"testdata/import/mixed.jsonl:1: invalid case IL-0913: /date: ",
				"testdata/import/mixed.jsonl:3: invalid case Quarry Lane Transit 2025-08-01: /sources/0/kind: ",
			}},
	}
	for _, step := range steps {
		code, stdout, stderr := runCLI(t, append([]string{"cases", "import", "--data", data}, step.args...)...)
		if code != step.wantCode || strings.TrimSpace(stdout) != step.wantReport {
			t.Fatalf("%s: exit %d, report %q, want %d and %q\nstderr %s", step.name, code, stdout, step.wantCode, step.wantReport, stderr)
		}
		for _, w := range step.wantStderr {
			if !strings.Contains(stderr, "\n"+w) && !strings.HasPrefix(stderr, w) {
				t.Errorf("%s: stderr does not hold a line starting %q:\n%s", step.name, w, stderr)
			}
		}
	}

	// The imported cases are approved and marked imported; the one without
	// an id took the number after IL-0911.
	st, err := sqlite.Open(context.Background(), filepath.Join(data, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range []string{"IL-0911", "IL-0912", "IL-0914"} {
		c, err := st.Case(context.Background(), id)
		if err != nil || c.Status != casefile.CaseApproved || !c.Imported {
			t.Errorf("case %s: status %s imported %v (err %v), want approved and imported", id, c.Status, c.Imported, err)
		}
	}
	if c, _ := st.Case(context.Background(), "IL-0912"); c.Case.Org != "Pellucid Storage" {
		t.Errorf("IL-0912 is %q, want the Pellucid Storage case that had no id", c.Case.Org)
	}

	// Exported, a published case is what was imported.
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCLI(t, "cases", "export", "--data", data, "--out", out); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	var in, back any
	readJSONFile(t, filepath.Join(libraryDir, "IL-0911.json"), &in)
	readJSONFile(t, filepath.Join(out, "IL-0911.json"), &back)
	if !reflect.DeepEqual(in, back) {
		t.Errorf("IL-0911 exported differs from the file imported:\n%v\n%v", back, in)
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestCasesImportRefusesASourceDraftedHere(t *testing.T) {
	data := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(data, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	var c casefile.Case
	readJSONFile(t, filepath.Join(libraryDir, "IL-0911.json"), &c)
	c.ID, c.URL, c.UpdatedAt = "", "", ""
	c.Review = casefile.Review{WrittenBy: casefile.WrittenByCasefile}
	// The drafted page is the canonical form of the published source URL.
	subs, err := st.Submit(context.Background(), []casefile.NewSubmission{{URL: "https://blog.harrowgate.example/2025/06/dnssec-expiry"}})
	if err == nil {
		_, err = st.SaveDraft(context.Background(), subs[0].ID, casefile.Draft{Case: c})
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "cases", "import", "--data", data, filepath.Join(libraryDir, "IL-0911.json"))
	if code != 2 || strings.TrimSpace(stdout) != "0 imported, 0 updated, 0 unchanged, 0 invalid, 1 refused" ||
		!strings.Contains(stderr, "already has case IL-0001 drafted here") {
		t.Errorf("exit %d\nstdout %s\nstderr %s\nwant 2, one refused, naming IL-0001", code, stdout, stderr)
	}
}

// An imported library case is proposed as the case a new draft of the same
// incident repeats, on the draft's case page.
func TestImportedCaseIsProposedAsTheDuplicateOfANewDraft(t *testing.T) {
	data := t.TempDir()
	if code, _, stderr := runCLI(t, "cases", "import", "--data", data, libraryDir); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(data, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer((&api{store: st, log: slog.New(slog.NewTextHandler(io.Discard, nil))}).routes())
	defer srv.Close()

	// Another write-up of the Harrowgate incident, a day later, on a news site.
	var c casefile.Case
	readJSONFile(t, filepath.Join(libraryDir, "IL-0911.json"), &c)
	const u = "https://news.example/2025/06/harrowgate-dnssec"
	c.ID, c.URL, c.UpdatedAt = "", "", ""
	c.Date = "2025-06-04"
	c.Title = casefile.Text{EN: "Expired DNSSEC signature: Harrowgate Networks resolvers refuse its zones"}
	c.Sources = []casefile.Source{{URL: u, Kind: "news"}}
	c.Review = casefile.Review{WrittenBy: casefile.WrittenByCasefile}
	subs, err := st.Submit(context.Background(), []casefile.NewSubmission{{URL: u}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.SaveDraft(context.Background(), subs[0].ID, casefile.Draft{Case: c})
	if err != nil {
		t.Fatal(err)
	}
	if res.CaseID != "IL-0913" {
		t.Errorf("the new draft is %s, want IL-0913 (after the imported IL-0911 and IL-0912)", res.CaseID)
	}
	page, _ := getPage(t, browserClient(t), srv.URL+"/cases/"+res.CaseID)
	if !strings.Contains(page, `name="into" value="IL-0911"`) {
		t.Errorf("the page of the new draft %s does not propose merging it into the imported IL-0911:\n%s", res.CaseID, page)
	}
	if strings.Contains(page, `name="into" value="IL-0912"`) {
		t.Errorf("the page proposes the unrelated IL-0912")
	}
	if page, _ := getPage(t, browserClient(t), srv.URL+"/cases/IL-0911"); !strings.Contains(page, `<span id="imported">imported from the library</span>`) {
		t.Errorf("the page of the imported IL-0911 does not say it was imported")
	}
}

// The project's example cases (normalize/testdata/examples) come back out of
// an import and an export as they went in.
func TestLibraryExamplesRoundTripThroughImportAndExport(t *testing.T) {
	const examples = "../../normalize/testdata/examples"
	data, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if code, stdout, stderr := runCLI(t, "cases", "import", "--data", data, examples); code != 0 || !strings.HasPrefix(stdout, "2 imported,") {
		t.Fatalf("import: exit %d, %s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "cases", "export", "--data", data, "--out", out); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	for _, id := range []string{"IL-0901", "IL-0902"} {
		var in, back any
		readJSONFile(t, filepath.Join(examples, id+".json"), &in)
		readJSONFile(t, filepath.Join(out, id+".json"), &back)
		if !reflect.DeepEqual(in, back) {
			t.Errorf("%s exported differs from the example imported:\n%v\n%v", id, back, in)
		}
	}
}
