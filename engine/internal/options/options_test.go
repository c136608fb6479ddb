package options

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func consolidate(t *testing.T, script string, flags Flags) *Options {
	t.Helper()
	o, err := Consolidate(json.RawMessage(script), nil, flags)
	if err != nil {
		t.Fatalf("Consolidate(%s): %v", script, err)
	}
	return o
}

func only(t *testing.T, o *Options) *Scenario {
	t.Helper()
	if len(o.Scenarios) != 1 {
		t.Fatalf("want 1 scenario, got %d", len(o.Scenarios))
	}
	return o.Scenarios[0]
}

func i64(v int64) *int64                 { return &v }
func dur(d time.Duration) *time.Duration { return &d }

func TestDurations(t *testing.T) {
	for in, want := range map[string]time.Duration{
		`"1m30s"`: 90 * time.Second, `"500ms"`: 500 * time.Millisecond, `"1h"`: time.Hour,
		`1500`: 1500 * time.Millisecond, `"250"`: 250 * time.Millisecond, `"1.5s"`: 1500 * time.Millisecond,
		`"1d"`: 24 * time.Hour, `"1d2h"`: 26 * time.Hour,
	} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.D() != want {
			t.Errorf("%s: got %v, %v; want %v", in, d.D(), err, want)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`"ten seconds"`), &d); err == nil {
		t.Error("a bad duration string must be refused")
	}
	if b, _ := json.Marshal(Duration(90 * time.Second)); string(b) != `"1m30s"` {
		t.Errorf("marshal: %s", b)
	}
}

