package options

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// The executors k6 documents (externally-controlled is not supported).
const (
	SharedIterations    = "shared-iterations"
	PerVUIterations     = "per-vu-iterations"
	ConstantVUs         = "constant-vus"
	RampingVUs          = "ramping-vus"
	ConstantArrivalRate = "constant-arrival-rate"
	RampingArrivalRate  = "ramping-arrival-rate"
)

// Defaults k6 documents for scenarios.
const (
	DefaultGracefulStop = 30 * time.Second
	DefaultMaxDuration  = 10 * time.Minute
	DefaultTimeUnit     = time.Second
)

// Stage is one step of a ramping executor: reach Target (VUs, or iterations per timeUnit) over Duration.
type Stage struct {
	Duration Duration `json:"duration"`
	Target   int64    `json:"target"`
}

// Scenario is one scenario with k6's defaults filled in. Which fields mean
// something depends on the executor (see executorFields).
type Scenario struct {
	Name     string
	Executor string

	StartTime    time.Duration
	GracefulStop time.Duration
	Exec         string
	Env          map[string]string
	Tags         map[string]string

	VUs         int64         // shared-iterations, per-vu-iterations, constant-vus
	Iterations  int64         // shared-iterations (total), per-vu-iterations (per VU)
	Duration    time.Duration // constant-vus, constant-arrival-rate
	MaxDuration time.Duration // shared-iterations, per-vu-iterations

	StartVUs         int64         // ramping-vus
	GracefulRampDown time.Duration // ramping-vus
	Stages           []Stage       // ramping-vus, ramping-arrival-rate

	Rate            int64         // constant-arrival-rate
	StartRate       int64         // ramping-arrival-rate
	TimeUnit        time.Duration // arrival-rate executors
	PreAllocatedVUs int64         // arrival-rate executors
	MaxVUs          int64         // arrival-rate executors
}

var commonFields = []string{"executor", "startTime", "gracefulStop", "exec", "env", "tags"}

var executorFields = map[string][]string{
	SharedIterations:    {"vus", "iterations", "maxDuration"},
	PerVUIterations:     {"vus", "iterations", "maxDuration"},
	ConstantVUs:         {"vus", "duration"},
	RampingVUs:          {"startVUs", "stages", "gracefulRampDown"},
	ConstantArrivalRate: {"rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"},
	RampingArrivalRate:  {"startRate", "timeUnit", "stages", "preAllocatedVUs", "maxVUs"},
}

// IsArrivalRate tells the open-model executors from the closed-model ones.
func (s *Scenario) IsArrivalRate() bool {
	return s.Executor == ConstantArrivalRate || s.Executor == RampingArrivalRate
}

// StagesDuration is the sum of the stages' durations.
func (s *Scenario) StagesDuration() time.Duration {
	var d time.Duration
	for _, st := range s.Stages {
		d += st.Duration.D()
	}
	return d
}

// RunDuration is how long the scenario runs at most before its graceful stop (its duration, stages or maxDuration).
func (s *Scenario) RunDuration() time.Duration {
	switch s.Executor {
	case SharedIterations, PerVUIterations:
		return s.MaxDuration
	case ConstantVUs, ConstantArrivalRate:
		return s.Duration
	default:
		return s.StagesDuration()
	}
}

// EndOffset is when the scenario is over at the latest, counted from the test's start:
// startTime + its duration + gracefulStop (k6's execution requirements).
func (s *Scenario) EndOffset() time.Duration {
	return s.StartTime + s.RunDuration() + s.GracefulStop
}

// MaxVUsWhole is the most VUs the scenario can use (whole test).
func (s *Scenario) MaxVUsWhole() int64 {
	switch s.Executor {
	case RampingVUs:
		m := s.StartVUs
		for _, st := range s.Stages {
			m = max(m, st.Target)
		}
		return m
	case ConstantArrivalRate, RampingArrivalRate:
		return max(s.MaxVUs, s.PreAllocatedVUs)
	default:
		return s.VUs
	}
}

// PeakRatePerSecond is the most iterations per second an arrival-rate scenario starts (0 for the others).
func (s *Scenario) PeakRatePerSecond() float64 {
	var top int64
	switch s.Executor {
	case ConstantArrivalRate:
		top = s.Rate
	case RampingArrivalRate:
		top = s.StartRate
		for _, st := range s.Stages {
			top = max(top, st.Target)
		}
	default:
		return 0
	}
	return float64(top) / s.TimeUnit.Seconds()
}

