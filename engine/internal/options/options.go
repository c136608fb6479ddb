// Package options consolidates a test's k6 options: a --config file's, the
// script's `export const options` and the command line's flags, in k6's
// documented order of precedence (config file < script < flags). It turns
// k6's shortcuts (vus, duration, iterations, stages) into scenarios, validates
// every scenario with k6's defaults, splits the test into execution segments
// and computes its execution requirements. Every error is a *ConfigError (exit code 104).
package options

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ConfigError is an invalid option: k6's exit code 104.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func configErr(format string, a ...any) error { return &ConfigError{fmt.Sprintf(format, a...)} }

// DefaultScenarioName is the name of the scenario made from shortcut options.
const DefaultScenarioName = "default"

// Defaults k6 documents for the options the engine itself reads.
var (
	DefaultSetupTimeout      = 60 * time.Second
	DefaultTeardownTimeout   = 60 * time.Second
	DefaultSummaryTrendStats = []string{"avg", "min", "med", "max", "p(90)", "p(95)"}
)

// Flags are the command line's options; nil / empty means "not given".
type Flags struct {
	VUs        *int64
	Duration   *time.Duration
	Iterations *int64
	Stages     []Stage // --stage 30s:10, repeatable

	ExecutionSegment, ExecutionSegmentSequence string

	BlacklistIPs   []string // --blacklist-ip
	BlockHostnames []string // --block-hostnames
}

// Options are the consolidated options.
type Options struct {
	raw map[string]json.RawMessage
	// Scenarios in name order, k6's defaults filled in.
	Scenarios []*Scenario
	// Striper splits the test for this instance's execution segment.
	Striper *Striper
}

// Consolidate merges the --config file's options (may be nil), the script's (may be nil) and the flags.
func Consolidate(script, config json.RawMessage, flags Flags) (*Options, error) {
	cfgLayer, err := layerOf("the --config file", config)
	if err != nil {
		return nil, err
	}
	scriptLayer, err := layerOf("the script's options", script)
	if err != nil {
		return nil, err
	}
	flagLayer, err := flags.layer()
	if err != nil {
		return nil, err
	}
	layers := []layer{cfgLayer, scriptLayer, flagLayer}

	raw := map[string]json.RawMessage{}
	for _, l := range layers {
		maps.Copy(raw, l.values)
	}
	o := &Options{raw: raw}
	if err := o.checkTypes(); err != nil {
		return nil, err
	}

	// Which layer decides the scenarios: the highest that sets scenarios or a shortcut.
	var decider *layer
	for i := range layers {
		l := &layers[i]
		if l.setsExecution() {
			decider = l
		}
		if err := l.checkConflicts(); err != nil {
			return nil, err
		}
	}
	var scenarios map[string]json.RawMessage
	if decider != nil && decider.has("scenarios") {
		if err := json.Unmarshal(decider.values["scenarios"], &scenarios); err != nil || scenarios == nil {
			return nil, configErr("%s: scenarios must be an object of scenario name to scenario", decider.name)
		}
		if len(scenarios) == 0 {
			return nil, configErr("%s: scenarios is empty: give at least one scenario", decider.name)
		}
	} else {
		sc, err := o.shortcutScenario(decider)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(sc)
		scenarios = map[string]json.RawMessage{DefaultScenarioName: b}
	}
	// Shortcuts of layers below the deciding one do not apply: they stay out of the consolidated options.
	for _, k := range []string{"duration", "iterations", "stages"} {
		if decider == nil || !decider.has(k) {
			delete(raw, k)
		}
	}
	for _, name := range sortedKeys(scenarios) {
		if strings.TrimSpace(name) == "" {
			return nil, configErr("a scenario's name must not be empty")
		}
		s, err := parseScenario(name, scenarios[name])
		if err != nil {
			return nil, err
		}
		o.Scenarios = append(o.Scenarios, s)
	}
	all := make(map[string]*Scenario, len(o.Scenarios))
	for _, s := range o.Scenarios {
		all[s.Name] = s
	}
	raw["scenarios"], _ = json.Marshal(all)

	seg, seq := o.stringOption("executionSegment"), o.stringOption("executionSegmentSequence")
	if o.Striper, err = NewStriper(seg, seq); err != nil {
		return nil, &ConfigError{err.Error()}
	}
	for k, def := range map[string]any{
		"setupTimeout": Duration(DefaultSetupTimeout), "teardownTimeout": Duration(DefaultTeardownTimeout),
		"summaryTrendStats": DefaultSummaryTrendStats,
	} {
		if r, ok := raw[k]; !ok || isNull(r) {
			raw[k], _ = json.Marshal(def)
		}
	}
	return o, nil
}

