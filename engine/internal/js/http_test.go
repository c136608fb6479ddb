package js

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHTTPModuleWiring checks that k6/http is importable and sees the VU's tags
// (its own behaviour is tested in its package).
func TestHTTPModuleWiring(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	h := newHarness(t, map[string]string{"script.js": `
import http from "k6/http";
import { group, check } from "k6";
let initErr; try { http.get(__ENV.URL); } catch (e) { initErr = String(e); }
export const options = { initErr };
export default function () {
  group("api", () => {
    const res = http.get(__ENV.URL);
    check(res, { "status 200": (r) => r.status === 200, "body ok": (r) => r.body === "ok" });
  });
}`}, map[string]string{"URL": srv.URL})
	if !strings.Contains(string(h.runner.Options()), "init context") {
		t.Errorf("request in init: %s", h.runner.Options())
	}
	if errs := h.run(1, "", 1); errs[0] != nil {
		t.Fatal(errs[0])
	}
	reqs := h.samples.of("http_reqs")
	if len(reqs) != 1 || tag(reqs[0], "group") != "::api" || tag(reqs[0], "scenario") != "default" {
		t.Fatalf("http_reqs %v", reqs)
	}
	for _, c := range h.samples.of("checks") {
		if c.Value != 1 {
			t.Errorf("check %s failed", tag(c, "check"))
		}
	}
}