var funcName = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// parseScenario reads one scenario's JSON, refusing fields its executor does not have, and fills k6's defaults.
func parseScenario(name string, raw json.RawMessage) (*Scenario, error) {
	fail := func(format string, a ...any) error {
		return &ConfigError{fmt.Sprintf("scenario %q: ", name) + fmt.Sprintf(format, a...)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fail("must be an object")
	}
	var executor string
	if r, ok := fields["executor"]; !ok {
		return nil, fail("executor is missing (one of %s)", strings.Join(executorNames(), ", "))
	} else if err := json.Unmarshal(r, &executor); err != nil {
		return nil, fail("executor must be a string")
	}
	allowed, ok := executorFields[executor]
	if !ok {
		if executor == "externally-controlled" {
			return nil, fail("the externally-controlled executor is not supported")
		}
		return nil, fail("unknown executor %q (one of %s)", executor, strings.Join(executorNames(), ", "))
	}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(commonFields, k) && !slices.Contains(allowed, k) {
			return nil, fail("unknown field %q for executor %s (its fields: %s)", k, executor,
				strings.Join(append(slices.Clone(commonFields), allowed...), ", "))
		}
	}
	s := &Scenario{
		Name: name, Executor: executor, GracefulStop: DefaultGracefulStop, Exec: "default",
		VUs: 1, Iterations: 1, MaxDuration: DefaultMaxDuration, StartVUs: 1,
		GracefulRampDown: DefaultGracefulStop, TimeUnit: DefaultTimeUnit, MaxVUs: -1,
	}
	durationField := func(key string, dst *time.Duration) error {
		r, ok := fields[key]
		if !ok || isNull(r) {
			return nil
		}
		var d Duration
		if err := json.Unmarshal(r, &d); err != nil {
			return fail("%s: %v", key, err)
		}
		if d < 0 {
			return fail("%s must not be negative, got %s", key, d)
		}
		*dst = d.D()
		return nil
	}
	intField := func(key string, dst *int64) error {
		r, ok := fields[key]
		if !ok || isNull(r) {
			return nil
		}
		v, err := parseInt(r)
		if err != nil {
			return fail("%s: %v", key, err)
		}
		if v < 0 {
			return fail("%s must not be negative, got %d", key, v)
		}
		*dst = v
		return nil
	}
	for _, f := range []struct {
		key string
		dst *time.Duration
	}{{"startTime", &s.StartTime}, {"gracefulStop", &s.GracefulStop}, {"duration", &s.Duration},
		{"maxDuration", &s.MaxDuration}, {"gracefulRampDown", &s.GracefulRampDown}, {"timeUnit", &s.TimeUnit}} {
		if err := durationField(f.key, f.dst); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"vus", &s.VUs}, {"iterations", &s.Iterations}, {"startVUs", &s.StartVUs}, {"rate", &s.Rate},
		{"startRate", &s.StartRate}, {"preAllocatedVUs", &s.PreAllocatedVUs}, {"maxVUs", &s.MaxVUs}} {
		if err := intField(f.key, f.dst); err != nil {
			return nil, err
		}
	}
	if r, ok := fields["exec"]; ok && !isNull(r) {
		if err := json.Unmarshal(r, &s.Exec); err != nil || !funcName.MatchString(s.Exec) {
			return nil, fail("exec must be the name of an exported function, got %s", string(r))
		}
	}
	for _, f := range []struct {
		key string
		dst *map[string]string
	}{{"env", &s.Env}, {"tags", &s.Tags}} {
		if r, ok := fields[f.key]; ok && !isNull(r) {
			m, err := parseStringMap(r)
			if err != nil {
				return nil, fail("%s: %v", f.key, err)
			}
			*f.dst = m
		}
	}
	if r, ok := fields["stages"]; ok && !isNull(r) {
		st, err := parseStages(r)
		if err != nil {
			return nil, fail("stages: %v", err)
		}
		s.Stages = st
	}
	if s.MaxVUs < 0 {
		s.MaxVUs = s.PreAllocatedVUs // k6: maxVUs defaults to preAllocatedVUs
	}
	if err := s.validate(fields); err != nil {
		return nil, fail("%s", err)
	}
	return s, nil
}

