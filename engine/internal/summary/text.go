package summary

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Text renders data (as Data made it) as k6's default end-of-test summary, in its compact layout:
// thresholds (✓ held, ✗ crossed) with the values they compared, then the total results: checks,
// and the metrics by category (custom, HTTP, execution, network), sub-metrics under their metric.
func Text(data map[string]any) string {
	t := textWriter{data: data}
	t.read()
	return t.render()
}

type textMetric struct {
	key, name, label string // label: the name, or for a sub-metric "  { tag:value }"
	typ, contains    string
	values           map[string]float64
	thresholds       map[string]bool
}

type textWriter struct {
	data     map[string]any
	metrics  map[string]*textMetric
	stats    []string
	timeUnit string
	duration time.Duration
	color    bool
	b        strings.Builder
}

func (t *textWriter) read() {
	t.metrics = map[string]*textMetric{}
	if opts, ok := t.data["options"].(map[string]any); ok {
		t.timeUnit, _ = opts["summaryTimeUnit"].(string)
		if list, ok := opts["summaryTrendStats"].([]any); ok {
			for _, s := range list {
				if str, ok := s.(string); ok {
					t.stats = append(t.stats, str)
				}
			}
		}
		noColor, _ := opts["noColor"].(bool)
		state, _ := t.data["state"].(map[string]any)
		tty, _ := state["isStdOutTTY"].(bool)
		t.color = !noColor && tty
	}
	if state, ok := t.data["state"].(map[string]any); ok {
		ms, _ := state["testRunDurationMs"].(float64)
		t.duration = time.Duration(ms * float64(time.Millisecond))
	}
	if len(t.stats) == 0 {
		t.stats = DefaultTrendStats
	}
	all, _ := t.data["metrics"].(map[string]any)
	for key, raw := range all {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		tm := &textMetric{key: key, name: key, label: key, values: map[string]float64{}, thresholds: map[string]bool{}}
		tm.typ, _ = m["type"].(string)
		tm.contains, _ = m["contains"].(string)
		if i := strings.IndexByte(key, '{'); i > 0 {
			tm.name = key[:i]
			tm.label = "  { " + strings.ReplaceAll(key[i+1:len(key)-1], ",", ", ") + " }"
		}
		if values, ok := m["values"].(map[string]any); ok {
			for k, v := range values {
				if f, ok := v.(float64); ok {
					tm.values[k] = f
				}
			}
		}
		if th, ok := m["thresholds"].(map[string]any); ok {
			for expr, r := range th {
				res, _ := r.(map[string]any)
				ok, _ := res["ok"].(bool)
				tm.thresholds[expr] = ok
			}
		}
		t.metrics[key] = tm
	}
}

func (t *textWriter) mark(ok bool) string {
	switch {
	case ok && t.color:
		return "\x1b[32m✓\x1b[0m"
	case ok:
		return "✓"
	case t.color:
		return "\x1b[31m✗\x1b[0m"
	default:
		return "✗"
	}
}

var thresholdAggregation = regexp.MustCompile(`^\s*([a-zA-Z]+(?:\([^)]*\))?)`)