// layer is one source of options.
type layer struct {
	name   string
	values map[string]json.RawMessage
}

func layerOf(name string, b json.RawMessage) (layer, error) {
	l := layer{name: name, values: map[string]json.RawMessage{}}
	if len(b) == 0 || isNull(b) {
		return l, nil
	}
	if err := json.Unmarshal(b, &l.values); err != nil {
		return l, configErr("%s must be a JSON object: %v", name, err)
	}
	for k, v := range l.values { // an option set to null (or undefined in JS) is not set
		if isNull(v) {
			delete(l.values, k)
		}
	}
	return l, nil
}

func (l *layer) has(k string) bool { _, ok := l.values[k]; return ok }

func (l *layer) setsExecution() bool {
	return l.has("scenarios") || l.has("duration") || l.has("iterations") || l.has("stages")
}

// checkConflicts refuses what k6 refuses within one source: scenarios with shortcuts, stages with duration or iterations.
func (l *layer) checkConflicts() error {
	if l.has("scenarios") {
		for _, k := range []string{"duration", "iterations", "stages"} {
			if l.has(k) {
				return configErr("%s set both \"scenarios\" and the shortcut %q: use one or the other (put the %s into a scenario)", l.name, k, k)
			}
		}
	}
	if l.has("stages") {
		for _, k := range []string{"duration", "iterations"} {
			if l.has(k) {
				return configErr("%s set both \"stages\" and %q: stages already say how long the test runs", l.name, k)
			}
		}
	}
	return nil
}

func (f Flags) layer() (layer, error) {
	l := layer{name: "the command line", values: map[string]json.RawMessage{}}
	set := func(k string, v any) { l.values[k], _ = json.Marshal(v) }
	if f.VUs != nil {
		if *f.VUs < 0 {
			return l, configErr("--vus must not be negative, got %d", *f.VUs)
		}
		set("vus", *f.VUs)
	}
	if f.Duration != nil {
		set("duration", Duration(*f.Duration))
	}
	if f.Iterations != nil {
		set("iterations", *f.Iterations)
	}
	if len(f.Stages) > 0 {
		set("stages", f.Stages)
	}
	if f.ExecutionSegment != "" {
		set("executionSegment", f.ExecutionSegment)
	}
	if f.ExecutionSegmentSequence != "" {
		set("executionSegmentSequence", f.ExecutionSegmentSequence)
	}
	if f.BlacklistIPs != nil {
		set("blacklistIPs", f.BlacklistIPs)
	}
	if f.BlockHostnames != nil {
		set("blockHostnames", f.BlockHostnames)
	}
	return l, nil
}

// shortcutScenario makes the "default" scenario from vus, duration, iterations and stages (k6's shortcuts):
// stages -> ramping-vus; iterations (with vus, and duration as maxDuration) -> shared-iterations;
// duration -> constant-vus; nothing -> one VU running one iteration.
func (o *Options) shortcutScenario(decider *layer) (map[string]any, error) {
	vus := int64(-1)
	if r, ok := o.raw["vus"]; ok {
		v, err := parseInt(r)
		if err != nil || v < 0 {
			return nil, configErr("vus must be a whole number of at least 0, got %s", string(r))
		}
		vus = v
	}
	vusOr1 := max(vus, 1)
	if vus == 0 {
		vusOr1 = 0 // let the scenario's validation say what is wrong
	}
	has := func(k string) bool { return decider != nil && decider.has(k) }
	sc := map[string]any{"exec": "default"}
	switch {
	case has("stages"):
		stages, err := parseStages(decider.values["stages"])
		if err != nil {
			return nil, configErr("stages: %v", err)
		}
		sc["executor"] = RampingVUs
		sc["stages"] = stages
		if vus >= 0 {
			sc["startVUs"] = vus
		}
	case has("iterations"):
		it, err := parseInt(decider.values["iterations"])
		if err != nil {
			return nil, configErr("iterations: %v", err)
		}
		sc["executor"] = SharedIterations
		sc["vus"] = vusOr1
		sc["iterations"] = it
		if has("duration") {
			sc["maxDuration"] = decider.values["duration"]
		}
	case has("duration"):
		var d Duration
		if err := json.Unmarshal(decider.values["duration"], &d); err != nil {
			return nil, configErr("duration: %v", err)
		}
		if d <= 0 {
			return nil, configErr("duration must be more than 0, got %s", d)
		}
		sc["executor"] = ConstantVUs
		sc["vus"] = vusOr1
		sc["duration"] = d
	default:
		sc["executor"] = SharedIterations
		sc["vus"] = vusOr1
		sc["iterations"] = 1
	}
	return sc, nil
}

