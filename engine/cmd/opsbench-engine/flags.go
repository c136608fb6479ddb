package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/opsbench/opsbench/engine/internal/options"
)

// cli is a parsed command line.
type cli struct {
	command string
	script  string

	opts options.Flags
	env  map[string]string // -e/--env K=V, on top of the process environment

	noColor, quiet, noSummary, paused, executionRequirements bool
	address, configFile, summaryExport                       string
	outs                                                     []string
}

// usageError is a command line the engine cannot read (exit code 255, as k6 for a CLI error).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// valueError is a flag whose value is invalid: an invalid option (exit code 104).
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }

type flagSpec struct {
	value bool // takes a value
	set   func(c *cli, v string) error
}

func boolFlag(f func(c *cli)) flagSpec {
	return flagSpec{set: func(c *cli, _ string) error { f(c); return nil }}
}

func valueFlag(f func(c *cli, v string) error) flagSpec { return flagSpec{value: true, set: f} }

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var flagSpecs = map[string]flagSpec{
	"no-color":   boolFlag(func(c *cli) { c.noColor = true }),
	"quiet":      boolFlag(func(c *cli) { c.quiet = true }),
	"q":          boolFlag(func(c *cli) { c.quiet = true }),
	"no-summary": boolFlag(func(c *cli) { c.noSummary = true }),
	"paused":     boolFlag(func(c *cli) { c.paused = true }),
	"p":          boolFlag(func(c *cli) { c.paused = true }),
	// The process environment is always __ENV here (see the package comment): accepted for k6 compatibility.
	"include-system-env-vars": boolFlag(func(c *cli) {}),
	"execution-requirements":  boolFlag(func(c *cli) { c.executionRequirements = true }),
	"address":                 valueFlag(func(c *cli, v string) error { c.address = v; return nil }),
	"a":                       valueFlag(func(c *cli, v string) error { c.address = v; return nil }),
	"config":                  valueFlag(func(c *cli, v string) error { c.configFile = v; return nil }),
	"c":                       valueFlag(func(c *cli, v string) error { c.configFile = v; return nil }),
	"out":                     valueFlag(func(c *cli, v string) error { c.outs = append(c.outs, v); return nil }),
	"o":                       valueFlag(func(c *cli, v string) error { c.outs = append(c.outs, v); return nil }),
	"summary-export":          valueFlag(func(c *cli, v string) error { c.summaryExport = v; return nil }),
	"execution-segment": valueFlag(func(c *cli, v string) error {
		c.opts.ExecutionSegment = v
		return nil
	}),
	"execution-segment-sequence": valueFlag(func(c *cli, v string) error {
		c.opts.ExecutionSegmentSequence = v
		return nil
	}),
	"blacklist-ip": valueFlag(func(c *cli, v string) error {
		list := splitList(v)
		for _, cidr := range list {
			if _, _, err := net.ParseCIDR(cidr); err != nil {
				return &valueError{fmt.Sprintf("--blacklist-ip: %q is not an IP range in CIDR notation (e.g. 10.0.0.0/8)", cidr)}
			}
		}
		c.opts.BlacklistIPs = append(c.opts.BlacklistIPs, list...)
		if c.opts.BlacklistIPs == nil {
			c.opts.BlacklistIPs = []string{}
		}
		return nil
	}),
	"block-hostnames": valueFlag(func(c *cli, v string) error {
		c.opts.BlockHostnames = append(c.opts.BlockHostnames, splitList(v)...)
		if c.opts.BlockHostnames == nil {
			c.opts.BlockHostnames = []string{}
		}
		return nil
	}),
	"env": valueFlag(setEnv),
	"e":   valueFlag(setEnv),
	"vus": valueFlag(func(c *cli, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return &valueError{fmt.Sprintf("--vus: %q is not a whole number of at least 0", v)}
		}
		c.opts.VUs = &n
		return nil
	}),
	"iterations": valueFlag(func(c *cli, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return &valueError{fmt.Sprintf("--iterations: %q is not a whole number above 0", v)}
		}
		c.opts.Iterations = &n
		return nil
	}),
	"duration": valueFlag(func(c *cli, v string) error {
		d, err := options.ParseDuration(v)
		if err != nil {
			return &valueError{"--duration: " + err.Error()}
		}
		c.opts.Duration = &d
		return nil
	}),
	"stage": valueFlag(func(c *cli, v string) error {
		ds, ts, ok := strings.Cut(v, ":")
		d, err := options.ParseDuration(ds)
		t, terr := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
		if !ok || err != nil || terr != nil || t < 0 || d < 0 {
			return &valueError{fmt.Sprintf("--stage: %q is not DURATION:TARGET (e.g. 30s:10)", v)}
		}
		c.opts.Stages = append(c.opts.Stages, options.Stage{Duration: options.Duration(d), Target: t})
		return nil
	}),
}

// k6's one-letter forms.
func init() {
	for short, long := range map[string]string{"u": "vus", "i": "iterations", "d": "duration", "s": "stage"} {
		flagSpecs[short] = flagSpecs[long]
	}
}

func setEnv(c *cli, v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return &valueError{fmt.Sprintf("--env: %q is not KEY=VALUE", v)}
	}
	c.env[k] = val
	return nil
}

// parseArgs reads `COMMAND [flags] [SCRIPT]`; flags may come before or after the script.
func parseArgs(args []string) (*cli, error) {
	c := &cli{env: map[string]string{}}
	if len(args) == 0 {
		return nil, &usageError{"no command given"}
	}
	c.command = args[0]
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			if i+1 < len(rest) && c.script == "" {
				c.script = rest[i+1]
				i++
			}
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if c.script != "" {
				return nil, &usageError{fmt.Sprintf("one script only: got %q and %q", c.script, a)}
			}
			c.script = a
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		spec, ok := flagSpecs[name]
		if !ok {
			return nil, &usageError{fmt.Sprintf("unknown flag %s", a)}
		}
		if spec.value && !hasValue {
			if i+1 >= len(rest) {
				return nil, &usageError{fmt.Sprintf("flag %s needs a value", a)}
			}
			i++
			value = rest[i]
		} else if !spec.value && hasValue {
			return nil, &usageError{fmt.Sprintf("flag --%s takes no value", name)}
		}
		if err := spec.set(c, value); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// envOptions takes k6's option variables (K6_VUS, K6_DURATION, K6_ITERATIONS, K6_STAGES as "30s:10,1m:0") from
// the environment: above the script's options, below the command line's flags, as k6 documents the order.
func envOptions(c *cli, getenv func(string) string) error {
	from := &cli{}
	for _, v := range []struct{ env, flag string }{{"K6_VUS", "vus"}, {"K6_DURATION", "duration"}, {"K6_ITERATIONS", "iterations"}} {
		if val := getenv(v.env); val != "" {
			if err := flagSpecs[v.flag].set(from, val); err != nil {
				return &valueError{v.env + ": " + strings.TrimPrefix(err.Error(), "--"+v.flag+": ")}
			}
		}
	}
	for _, st := range splitList(getenv("K6_STAGES")) {
		if err := flagSpecs["stage"].set(from, st); err != nil {
			return &valueError{"K6_STAGES: " + strings.TrimPrefix(err.Error(), "--stage: ")}
		}
	}
	if c.opts.VUs == nil {
		c.opts.VUs = from.opts.VUs
	}
	if c.opts.Duration == nil && c.opts.Iterations == nil && c.opts.Stages == nil {
		c.opts.Duration, c.opts.Iterations, c.opts.Stages = from.opts.Duration, from.opts.Iterations, from.opts.Stages
	}
	return nil
}
