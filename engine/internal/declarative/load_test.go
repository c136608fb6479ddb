package declarative

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// workloadJSON makes a workload file with the given program fields replaced.
func workloadJSON(t *testing.T, program map[string]any) []byte {
	t.Helper()
	p := map[string]any{
		"requests": []any{map[string]any{"name": "home", "tag": "home", "method": "GET", "path": []any{map[string]any{"type": "text", "text": "/"}},
			"body": nil, "headers": []any{}, "expectStatus": nil, "weight": 1}},
		"mix": "sequence", "pools": map[string]any{}, "setup": []any{}, "thinkTime": nil, "requestTimeout": 60,
		"noConnectionReuse": false, "reconnectEvery": 0,
	}
	for k, v := range program {
		p[k] = v
	}
	b, err := json.Marshal(map[string]any{"program": p, "options": map[string]any{"scenarios": map[string]any{}}})
	if err != nil {
		t.Fatal(err)
	}
	// The format key comes first, as compileDeclarativeWorkload writes it.
	return append([]byte(`{"opsbench":"declarative/1",`), b[1:]...)
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func TestLoadErrorsNameTheField(t *testing.T) {
	req := func(extra map[string]any) []any {
		r := map[string]any{"name": "r", "tag": "r", "method": "GET", "path": []any{text("/")}, "body": nil, "headers": []any{}, "expectStatus": nil, "weight": 1}
		for k, v := range extra {
			r[k] = v
		}
		return []any{r}
	}
	for name, tc := range map[string]struct {
		program map[string]any
		want    string
	}{
		"no requests":   {map[string]any{"requests": []any{}}, "program.requests: at least one request"},
		"bad method":    {map[string]any{"requests": req(map[string]any{"method": "FETCH"})}, `program.requests[0].method: expected one of GET`},
		"relative path": {map[string]any{"requests": req(map[string]any{"path": []any{text("x")}})}, `program.requests[0].path: must start with "/"`},
		"unknown pool": {map[string]any{"requests": req(map[string]any{"path": []any{text("/"), map[string]any{"type": "pool", "pool": "user", "field": "id"}}})},
			`program.requests[0].path[1].pool: unknown pool "user" (no pools are defined)`},
		"unknown field": {map[string]any{
			"pools":    map[string]any{"user": map[string]any{"choice": "uniform", "dimensions": []any{map[string]any{"name": "user", "size": 3}}}},
			"requests": req(map[string]any{"headers": []any{map[string]any{"name": "X-Id", "value": []any{map[string]any{"type": "pool", "pool": "user", "field": "email"}}}}}),
		}, `program.requests[0].headers[0].value[0].field: pool "user" has no field "email" (fields: user, index)`},
		"setup var before capture": {map[string]any{"requests": req(map[string]any{"body": []any{map[string]any{"type": "setup", "name": "token"}}})},
			`program.requests[0].body[0].name: no setup request captures "token" before this point`},
		"bad part":      {map[string]any{"requests": req(map[string]any{"path": []any{text("/"), map[string]any{"type": "shuffle"}}})}, `program.requests[0].path[1].type: unknown template part "shuffle"`},
		"bad status":    {map[string]any{"requests": req(map[string]any{"expectStatus": []any{200, 700}})}, `program.requests[0].expectStatus[1]: 700 is not an HTTP status`},
		"bad weight":    {map[string]any{"mix": "weighted", "requests": req(map[string]any{"weight": 0})}, `program.requests[0].weight: must be a positive number`},
		"bad mix":       {map[string]any{"mix": "random"}, `program.mix: expected "sequence" or "weighted"`},
		"bad choice":    {map[string]any{"pools": map[string]any{"p": map[string]any{"choice": map[string]any{"zipf": -1}, "rows": []any{map[string]any{"a": 1}}}}}, `program.pools.p.choice.zipf: the exponent must be in (0, 10]`},
		"empty pool":    {map[string]any{"pools": map[string]any{"p": map[string]any{"choice": "uniform", "rows": []any{}}}}, `program.pools.p.rows: at least one row`},
		"bad think":     {map[string]any{"thinkTime": map[string]any{"min": 2, "max": 1}}, `program.thinkTime: needs 0 <= min <= max`},
		"bad timeout":   {map[string]any{"requestTimeout": 0}, `program.requestTimeout: must be a positive number`},
		"bad reconnect": {map[string]any{"reconnectEvery": -1}, `program.reconnectEvery: must be 0`},
		"forEach unknown": {map[string]any{"setup": []any{map[string]any{"name": "s", "tag": "setup: s", "method": "POST", "path": []any{text("/")}, "body": nil, "headers": []any{},
			"expectStatus": nil, "forEach": "people", "capture": []any{}}}}, `program.setup[0].forEach: unknown pool "people"`},
	} {
		_, err := New(workloadJSON(t, tc.program), nil, nil, nil)
		var le *LoadError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a LoadError with %q", name, err, tc.want)
		}
	}
}

func TestLoadErrorsOfTheFile(t *testing.T) {
	for data, want := range map[string]string{
		`{"opsbench":"declarative/2","options":{},"program":{}}`:           `opsbench: expected "declarative/1"`,
		`{"opsbench":"declarative/1","options":null,"program":{}}`:         `options: must be an object`,
		`{"opsbench":"declarative/1","options":{}}`:                        `program: missing`,
		`{"opsbench":"declarative/1","options":{},"program":{},"extra":1}`: `unknown field "extra"`,
		`{"opsbench":"declarative/1",`:                                     `invalid JSON`,
	} {
		_, err := New([]byte(data), nil, nil, nil)
		var le *LoadError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", data, err, want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json"), nil, nil, nil); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestSniffAndLoad(t *testing.T) {
	data := workloadJSON(t, nil)
	if !Sniff(data[:40]) || Sniff([]byte(`{"options":{}}`)) || Sniff([]byte(`import http from "k6/http"`)) {
		t.Fatal("Sniff tells workloads apart wrongly")
	}
	path := filepath.Join(t.TempDir(), "workload.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Load(path, map[string]string{"OPSBENCH_BASE_URL": "http://example.test:9/"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.prog.requests[0].urlText != "http://example.test:9/" {
		t.Errorf("URL %q: the base URL's trailing slash is dropped, the path's kept", r.prog.requests[0].urlText)
	}
	if string(r.Options()) != `{"scenarios":{}}` || !r.HasExec("default") || r.HasExec("setup") {
		t.Errorf("options %s", r.Options())
	}
	if _, handled, err := r.HandleSummary(t.Context(), nil); handled || err != nil {
		t.Error("HandleSummary must leave the summary to the engine")
	}
}