// checkTypes refuses wrongly typed options the engine reads itself; the rest are passed through untouched.
func (o *Options) checkTypes() error {
	for _, k := range []string{"duration", "setupTimeout", "teardownTimeout", "minIterationDuration"} {
		if r, ok := o.raw[k]; ok {
			var d Duration
			if err := json.Unmarshal(r, &d); err != nil {
				return configErr("option %s: %v", k, err)
			}
		}
	}
	for _, k := range []string{"vus", "iterations"} {
		if r, ok := o.raw[k]; ok {
			if _, err := parseInt(r); err != nil {
				return configErr("option %s: %v", k, err)
			}
		}
	}
	if r, ok := o.raw["tags"]; ok {
		if _, err := parseStringMap(r); err != nil {
			return configErr("option tags: %v", err)
		}
	}
	for _, k := range []string{"summaryTrendStats", "blacklistIPs", "blockHostnames"} {
		if r, ok := o.raw[k]; ok {
			var v []string
			if err := json.Unmarshal(r, &v); err != nil {
				return configErr("option %s must be an array of strings, got %s", k, string(r))
			}
		}
	}
	for _, k := range []string{"executionSegment", "executionSegmentSequence", "summaryTimeUnit"} {
		if r, ok := o.raw[k]; ok {
			var v string
			if err := json.Unmarshal(r, &v); err != nil {
				return configErr("option %s must be a string, got %s", k, string(r))
			}
		}
	}
	if r, ok := o.raw["summaryTimeUnit"]; ok {
		var v string
		_ = json.Unmarshal(r, &v)
		if v != "" && !slices.Contains([]string{"s", "ms", "us"}, v) {
			return configErr("option summaryTimeUnit must be one of s, ms, us; got %q", v)
		}
	}
	return nil
}

// JSON is the consolidated options as k6 shows them (scenarios with every field, defaults included).
func (o *Options) JSON() json.RawMessage {
	b, _ := json.Marshal(o.raw)
	return b
}

// Raw is one option's JSON, nil when not set.
func (o *Options) Raw(key string) json.RawMessage { return o.raw[key] }

func (o *Options) stringOption(key string) string {
	var s string
	if r, ok := o.raw[key]; ok {
		_ = json.Unmarshal(r, &s)
	}
	return s
}

func (o *Options) durationOption(key string, def time.Duration) time.Duration {
	var d Duration
	if r, ok := o.raw[key]; ok && json.Unmarshal(r, &d) == nil {
		return d.D()
	}
	return def
}

func (o *Options) SetupTimeout() time.Duration {
	return o.durationOption("setupTimeout", DefaultSetupTimeout)
}

func (o *Options) TeardownTimeout() time.Duration {
	return o.durationOption("teardownTimeout", DefaultTeardownTimeout)
}

// Thresholds is the thresholds option as given (nil when none).
func (o *Options) Thresholds() json.RawMessage { return o.raw["thresholds"] }

func (o *Options) SummaryTrendStats() []string {
	var v []string
	if r, ok := o.raw["summaryTrendStats"]; ok && json.Unmarshal(r, &v) == nil && len(v) > 0 {
		return v
	}
	return slices.Clone(DefaultSummaryTrendStats)
}

func (o *Options) SummaryTimeUnit() string { return o.stringOption("summaryTimeUnit") }

// Tags are the test-wide tags (option tags), nil when none.
func (o *Options) Tags() map[string]string {
	if r, ok := o.raw["tags"]; ok {
		m, _ := parseStringMap(r)
		return m
	}
	return nil
}

// CheckExec refuses scenarios whose exec function the workload does not export.
func (o *Options) CheckExec(has func(name string) bool) error {
	for _, s := range o.Scenarios {
		if !has(s.Exec) {
			if s.Exec == "default" {
				return configErr("scenario %q: the script has no default function to run (export default function () {...}) and the scenario names no exec", s.Name)
			}
			return configErr("scenario %q: exec %q is not a function the script exports", s.Name, s.Exec)
		}
	}
	return nil
}
