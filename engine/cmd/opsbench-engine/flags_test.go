package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	c, err := parseArgs([]string{"run", "--no-color", "-q", "--address", "", "--paused", "--blacklist-ip", "10.0.0.0/8,192.168.0.0/16",
		"--block-hostnames", "a.example,*.b.example", "--config", "cfg.json", "--out", "opsbench=fd:3", "-o", "json=x.json",
		"--summary-export=sum.json", "-e", "A=1", "--env", "B=x=y", "--vus", "5", "--duration=1m30s", "--stage", "10s:3", "-s", "5s:0",
		"--execution-segment", "0:1/2", "--execution-segment-sequence", "0,1/2,1", "script.js", "--iterations", "7"})
	if err != nil {
		t.Fatal(err)
	}
	if c.command != "run" || c.script != "script.js" || !c.noColor || !c.quiet || !c.paused || c.address != "" ||
		c.configFile != "cfg.json" || c.summaryExport != "sum.json" || len(c.outs) != 2 {
		t.Errorf("got %+v", c)
	}
	if c.env["A"] != "1" || c.env["B"] != "x=y" {
		t.Errorf("env %v", c.env)
	}
	o := c.opts
	if *o.VUs != 5 || *o.Duration != 90*time.Second || *o.Iterations != 7 || len(o.Stages) != 2 || o.Stages[0].Target != 3 ||
		o.ExecutionSegment != "0:1/2" || o.ExecutionSegmentSequence != "0,1/2,1" {
		t.Errorf("opts %+v", o)
	}
	if len(o.BlacklistIPs) != 2 || len(o.BlockHostnames) != 2 {
		t.Errorf("blocks %v %v", o.BlacklistIPs, o.BlockHostnames)
	}

	for _, bad := range [][]string{{"run", "--nope", "x.js"}, {"run", "a.js", "b.js"}, {"run", "--vus"}} {
		var ue *usageError
		if _, err := parseArgs(bad); !errors.As(err, &ue) {
			t.Errorf("%v: want a usage error, got %v", bad, err)
		}
	}
	for _, bad := range [][]string{{"run", "--vus", "x"}, {"run", "--duration", "soon"}, {"run", "--stage", "10s"},
		{"run", "--blacklist-ip", "10.0.0.1"}, {"run", "-e", "NOVALUE"}} {
		var ve *valueError
		if _, err := parseArgs(bad); !errors.As(err, &ve) {
			t.Errorf("%v: want an invalid value, got %v", bad, err)
		}
	}
}

// K6_VUS and friends sit between the script's options and the command line's flags.
func TestEnvOptions(t *testing.T) {
	env := map[string]string{"K6_VUS": "2", "K6_ITERATIONS": "5", "K6_STAGES": "1s:3, 2s:0"}
	c, err := parseArgs([]string{"run", "script.js"})
	if err != nil {
		t.Fatal(err)
	}
	if err := envOptions(c, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if *c.opts.VUs != 2 || *c.opts.Iterations != 5 || len(c.opts.Stages) != 2 || c.opts.Stages[1].Target != 0 {
		t.Fatalf("from the environment: %+v", c.opts)
	}
	c, _ = parseArgs([]string{"run", "--vus", "7", "--duration", "3s", "script.js"})
	if err := envOptions(c, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if *c.opts.VUs != 7 || c.opts.Iterations != nil || c.opts.Stages != nil {
		t.Fatalf("the flags must win: %+v", c.opts)
	}
	var ve *valueError
	if err := envOptions(c, func(k string) string { return map[string]string{"K6_VUS": "many"}[k] }); !errors.As(err, &ve) ||
		!strings.Contains(err.Error(), "K6_VUS") {
		t.Fatalf("a bad K6_VUS: %v", err)
	}
}
