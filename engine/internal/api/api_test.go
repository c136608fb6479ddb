package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/opsbench/opsbench/engine/internal/scheduler"
)

type fakeController struct {
	mu     sync.Mutex
	paused bool
	fail   bool
}

func (f *fakeController) Status() scheduler.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return scheduler.Status{Status: scheduler.StatusRunning, Paused: f.paused, Running: !f.paused, VUs: 3, VUsMax: 5}
}

func (f *fakeController) SetPaused(p bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return errors.New("the test has already ended")
	}
	f.paused = p
	return nil
}

func do(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc map[string]any
	_ = json.NewDecoder(res.Body).Decode(&doc)
	return res.StatusCode, doc
}

func attrs(doc map[string]any) map[string]any {
	return doc["data"].(map[string]any)["attributes"].(map[string]any)
}

func TestStatusAndResume(t *testing.T) {
	c := &fakeController{paused: true}
	s, err := Listen("127.0.0.1:0", c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := "http://" + s.Addr() + "/v1/status"

	code, doc := do(t, "GET", url, "")
	data := doc["data"].(map[string]any)
	if code != 200 || data["type"] != "status" || data["id"] != "default" {
		t.Fatalf("GET: %d %v", code, doc)
	}
	a := attrs(doc)
	if a["paused"] != true || a["vus"] != 3.0 || a["vus-max"] != 5.0 || a["status"] != float64(scheduler.StatusRunning) ||
		a["stopped"] != false || a["tainted"] != false || a["running"] != false {
		t.Errorf("attributes: %v", a)
	}

	code, doc = do(t, "PATCH", url, `{"data":{"type":"status","id":"default","attributes":{"paused":false}}}`)
	if code != 200 || attrs(doc)["paused"] != false || c.paused {
		t.Errorf("PATCH resume: %d %v", code, doc)
	}
	code, _ = do(t, "PATCH", url, `{"data":{"attributes":{"paused":true}}}`)
	if code != 200 || !c.paused {
		t.Errorf("PATCH pause: %d", code)
	}
	if code, _ = do(t, "PATCH", url, `not json`); code != 400 {
		t.Errorf("bad body: %d", code)
	}
	c.fail = true
	if code, doc = do(t, "PATCH", url, `{"data":{"attributes":{"paused":false}}}`); code != 400 || doc["errors"] == nil {
		t.Errorf("refused: %d %v", code, doc)
	}
	if code, _ = do(t, "DELETE", url, ""); code != 405 {
		t.Errorf("DELETE: %d", code)
	}
	if code, _ = do(t, "GET", "http://"+s.Addr()+"/v1/metrics", ""); code != 404 {
		t.Errorf("other path: %d", code)
	}
}
