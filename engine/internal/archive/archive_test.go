package archive

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tarOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for name, body := range files {
		if err := w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	w.Close()
	p := filepath.Join(t.TempDir(), "a.tar")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUnpackLaysOutTheProject(t *testing.T) {
	p := tarOf(t, map[string]string{
		"metadata.json":                     "{\"filename\":\"file:///home/ci/project/short/test.js\",\"options\":{}}",
		"data":                              "import { x } from \"../lib/paths.js\";",
		"file/home/ci/project/lib/paths.js": "export const x = 1;",
	})
	dest := filepath.Join(t.TempDir(), "out")
	u, err := Unpack(p, dest)
	if err != nil {
		t.Fatal(err)
	}
	if u.Entry != filepath.Join(dest, "home/ci/project/short/test.js") || u.Root != dest {
		t.Fatalf("unpacked %+v", u)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "home/ci/project/lib/paths.js")); string(b) != "export const x = 1;" {
		t.Fatalf("lib = %q", b)
	}
	if b, _ := os.ReadFile(u.Entry); !strings.Contains(string(b), "../lib/paths.js") {
		t.Fatalf("entry = %q", b)
	}
}

func TestUnpackRefusals(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no metadata.json":   {"data": "x"},
		"remote module":      {"metadata.json": `{"filename":"file:///a.js"}`, "data": "x", "https/example.com/m.js": "x"},
		"remote main script": {"metadata.json": `{"filename":"https://example.com/a.js"}`, "data": "x"},
	} {
		if _, err := Unpack(tarOf(t, files), t.TempDir()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	notTar := filepath.Join(t.TempDir(), "x.tar")
	os.WriteFile(notTar, []byte("plain text"), 0o644)
	if _, err := Unpack(notTar, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a k6 archive") {
		t.Errorf("plain text: %v", err)
	}
}