func (t *textWriter) render() string {
	keys := make([]string, 0, len(t.metrics))
	for k := range t.metrics {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var withThresholds []string
	for _, k := range keys {
		if len(t.metrics[k].thresholds) > 0 {
			withThresholds = append(withThresholds, k)
		}
	}
	if len(withThresholds) > 0 {
		t.b.WriteString("\n  █ THRESHOLDS\n")
		for _, k := range withThresholds {
			m := t.metrics[k]
			fmt.Fprintf(&t.b, "\n    %s\n", k)
			for _, expr := range slices.Sorted(maps.Keys(m.thresholds)) {
				line := fmt.Sprintf("    %s '%s'", t.mark(m.thresholds[expr]), expr)
				if agg := thresholdAggregation.FindStringSubmatch(expr); agg != nil {
					name := strings.ReplaceAll(agg[1], " ", "")
					if v, ok := m.values[name]; ok {
						line += " " + name + "=" + t.formatAggregation(m, name, v)
					}
				}
				t.b.WriteString(line + "\n")
			}
		}
		t.b.WriteString("\n")
	}

	t.b.WriteString("\n  █ TOTAL RESULTS\n")
	t.renderChecks()

	categories := []struct {
		title string
		match func(name string) bool
	}{
		{"CUSTOM", func(n string) bool { return !isBuiltinName(n) }},
		{"HTTP", func(n string) bool { return strings.HasPrefix(n, "http_") }},
		{"EXECUTION", func(n string) bool {
			switch n {
			case "iteration_duration", "iterations", "dropped_iterations", "vus", "vus_max", "group_duration":
				return true
			}
			return false
		}},
		{"NETWORK", func(n string) bool { return n == "data_sent" || n == "data_received" }},
	}
	var rows [][]*textMetric
	for _, c := range categories {
		var section []*textMetric
		for _, k := range keys {
			if m := t.metrics[k]; m.name != "checks" && c.match(m.name) {
				section = append(section, m)
			}
		}
		rows = append(rows, section)
	}
	nameWidth := 35
	for _, section := range rows {
		for _, m := range section {
			nameWidth = max(nameWidth, utf8.RuneCountInString(m.label)+3)
		}
	}
	trendWidths := t.trendWidths(rows)
	for i, section := range rows {
		if len(section) == 0 {
			continue
		}
		fmt.Fprintf(&t.b, "\n    %s\n", categories[i].title)
		cells := make([][]string, len(section))
		var widths []int
		for j, m := range section {
			if m.typ != "trend" {
				cells[j] = t.cells(m)
				for c, s := range cells[j] {
					if c >= len(widths) {
						widths = append(widths, 0)
					}
					widths[c] = max(widths[c], utf8.RuneCountInString(s))
				}
			}
		}
		for j, m := range section {
			t.b.WriteString("    " + dotted(m.label, nameWidth) + ": ")
			if m.typ == "trend" {
				t.b.WriteString(t.trendLine(m, trendWidths))
			} else {
				t.b.WriteString(joinPadded(cells[j], widths))
			}
			t.b.WriteString("\n")
		}
	}
	t.b.WriteString("\n")
	return t.b.String()
}

func isBuiltinName(n string) bool {
	switch n {
	case "vus", "vus_max", "iterations", "iteration_duration", "dropped_iterations", "checks", "group_duration",
		"data_sent", "data_received":
		return true
	}
	return strings.HasPrefix(n, "http_")
}

func dotted(label string, width int) string {
	n := utf8.RuneCountInString(label)
	if n >= width {
		return label
	}
	return label + strings.Repeat(".", width-n)
}

func joinPadded(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		b.WriteString(c)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+1))
		}
	}
	return b.String()
}

func (t *textWriter) renderChecks() {
	root, ok := t.data["root_group"].(map[string]any)
	if !ok {
		return
	}
	var passes, fails float64
	var walk func(g map[string]any)
	walk = func(g map[string]any) {
		for _, raw := range asList(g["checks"]) {
			c, _ := raw.(map[string]any)
			p, _ := c["passes"].(float64)
			f, _ := c["fails"].(float64)
			passes, fails = passes+p, fails+f
		}
		for _, raw := range asList(g["groups"]) {
			if sub, ok := raw.(map[string]any); ok {
				walk(sub)
			}
		}
	}
	walk(root)
	total := passes + fails
	if total == 0 {
		return
	}
	rate := 0.0
	if t.duration > 0 {
		rate = total / t.duration.Seconds()
	}
	cells := [][]string{
		{formatNumber(total), formatNumber(rate) + "/s"},
		{formatPercent(passes / total), formatNumber(passes) + " out of " + formatNumber(total)},
		{formatPercent(fails / total), formatNumber(fails) + " out of " + formatNumber(total)},
	}
	widths := []int{0, 0}
	for _, c := range cells {
		widths[0] = max(widths[0], len(c[0]))
	}
	t.b.WriteString("\n")
	for i, label := range []string{"checks_total", "checks_succeeded", "checks_failed"} {
		t.b.WriteString("    " + dotted(label, 35) + ": " + joinPadded(cells[i], widths) + "\n")
	}
	var list func(g map[string]any, indent string)
	list = func(g map[string]any, indent string) {
		checks := asList(g["checks"])
		if len(checks) > 0 {
			t.b.WriteString("\n")
		}
		for _, raw := range checks {
			c, _ := raw.(map[string]any)
			name, _ := c["name"].(string)
			p, _ := c["passes"].(float64)
			f, _ := c["fails"].(float64)
			fmt.Fprintf(&t.b, "%s%s %s\n", indent, t.mark(f == 0), name)
			if f > 0 {
				fmt.Fprintf(&t.b, "%s  ↳  %s — ✓ %s / ✗ %s\n", indent, strconv.FormatFloat(math.Floor(p/(p+f)*100), 'f', 0, 64)+"%", formatNumber(p), formatNumber(f))
			}
		}
		for _, raw := range asList(g["groups"]) {
			if sub, ok := raw.(map[string]any); ok && hasChecks(sub) {
				name, _ := sub["name"].(string)
				fmt.Fprintf(&t.b, "\n%s█ %s\n", indent, name)
				list(sub, indent+"  ")
			}
		}
	}
	list(root, "    ")
}