func TestShortcuts(t *testing.T) {
	t.Run("nothing: one VU, one iteration", func(t *testing.T) {
		s := only(t, consolidate(t, `{}`, Flags{}))
		if s.Name != "default" || s.Executor != SharedIterations || s.VUs != 1 || s.Iterations != 1 || s.Exec != "default" {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("vus+duration: constant-vus", func(t *testing.T) {
		s := only(t, consolidate(t, `{"vus":10,"duration":"30s"}`, Flags{}))
		if s.Executor != ConstantVUs || s.VUs != 10 || s.Duration != 30*time.Second || s.GracefulStop != 30*time.Second {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("iterations+vus: shared-iterations", func(t *testing.T) {
		s := only(t, consolidate(t, `{"vus":5,"iterations":20}`, Flags{}))
		if s.Executor != SharedIterations || s.VUs != 5 || s.Iterations != 20 || s.MaxDuration != 10*time.Minute {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("iterations+duration: duration is maxDuration", func(t *testing.T) {
		s := only(t, consolidate(t, `{"iterations":20,"duration":"1m"}`, Flags{}))
		if s.Executor != SharedIterations || s.VUs != 1 || s.MaxDuration != time.Minute {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("stages: ramping-vus", func(t *testing.T) {
		s := only(t, consolidate(t, `{"stages":[{"duration":"10s","target":5},{"duration":"5s","target":0}]}`, Flags{}))
		if s.Executor != RampingVUs || len(s.Stages) != 2 || s.Stages[0].Target != 5 || s.StartVUs != 1 ||
			s.GracefulRampDown != 30*time.Second {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("flags win over the script", func(t *testing.T) {
		s := only(t, consolidate(t, `{"vus":10,"duration":"30s"}`, Flags{VUs: i64(3), Duration: dur(5 * time.Second)}))
		if s.Executor != ConstantVUs || s.VUs != 3 || s.Duration != 5*time.Second {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("--stage replaces the script's scenarios", func(t *testing.T) {
		o := consolidate(t, `{"scenarios":{"a":{"executor":"constant-vus","duration":"1m"}}}`,
			Flags{Stages: []Stage{{Duration(10 * time.Second), 4}}})
		s := only(t, o)
		if s.Name != "default" || s.Executor != RampingVUs || s.Stages[0].Target != 4 {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("--iterations replaces a script's duration", func(t *testing.T) {
		o := consolidate(t, `{"vus":2,"duration":"1m"}`, Flags{Iterations: i64(4)})
		s := only(t, o)
		if s.Executor != SharedIterations || s.Iterations != 4 || s.VUs != 2 || s.MaxDuration != 10*time.Minute {
			t.Errorf("got %+v", s)
		}
		if o.Raw("duration") != nil {
			t.Errorf("the script's duration no longer applies but is in the options: %s", o.JSON())
		}
	})
	t.Run("--vus alone keeps the script's scenarios", func(t *testing.T) {
		s := only(t, consolidate(t, `{"scenarios":{"a":{"executor":"constant-vus","vus":7,"duration":"1m"}}}`, Flags{VUs: i64(2)}))
		if s.Name != "a" || s.VUs != 7 {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("script beats the config file", func(t *testing.T) {
		o, err := Consolidate(json.RawMessage(`{"vus":4,"duration":"10s"}`), json.RawMessage(`{"vus":9,"hosts":{"a":"1.2.3.4"}}`), Flags{})
		if err != nil {
			t.Fatal(err)
		}
		if s := only(t, o); s.VUs != 4 {
			t.Errorf("got %+v", s)
		}
		if string(o.Raw("hosts")) != `{"a":"1.2.3.4"}` {
			t.Errorf("hosts: %s", o.Raw("hosts"))
		}
	})
}

func TestConflictsAndErrors(t *testing.T) {
	cases := []struct {
		script string
		flags  Flags
		want   []string // all in the message
	}{
		{`{"scenarios":{"a":{"executor":"constant-vus","duration":"1m"}},"duration":"10s"}`, Flags{}, []string{"scenarios", "duration"}},
		{`{"scenarios":{"a":{"executor":"constant-vus","duration":"1m"}},"iterations":3}`, Flags{}, []string{"scenarios", "iterations"}},
		{`{"stages":[{"duration":"1s","target":1}],"duration":"10s"}`, Flags{}, []string{"stages", "duration"}},
		{`{"scenarios":{"x":{"executor":"constant-vuz"}}}`, Flags{}, []string{`"x"`, "unknown executor", "constant-vuz"}},
		{`{"scenarios":{"x":{"vus":1}}}`, Flags{}, []string{`"x"`, "executor is missing"}},
		{`{"scenarios":{"x":{"executor":"constant-vus","vus":1}}}`, Flags{}, []string{`"x"`, "duration is required"}},
		{`{"scenarios":{"x":{"executor":"constant-vus","duration":"1m","rate":5}}}`, Flags{}, []string{`"x"`, `unknown field "rate"`}},
		{`{"scenarios":{"x":{"executor":"shared-iterations","vus":10,"iterations":3}}}`, Flags{}, []string{`"x"`, "iterations (3)", "vus (10)"}},
		{`{"scenarios":{"x":{"executor":"constant-vus","duration":"soon"}}}`, Flags{}, []string{`"x"`, "duration", "soon"}},
		{`{"scenarios":{"x":{"executor":"constant-arrival-rate","rate":5,"duration":"1m"}}}`, Flags{}, []string{`"x"`, "preAllocatedVUs is required"}},
		{`{"scenarios":{"x":{"executor":"constant-arrival-rate","rate":5,"duration":"1m","preAllocatedVUs":5,"maxVUs":2}}}`, Flags{}, []string{`"x"`, "maxVUs (2)", "preAllocatedVUs (5)"}},
		{`{"scenarios":{"x":{"executor":"ramping-vus","stages":[]}}}`, Flags{}, []string{`"x"`, "stages"}},
		{`{"scenarios":{"x":{"executor":"per-vu-iterations","vus":-1}}}`, Flags{}, []string{`"x"`, "vus must not be negative"}},
		{`{"scenarios":{"x":{"executor":"ramping-vus","stages":[{"duration":"1s","target":2,"foo":1}]}}}`, Flags{}, []string{`"x"`, "stage 0", `"foo"`}},
		{`{"vus":"ten"}`, Flags{}, []string{"vus"}},
		{`{"setupTimeout":"later"}`, Flags{}, []string{"setupTimeout"}},
		{`{"vus":10}`, Flags{}, []string{"iterations (1)", "vus (10)"}},
		{`{}`, Flags{ExecutionSegment: "1/4:2/4", ExecutionSegmentSequence: "0,1/3,2/3,1"}, []string{"1/4:2/4", "not one of the parts"}},
		{`{}`, Flags{Duration: dur(0)}, []string{"duration must be more than 0"}},
	}
	for _, c := range cases {
		_, err := Consolidate(json.RawMessage(c.script), nil, c.flags)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: want a ConfigError, got %v", c.script, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: message %q does not say %q", c.script, err, w)
			}
		}
	}
}

func TestExecutorDefaults(t *testing.T) {
	o := consolidate(t, `{"scenarios":{
		"car":{"executor":"constant-arrival-rate","rate":10,"duration":"1m","preAllocatedVUs":3},
		"rar":{"executor":"ramping-arrival-rate","preAllocatedVUs":2,"maxVUs":8,"stages":[{"duration":"30s","target":20}]},
		"per":{"executor":"per-vu-iterations","exec":"other","env":{"A":"1"},"tags":{"t":"v"},"startTime":"10s","gracefulStop":"2s"},
		"ramp":{"executor":"ramping-vus","stages":[{"duration":"10s","target":3}]}}}`, Flags{})
	byName := map[string]*Scenario{}
	for _, s := range o.Scenarios {
		byName[s.Name] = s
	}
	if s := byName["car"]; s.MaxVUs != 3 || s.TimeUnit != time.Second || s.GracefulStop != 30*time.Second || s.Exec != "default" {
		t.Errorf("car: %+v", s)
	}
	if s := byName["rar"]; s.StartRate != 0 || s.MaxVUs != 8 {
		t.Errorf("rar: %+v", s)
	}
	if s := byName["per"]; s.VUs != 1 || s.Iterations != 1 || s.MaxDuration != 10*time.Minute || s.Exec != "other" ||
		s.Env["A"] != "1" || s.Tags["t"] != "v" || s.StartTime != 10*time.Second || s.GracefulStop != 2*time.Second {
		t.Errorf("per: %+v", s)
	}
	if s := byName["ramp"]; s.StartVUs != 1 || s.GracefulRampDown != 30*time.Second {
		t.Errorf("ramp: %+v", s)
	}
	// The consolidated JSON shows every field with k6 duration strings.
	var out struct {
		Scenarios map[string]map[string]any `json:"scenarios"`
		Setup     string                    `json:"setupTimeout"`
	}
	if err := json.Unmarshal(o.JSON(), &out); err != nil {
		t.Fatal(err)
	}
	car := out.Scenarios["car"]
	if car["timeUnit"] != "1s" || car["duration"] != "1m0s" || car["gracefulStop"] != "30s" || car["maxVUs"] != 3.0 || car["rate"] != 10.0 {
		t.Errorf("car JSON: %v", car)
	}
	if out.Setup != "1m0s" {
		t.Errorf("setupTimeout default: %q", out.Setup)
	}
	if err := o.CheckExec(func(n string) bool { return n == "default" }); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("CheckExec: %v", err)
	}
}

func TestRequirements(t *testing.T) {
	t.Run("constant-vus", func(t *testing.T) {
		r := consolidate(t, `{"vus":10,"duration":"1m30s"}`, Flags{}).Requirements()
		if r.TotalDuration != 2*time.Minute || r.MaxVUs != 10 || r.SegmentMaxVUs != 10 || r.PeakArrivalRate != 0 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("sequential scenarios share VUs, overlapping ones add up", func(t *testing.T) {
		r := consolidate(t, `{"scenarios":{
			"a":{"executor":"constant-vus","vus":10,"duration":"30s","gracefulStop":"0s"},
			"b":{"executor":"constant-vus","vus":4,"duration":"30s","startTime":"30s"},
			"c":{"executor":"constant-arrival-rate","rate":120,"timeUnit":"1m","duration":"20s","preAllocatedVUs":2,"maxVUs":5,"startTime":"40s"}}}`, Flags{}).Requirements()
		// a ends at 30s (no graceful stop); b holds 4 VUs from 30s to 90s, c 5 from 40s to 90s.
		if r.TotalDuration != 90*time.Second || r.MaxVUs != 10 || r.InitialVUs != 10 || r.PeakArrivalRate != 2 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("ramping and arrival rate", func(t *testing.T) {
		r := consolidate(t, `{"scenarios":{
			"r":{"executor":"ramping-vus","startVUs":2,"stages":[{"duration":"10s","target":20},{"duration":"10s","target":0}],"gracefulRampDown":"5s","gracefulStop":"3s"},
			"ar":{"executor":"ramping-arrival-rate","startRate":5,"stages":[{"duration":"1m","target":50}],"preAllocatedVUs":5,"maxVUs":30}}}`, Flags{}).Requirements()
		if r.TotalDuration != 90*time.Second || r.MaxVUs != 50 || r.InitialVUs != 25 || r.PeakArrivalRate != 50 {
			t.Errorf("got %+v", r)
		}
	})
}

// The parts of a sequence add up exactly to the whole test.
func TestSegmentsAddUp(t *testing.T) {
	sequences := []string{"0,1/3,2/3,1", "0,1/4,2/4,3/4,1", "0,1/3,1/2,1", "0,0.1,0.5,0.55,1"}
	for _, seq := range sequences {
		bounds := strings.Split(seq, ",")
		var stripers []*Striper
		for i := 0; i+1 < len(bounds); i++ {
			st, err := NewStriper(bounds[i]+":"+bounds[i+1], seq)
			if err != nil {
				t.Fatal(err)
			}
			stripers = append(stripers, st)
		}
		for n := int64(0); n < 200; n++ {
			var sum int64
			seen := map[int64]bool{}
			for _, st := range stripers {
				k := st.Scale(n)
				sum += k
				for j := int64(0); j < k; j++ {
					g := st.Global(j)
					if g >= n || seen[g] {
						t.Fatalf("%s: n=%d: item %d of part %d is %d (out of range or taken)", seq, n, j, st.Index, g)
					}
					seen[g] = true
				}
			}
			if sum != n {
				t.Fatalf("%s: the parts of %d add up to %d", seq, n, sum)
			}
		}
		// Whole options: 10 VUs, 7 iterations, rate 5/s for 3s.
		script := `{"scenarios":{
			"cv":{"executor":"constant-vus","vus":10,"duration":"10s"},
			"si":{"executor":"shared-iterations","vus":7,"iterations":7},
			"pv":{"executor":"per-vu-iterations","vus":10,"iterations":7},
			"ar":{"executor":"constant-arrival-rate","rate":5,"duration":"3s","preAllocatedVUs":10},
			"rr":{"executor":"ramping-arrival-rate","startRate":1,"stages":[{"duration":"3s","target":5},{"duration":"2s","target":0}],"preAllocatedVUs":10},
			"rv":{"executor":"ramping-vus","startVUs":0,"stages":[{"duration":"3s","target":10},{"duration":"3s","target":3}]}}}`
		sums := map[string]int64{}
		arrivals := map[string]map[int64]bool{"ar": {}, "rr": {}}
		rampSum := map[time.Duration]int64{}
		var whole *Options
		for i := range stripers {
			o := consolidate(t, script, Flags{ExecutionSegment: bounds[i] + ":" + bounds[i+1], ExecutionSegmentSequence: seq})
			whole = o
			for _, s := range o.Scenarios {
				p := o.Part(s)
				switch s.Name {
				case "cv":
					sums["cv vus"] += p.VUs
				case "si":
					sums["si iterations"] += p.Iterations
					sums["si vus"] += p.VUs
				case "pv":
					sums["pv iterations"] += p.VUs * p.Iterations
				case "ar", "rr":
					sch := s.Schedule()
					for c := int64(0); ; c++ {
						k := o.Striper.Global(c)
						if _, ok := sch.Offset(k); !ok {
							break
						}
						if arrivals[s.Name][k] {
							t.Fatalf("%s: arrival %d twice", seq, k)
						}
						arrivals[s.Name][k] = true
					}
					sums[s.Name+" count"] += o.ArrivalCount(s)
				case "rv":
					for at := time.Duration(0); at <= 6*time.Second; at += 250 * time.Millisecond {
						rampSum[at] += o.Striper.Scale(s.RampingVUsAt(at))
					}
				}
			}
		}
		want := map[string]int64{"cv vus": 10, "si iterations": 7, "si vus": 7, "pv iterations": 70, "ar count": 15, "rr count": 14}
		for k, v := range want {
			if sums[k] != v {
				t.Errorf("%s: %s add up to %d, want %d", seq, k, sums[k], v)
			}
		}
		for name, n := range map[string]int{"ar": 15, "rr": 14} {
			if len(arrivals[name]) != n {
				t.Errorf("%s: %s: %d distinct arrivals, want %d", seq, name, len(arrivals[name]), n)
			}
		}
		var rv *Scenario
		for _, s := range whole.Scenarios {
			if s.Name == "rv" {
				rv = s
			}
		}
		for at, v := range rampSum {
			if w := rv.RampingVUsAt(at); v != w {
				t.Errorf("%s: ramping VUs at %v add up to %d, want %d", seq, at, v, w)
			}
		}
	}
}

func TestSegmentParsing(t *testing.T) {
	st, err := NewStriper("1/4:2/4", "")
	if err != nil || st.Parts != 3 || st.Index != 1 || st.Segment != "1/4:1/2" {
		t.Fatalf("got %+v, %v", st, err)
	}
	if st, err = NewStriper("0.5:100%", "0,0.5,1"); err != nil || st.Index != 1 {
		t.Fatalf("got %+v, %v", st, err)
	}
	for _, bad := range [][2]string{{"2/4:1/4", ""}, {"0:2", ""}, {"a:b", ""}, {"0:1/2", "0,1/2,1/4,1"}} {
		if _, err := NewStriper(bad[0], bad[1]); err == nil {
			t.Errorf("%v must be refused", bad)
		}
	}
	// The biggest part gets the first item.
	big, _ := NewStriper("1/4:1", "0,1/4,1")
	if big.Scale(1) != 1 {
		t.Error("the biggest part should get the first VU")
	}
}

func TestSchedule(t *testing.T) {
	s, err := parseScenario("c", json.RawMessage(`{"executor":"constant-arrival-rate","rate":1000,"duration":"30s","preAllocatedVUs":10}`))
	if err != nil {
		t.Fatal(err)
	}
	sch := s.Schedule()
	if sch.Count() != 30000 {
		t.Errorf("count %d", sch.Count())
	}
	if off, ok := sch.Offset(29999); !ok || off != 29999*time.Millisecond {
		t.Errorf("last: %v %v", off, ok)
	}
	if _, ok := sch.Offset(30000); ok {
		t.Error("30000 is past the end")
	}
	r, err := parseScenario("r", json.RawMessage(`{"executor":"ramping-arrival-rate","startRate":0,"timeUnit":"1s",
		"stages":[{"duration":"2s","target":0},{"duration":"10s","target":10},{"duration":"5s","target":10}],"preAllocatedVUs":1}`))
	if err != nil {
		t.Fatal(err)
	}
	sch = r.Schedule()
	if sch.Count() != 100 { // 0 for 2s, then 50 over the ramp, then 50 over 5s at 10/s
		t.Errorf("count %d", sch.Count())
	}
	first, _ := sch.Offset(0)
	if first != 2*time.Second {
		t.Errorf("first arrival at %v, want 2s (the rate is 0 before)", first)
	}
	// On the ramp the rate at t (from 2s) is t iterations/s: k is due at 2s + sqrt(2k) s.
	for _, k := range []int64{1, 8, 32, 49} {
		off, _ := sch.Offset(k)
		want := 2*time.Second + time.Duration(sqrt(float64(2*k))*float64(time.Second))
		if d := off - want; d > time.Microsecond || d < -time.Microsecond {
			t.Errorf("k=%d: %v, want %v", k, off, want)
		}
	}
	prev := time.Duration(-1)
	for k := int64(0); k < sch.Count(); k++ {
		off, ok := sch.Offset(k)
		if !ok || off < prev || off >= 17*time.Second {
			t.Fatalf("k=%d: %v %v after %v", k, off, ok, prev)
		}
		prev = off
	}
}

func sqrt(x float64) float64 {
	z := x
	for range 60 {
		if z == 0 {
			return 0
		}
		z = (z + x/z) / 2
	}
	return z
}

func TestRampingVUs(t *testing.T) {
	s, err := parseScenario("r", json.RawMessage(`{"executor":"ramping-vus","startVUs":0,"stages":[{"duration":"10s","target":10},{"duration":"0s","target":4},{"duration":"4s","target":0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for at, want := range map[time.Duration]int64{0: 0, 999 * time.Millisecond: 0, time.Second: 1, 9999 * time.Millisecond: 9,
		10 * time.Second: 4, 11 * time.Second: 3, 14 * time.Second: 0, time.Hour: 0} {
		if got := s.RampingVUsAt(at); got != want {
			t.Errorf("at %v: %d, want %d", at, got, want)
		}
	}
	// Walking the change points visits every change.
	var points []string
	at := time.Duration(-1)
	for {
		next, ok := s.NextRampingChange(at)
		if !ok {
			break
		}
		if next <= at {
			t.Fatalf("not moving: %v after %v", next, at)
		}
		at = next
		points = append(points, fmt.Sprintf("%v=%d", at, s.RampingVUsAt(at)))
	}
	want := "1s=1 2s=2 3s=3 4s=4 5s=5 6s=6 7s=7 8s=8 9s=9 10s=4 11s=3 12s=2 13s=1 14s=0"
	if got := strings.Join(points, " "); got != want {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
}
