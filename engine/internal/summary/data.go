package summary

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/thresholds"
)

// DefaultTrendStats is k6's default summaryTrendStats.
var DefaultTrendStats = []string{"avg", "min", "med", "max", "p(90)", "p(95)"}

// Options are the summary's options: k6's summaryTrendStats and summaryTimeUnit, how long the test ran
// (counters' rates are per second over it), and what handleSummary's data says of the terminal.
type Options struct {
	TrendStats   []string
	TimeUnit     string // "", "s", "ms" or "us"
	TestDuration time.Duration
	NoColor      bool
	StdOutTTY    bool
	StdErrTTY    bool
}

// percentileOf reads "p(N)" with 0 <= N <= 100.
func percentileOf(stat string) (float64, bool) {
	if !strings.HasPrefix(stat, "p(") || !strings.HasSuffix(stat, ")") {
		return 0, false
	}
	p, err := strconv.ParseFloat(strings.TrimSpace(stat[2:len(stat)-1]), 64)
	if err != nil || p < 0 || p > 100 {
		return 0, false
	}
	return p, true
}

// ValidateTrendStats checks summaryTrendStats: avg, min, med, max, count or p(N) with N from 0 to 100.
func ValidateTrendStats(stats []string) error {
	for _, s := range stats {
		switch s {
		case "avg", "min", "med", "max", "count":
			continue
		}
		if _, ok := percentileOf(s); !ok {
			return fmt.Errorf("summaryTrendStats: %q is not a trend statistic (avg, min, med, max, count or p(N) with N from 0 to 100)", s)
		}
	}
	return nil
}

// ValidateTimeUnit checks summaryTimeUnit.
func ValidateTimeUnit(unit string) error {
	switch unit {
	case "", "s", "ms", "us":
		return nil
	}
	return fmt.Errorf("summaryTimeUnit: %q is not one of s, ms, us", unit)
}

func pathID(path string) string {
	sum := md5.Sum([]byte(path))
	return hex.EncodeToString(sum[:])
}

// Data is what handleSummary(data) receives, as k6 documents it: root_group (its checks and groups),
// metrics (type, contains, values, thresholds {expression: {ok}}), options and state. Metrics appear
// once they have samples, or when thresholds are set on them. ths may be nil.
func Data(a *Aggregator, ths *thresholds.Set, opts Options) map[string]any {
	stats := opts.TrendStats
	if len(stats) == 0 {
		stats = DefaultTrendStats
	}
	results := ths.Results()
	seen, subsSeen, checks, groups := a.seen()
	a.snapMu.Lock()
	defer a.snapMu.Unlock()

	out := map[string]any{}
	add := func(key string, m *metrics.Metric) {
		snap, ok := a.read(key)
		if !ok {
			// A threshold's key the aggregator does not follow: shown with no samples.
			snap = snapshot{metric: m, agg: newAgg(nil), store: &trendStore{}}
		}
		values := map[string]any{}
		for k, v := range snap.values(opts.TestDuration, stats) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0 // a script's own NaN or infinite values: JSON (and so handleSummary) cannot carry them
			}
			values[k] = v
		}
		entry := map[string]any{"type": m.Type.String(), "contains": m.Contains.String(), "values": values}
		if r := results[key]; r != nil {
			th := map[string]any{}
			for expr, ok := range r {
				th[expr] = map[string]any{"ok": ok}
			}
			entry["thresholds"] = th
		}
		out[key] = entry
	}
	for _, m := range a.reg.All() {
		if seen[m] || results[m.Name] != nil {
			add(m.Name, m)
		}
	}
	keys := make([]string, 0, len(a.subKey)+len(results))
	for key := range a.subKey {
		keys = append(keys, key)
	}
	for key := range results {
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		if _, done := out[key]; done {
			continue
		}
		name, _, err := thresholds.ParseKey(key)
		m := a.reg.Lookup(name)
		if err != nil || m == nil || (!subsSeen[key] && results[key] == nil) {
			continue
		}
		add(key, m)
	}

	trendStats := make([]any, len(stats))
	for i, s := range stats {
		trendStats[i] = s
	}
	return map[string]any{
		"root_group": rootGroup(checks, groups),
		"metrics":    out,
		"options": map[string]any{
			"summaryTrendStats": trendStats,
			"summaryTimeUnit":   opts.TimeUnit,
			"noColor":           opts.NoColor,
		},
		"state": map[string]any{
			"isStdOutTTY":       opts.StdOutTTY,
			"isStdErrTTY":       opts.StdErrTTY,
			"testRunDurationMs": float64(opts.TestDuration) / float64(time.Millisecond),
		},
	}
}

