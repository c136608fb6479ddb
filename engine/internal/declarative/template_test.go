package declarative

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -7: "-7", 1.5: "1.5", 0.1: "0.1", -2.5: "-2.5", 1e21: "1e+21", 1.5e300: "1.5e+300",
		123456789012345680000: "123456789012345680000", 1e15: "1000000000000000", 0.000001: "0.000001",
		1e-7: "1e-7", 1.25e-7: "1.25e-7", 9007199254740993: "9007199254740992", 0.30000000000000004: "0.30000000000000004",
		math.Inf(1): "Infinity", math.Inf(-1): "-Infinity",
	} {
		if got := string(appendJSNumber(nil, f)); got != want {
			t.Errorf("%v as JavaScript: %q, want %q", f, got, want)
		}
	}
}

func TestJSString(t *testing.T) {
	for raw, want := range map[string]string{
		`"abc"`: "abc", `12`: "12", `1.50`: "1.5", `true`: "true", `[1,"a",null,[2,3]]`: "1,a,,2,3",
		`{"a":1}`: "[object Object]", `"é\n"`: "é\n",
	} {
		if got := jsString(gjson.Parse(raw)); got != want {
			t.Errorf("%s as a string: %q, want %q", raw, got, want)
		}
	}
}

// A program with a generated pool, a pool of given rows and a setup capture, for template tests.
func testProgram(t *testing.T, pools string, setup string) *program {
	t.Helper()
	if setup == "" {
		setup = "[]"
	}
	f, err := decodeFile([]byte(`{"opsbench":"declarative/1","options":{},"program":{"requests":[{"name":"a","tag":"a","method":"GET","path":[{"type":"text","text":"/"}],"body":null,"headers":[],"expectStatus":null,"weight":1}],"mix":"sequence","pools":` + pools + `,"setup":` + setup + `,"thinkTime":null,"requestTimeout":60,"noConnectionReuse":false,"reconnectEvery":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := compile(f.Program, "http://x")
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func renderParts(t *testing.T, prog *program, c *ictx, parts string) string {
	t.Helper()
	var pj []partJSON
	if err := jsonUnmarshal(parts, &pj); err != nil {
		t.Fatal(err)
	}
	tm, err := prog.compileTemplate(pj, "t")
	if err != nil {
		t.Fatal(err)
	}
	return string(c.render(nil, tm))
}

func TestTemplates(t *testing.T) {
	prog := testProgram(t, `{"user":{"choice":"sequential","dimensions":[{"name":"user","size":100},{"name":"device","size":5}]},
		"product":{"choice":"uniform","rows":[{"id":"p-1","price":10.5},{"id":"p-2","on":true}]}}`,
		`[{"name":"signin","tag":"setup: signin","method":"POST","path":[{"type":"text","text":"/s"}],"body":null,"headers":[],"expectStatus":null,"forEach":"user","capture":[{"name":"token","selector":"token"}]},
		  {"name":"admin","tag":"setup: admin","method":"POST","path":[{"type":"text","text":"/a"}],"body":null,"headers":[],"expectStatus":null,"forEach":null,"capture":[{"name":"jwt","selector":"jwt"}]}]`)
	c := newIctx(prog, rand.New(rand.NewPCG(1, 2)))
	c.env = map[string]string{"REGION": "eu"}
	c.vu, c.iter = 4, 9
	c.counter = func() int64 { return 7 } // sequential: row 7 = user 2, device 3
	c.data = parseSetupData(prog, []byte(`{"vars":{"jwt":"abc"},"rows":{"user":[{},{},{},{},{},{},{},{"token":"t-7"}]}}`))

	for parts, want := range map[string]string{
		`[{"type":"text","text":"/api/users/"},{"type":"pool","pool":"user","field":"user"},{"type":"text","text":"/devices/"},{"type":"pool","pool":"user","field":"device"}]`: "/api/users/2/devices/3",
		`[{"type":"pool","pool":"user","field":"index"}]`: "7",
		`[{"type":"text","text":"Bearer "},{"type":"setup","name":"jwt"},{"type":"text","text":" / "},{"type":"pool","pool":"user","field":"token"}]`: "Bearer abc / t-7",
		`[{"type":"env","name":"REGION"},{"type":"text","text":"-"},{"type":"vu"},{"type":"text","text":"-"},{"type":"iteration"}]`:                   "eu-4-9",
		`[{"type":"env","name":"MISSING"}]`: "undefined",
		`[{"type":"payload","bytes":5}]`:    "xxxxx",
		`[{"type":"payload","bytes":0}]`:    "",
		`[]`:                                "",
	} {
		c.reset()
		if got := renderParts(t, prog, c, parts); got != want {
			t.Errorf("%s rendered %q, want %q", parts, got, want)
		}
	}

	// One row per pool per iteration: the same product in every part of one rendering.
	for range 50 {
		c.reset()
		got := renderParts(t, prog, c, `[{"type":"pool","pool":"product","field":"id"},{"type":"text","text":" "},{"type":"pool","pool":"product","field":"price"},{"type":"text","text":" "},{"type":"pool","pool":"product","field":"on"}]`)
		if got != "p-1 10.5 undefined" && got != "p-2 undefined true" {
			t.Fatalf("product row rendered %q", got)
		}
	}

	ints := map[string]bool{}
	for range 2000 {
		ints[renderParts(t, prog, c, `[{"type":"randomInt","min":1,"max":6}]`)] = true
	}
	if len(ints) != 6 {
		t.Errorf("randomInt 1 6 gave %v", ints)
	}
	for v := range ints {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 6 {
			t.Errorf("randomInt 1 6 gave %q", v)
		}
	}
	if s := renderParts(t, prog, c, `[{"type":"randomString","length":12}]`); !regexp.MustCompile(`^[A-Za-z0-9]{12}$`).MatchString(s) {
		t.Errorf("randomString 12 gave %q", s)
	}
	if s := renderParts(t, prog, c, `[{"type":"uuid"}]`); !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(s) {
		t.Errorf("uuid gave %q", s)
	}
	if s := renderParts(t, prog, c, `[{"type":"timestamp"}]`); len(s) != 13 || !strings.HasPrefix(s, "1") {
		t.Errorf("timestamp gave %q", s)
	}
}

func TestConstantTemplatesAreOneString(t *testing.T) {
	prog := testProgram(t, `{}`, "")
	var pj []partJSON
	_ = jsonUnmarshal(`[{"type":"text","text":"{\"size\":"},{"type":"payload","bytes":3},{"type":"text","text":"}"}]`, &pj)
	tm, err := prog.compileTemplate(pj, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !tm.constant || tm.text != `{"size":xxx}` {
		t.Fatalf("constant %v, text %q", tm.constant, tm.text)
	}
}