func (s *Scenario) validate(fields map[string]json.RawMessage) error {
	has := func(k string) bool { r, ok := fields[k]; return ok && !isNull(r) }
	positive := func(key string, v int64) error {
		if v <= 0 {
			return fmt.Errorf("%s must be more than 0, got %d", key, v)
		}
		return nil
	}
	required := func(keys ...string) error {
		for _, k := range keys {
			if !has(k) {
				return fmt.Errorf("%s is required for executor %s", k, s.Executor)
			}
		}
		return nil
	}
	stages := func() error {
		if len(s.Stages) == 0 {
			return fmt.Errorf("stages must have at least one stage")
		}
		if s.StagesDuration() <= 0 {
			return fmt.Errorf("the stages' total duration must be more than 0")
		}
		return nil
	}
	switch s.Executor {
	case SharedIterations, PerVUIterations:
		if err := errorsJoin(positive("vus", s.VUs), positive("iterations", s.Iterations)); err != nil {
			return err
		}
		if s.MaxDuration <= 0 {
			return fmt.Errorf("maxDuration must be more than 0")
		}
		if s.Executor == SharedIterations && s.Iterations < s.VUs {
			return fmt.Errorf("iterations (%d) must not be less than vus (%d): each VU needs at least one iteration", s.Iterations, s.VUs)
		}
	case ConstantVUs:
		if err := required("duration"); err != nil {
			return err
		}
		if err := positive("vus", s.VUs); err != nil {
			return err
		}
		if s.Duration <= 0 {
			return fmt.Errorf("duration must be more than 0")
		}
	case RampingVUs:
		if err := required("stages"); err != nil {
			return err
		}
		return stages()
	case ConstantArrivalRate:
		if err := required("rate", "duration", "preAllocatedVUs"); err != nil {
			return err
		}
		if err := positive("rate", s.Rate); err != nil {
			return err
		}
		if s.Duration <= 0 {
			return fmt.Errorf("duration must be more than 0")
		}
	case RampingArrivalRate:
		if err := required("stages", "preAllocatedVUs"); err != nil {
			return err
		}
		if err := stages(); err != nil {
			return err
		}
	}
	if s.IsArrivalRate() {
		if s.TimeUnit <= 0 {
			return fmt.Errorf("timeUnit must be more than 0")
		}
		if s.MaxVUs < s.PreAllocatedVUs {
			return fmt.Errorf("maxVUs (%d) must not be less than preAllocatedVUs (%d)", s.MaxVUs, s.PreAllocatedVUs)
		}
		if s.MaxVUs <= 0 {
			return fmt.Errorf("preAllocatedVUs or maxVUs must be more than 0")
		}
	}
	return nil
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// MarshalJSON writes the scenario as k6's consolidated options show it: every field of its executor, defaults included.
func (s *Scenario) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	put := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	put("executor", s.Executor)
	put("startTime", Duration(s.StartTime))
	put("gracefulStop", Duration(s.GracefulStop))
	put("exec", s.Exec)
	if s.Env != nil {
		put("env", s.Env)
	}
	if s.Tags != nil {
		put("tags", s.Tags)
	}
	switch s.Executor {
	case SharedIterations, PerVUIterations:
		put("vus", s.VUs)
		put("iterations", s.Iterations)
		put("maxDuration", Duration(s.MaxDuration))
	case ConstantVUs:
		put("vus", s.VUs)
		put("duration", Duration(s.Duration))
	case RampingVUs:
		put("startVUs", s.StartVUs)
		put("stages", stagesOrEmpty(s.Stages))
		put("gracefulRampDown", Duration(s.GracefulRampDown))
	case ConstantArrivalRate:
		put("rate", s.Rate)
		put("timeUnit", Duration(s.TimeUnit))
		put("duration", Duration(s.Duration))
		put("preAllocatedVUs", s.PreAllocatedVUs)
		put("maxVUs", s.MaxVUs)
	case RampingArrivalRate:
		put("startRate", s.StartRate)
		put("timeUnit", Duration(s.TimeUnit))
		put("stages", stagesOrEmpty(s.Stages))
		put("preAllocatedVUs", s.PreAllocatedVUs)
		put("maxVUs", s.MaxVUs)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func stagesOrEmpty(s []Stage) []Stage {
	if s == nil {
		return []Stage{}
	}
	return s
}

func executorNames() []string {
	return []string{SharedIterations, PerVUIterations, ConstantVUs, RampingVUs, ConstantArrivalRate, RampingArrivalRate}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isNull(r json.RawMessage) bool { return string(bytes.TrimSpace(r)) == "null" }

// parseInt reads a whole number (k6 accepts 10 and 10.0, not "10").
func parseInt(r json.RawMessage) (int64, error) {
	var f float64
	if err := json.Unmarshal(r, &f); err != nil {
		return 0, fmt.Errorf("expected a number, got %s", string(r))
	}
	if f != float64(int64(f)) {
		return 0, fmt.Errorf("expected a whole number, got %s", string(r))
	}
	return int64(f), nil
}

func parseStringMap(r json.RawMessage) (map[string]string, error) {
	var raw map[string]any
	if err := json.Unmarshal(r, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("expected an object of strings, got %s", string(r))
	}
	m := make(map[string]string, len(raw))
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			m[k] = v
		case float64, bool:
			m[k] = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("%q must be a string", k)
		}
	}
	return m, nil
}

func parseStages(r json.RawMessage) ([]Stage, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(r, &raw); err != nil {
		return nil, fmt.Errorf("expected an array of {duration, target}")
	}
	out := make([]Stage, len(raw))
	for i, st := range raw {
		for k := range st {
			if k != "duration" && k != "target" {
				return nil, fmt.Errorf("stage %d: unknown field %q (a stage has duration and target)", i, k)
			}
		}
		d, ok := st["duration"]
		if !ok || isNull(d) {
			return nil, fmt.Errorf("stage %d: duration is missing", i)
		}
		if err := json.Unmarshal(d, &out[i].Duration); err != nil {
			return nil, fmt.Errorf("stage %d: duration: %v", i, err)
		}
		if out[i].Duration < 0 {
			return nil, fmt.Errorf("stage %d: duration must not be negative", i)
		}
		if t, ok := st["target"]; ok && !isNull(t) {
			v, err := parseInt(t)
			if err != nil {
				return nil, fmt.Errorf("stage %d: target: %v", i, err)
			}
			if v < 0 {
				return nil, fmt.Errorf("stage %d: target must not be negative, got %d", i, v)
			}
			out[i].Target = v
		}
	}
	return out, nil
}