// rootGroup builds the group tree ("::a::b" is group b inside a) with each group's checks in the order
// they were first seen.
func rootGroup(checks []checkResult, paths []string) map[string]any {
	byPath := map[string]map[string]any{}
	var group func(path string) map[string]any
	group = func(path string) map[string]any {
		if g := byPath[path]; g != nil {
			return g
		}
		name := path
		if i := strings.LastIndex(path, "::"); i >= 0 {
			name = path[i+2:]
		}
		g := map[string]any{"name": name, "path": path, "id": pathID(path), "groups": []any{}, "checks": []any{}}
		byPath[path] = g
		if path != "" {
			parentPath := ""
			if i := strings.LastIndex(path, "::"); i > 0 {
				parentPath = path[:i]
			}
			parent := group(parentPath)
			parent["groups"] = append(parent["groups"].([]any), g)
		}
		return g
	}
	root := group("")
	for _, p := range paths {
		group(p)
	}
	for _, c := range checks {
		g := group(c.group)
		path := c.group + "::" + c.name
		g["checks"] = append(g["checks"].([]any), map[string]any{
			"name": c.name, "path": path, "id": pathID(path),
			"passes": float64(c.passes), "fails": float64(c.fails),
		})
	}
	return root
}

// ExportJSON writes data (as Data made it) in k6's --summary-export format: groups and checks keyed by
// name, each metric's values flat beside its thresholds ({expression: true when crossed, i.e. failed}),
// a rate's rate as "value" beside passes and fails.
func ExportJSON(data map[string]any) ([]byte, error) {
	out := map[string]any{}
	if g, ok := data["root_group"].(map[string]any); ok {
		out["root_group"] = exportGroup(g)
	}
	ms := map[string]any{}
	if all, ok := data["metrics"].(map[string]any); ok {
		for key, raw := range all {
			m, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			flat := map[string]any{}
			values, _ := m["values"].(map[string]any)
			for k, v := range values {
				flat[k] = v
			}
			if m["type"] == "rate" {
				flat["value"] = values["rate"]
				delete(flat, "rate")
			}
			if th, ok := m["thresholds"].(map[string]any); ok {
				crossed := map[string]any{}
				for expr, r := range th {
					res, _ := r.(map[string]any)
					holds, _ := res["ok"].(bool)
					crossed[expr] = !holds
				}
				flat["thresholds"] = crossed
			}
			ms[key] = flat
		}
	}
	out["metrics"] = ms
	if st, ok := data["state"].(map[string]any); ok {
		out["state"] = map[string]any{"testRunDurationMs": st["testRunDurationMs"]}
	}
	return json.MarshalIndent(out, "", "    ")
}

func exportGroup(g map[string]any) map[string]any {
	out := map[string]any{"name": g["name"], "path": g["path"], "id": g["id"]}
	groups := map[string]any{}
	if list, ok := g["groups"].([]any); ok {
		for _, raw := range list {
			if sub, ok := raw.(map[string]any); ok {
				name, _ := sub["name"].(string)
				groups[name] = exportGroup(sub)
			}
		}
	}
	checks := map[string]any{}
	if list, ok := g["checks"].([]any); ok {
		for _, raw := range list {
			if c, ok := raw.(map[string]any); ok {
				name, _ := c["name"].(string)
				checks[name] = c
			}
		}
	}
	out["groups"], out["checks"] = groups, checks
	return out
}