func hasChecks(g map[string]any) bool {
	if len(asList(g["checks"])) > 0 {
		return true
	}
	for _, raw := range asList(g["groups"]) {
		if sub, ok := raw.(map[string]any); ok && hasChecks(sub) {
			return true
		}
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// cells are a counter's, rate's or gauge's values as k6 prints them.
func (t *textWriter) cells(m *textMetric) []string {
	v := m.values
	switch m.typ {
	case "counter":
		if m.contains == "data" {
			return []string{formatBytes(v["count"]), formatBytes(v["rate"]) + "/s"}
		}
		return []string{t.formatValue(m, v["count"]), t.formatValue(m, v["rate"]) + "/s"}
	case "rate":
		total := v["passes"] + v["fails"]
		return []string{formatPercent(v["rate"]), formatNumber(v["passes"]) + " out of " + formatNumber(total)}
	default:
		return []string{t.formatValue(m, v["value"]), "min=" + t.formatValue(m, v["min"]), "max=" + t.formatValue(m, v["max"])}
	}
}

func (t *textWriter) trendWidths(rows [][]*textMetric) map[string]int {
	w := map[string]int{}
	for _, section := range rows {
		for _, m := range section {
			if m.typ == "trend" {
				for _, s := range t.stats {
					w[s] = max(w[s], utf8.RuneCountInString(s+"="+t.formatValue(m, m.values[s])))
				}
			}
		}
	}
	return w
}

func (t *textWriter) trendLine(m *textMetric, widths map[string]int) string {
	cells := make([]string, len(t.stats))
	ws := make([]int, len(t.stats))
	for i, s := range t.stats {
		cells[i] = s + "=" + t.formatValue(m, m.values[s])
		ws[i] = widths[s]
	}
	return joinPadded(cells, ws)
}

// formatAggregation formats a threshold's compared value as the metric's own values are.
func (t *textWriter) formatAggregation(m *textMetric, agg string, v float64) string {
	switch {
	case m.typ == "rate":
		return formatPercent(v)
	case m.typ == "counter" && agg == "rate":
		return t.formatValue(m, v) + "/s"
	}
	return t.formatValue(m, v)
}

func (t *textWriter) formatValue(m *textMetric, v float64) string {
	switch m.contains {
	case "time":
		return formatTime(v, t.timeUnit)
	case "data":
		return formatBytes(v)
	}
	return formatNumber(v)
}

// formatNumber: integers as they are, others with up to 6 decimals.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return trimZeros(strconv.FormatFloat(v, 'f', 6, 64))
}

func formatPercent(r float64) string {
	return strconv.FormatFloat(r*100, 'f', 2, 64) + "%"
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// formatTime writes a duration given in milliseconds: in the summaryTimeUnit when one is set, else
// in the unit that suits it, with up to two decimals ("148.21ms", "7µs", "1.35s", "1m2.35s").
func formatTime(ms float64, unit string) string {
	switch unit {
	case "s":
		return trimZeros(strconv.FormatFloat(ms/1000, 'f', 4, 64)) + "s"
	case "ms":
		return trimZeros(strconv.FormatFloat(ms, 'f', 2, 64)) + "ms"
	case "us":
		return trimZeros(strconv.FormatFloat(ms*1000, 'f', 2, 64)) + "µs"
	}
	abs := math.Abs(ms)
	switch {
	case ms == 0:
		return "0s"
	case abs < 0.001:
		return trimZeros(strconv.FormatFloat(ms*1e6, 'f', 2, 64)) + "ns"
	case abs < 1:
		return trimZeros(strconv.FormatFloat(ms*1000, 'f', 2, 64)) + "µs"
	case abs < 1000:
		return trimZeros(strconv.FormatFloat(ms, 'f', 2, 64)) + "ms"
	case abs < 60_000:
		return trimZeros(strconv.FormatFloat(ms/1000, 'f', 2, 64)) + "s"
	}
	return time.Duration(ms * float64(time.Millisecond)).Round(10 * time.Millisecond).String()
}

// formatBytes writes a data amount in decimal units ("830 B", "4.9 kB", "519 kB", "1.3 MB").
func formatBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for math.Abs(b) >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(math.Round(b), 'f', 0, 64) + " B"
	}
	if math.Abs(b) < 10 {
		return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[i]
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " " + units[i]
}
