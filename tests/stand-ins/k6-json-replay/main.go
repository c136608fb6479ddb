// k6-json-replay stands in for a stock k6 binary in tests of OPSBENCH_K6_BINARY (docs/engine.md, "Bringing a stock
// k6"): it is not k6 and runs no script. It answers the parts of k6's command line the runner uses:
//
//	version                                  prints a k6-like version line
//	inspect --execution-requirements SCRIPT  prints a fixed execution plan (2 VUs, 3 s; REPLAY_INSPECT_MAX_VUS=N in the
//	                                         script's environment says N VUs instead, as a script that tells inspect
//	                                         and run apart would)
//	run [flags] --out json=PATH ... SCRIPT   writes the recorded k6 JSON output (k6-output.json, k6's documented
//	                                         Metric/Point lines) to every json= PATH at the pace it was recorded,
//	                                         moved by whole seconds to now, and the recorded --summary-export file
//
// Everything it needs is embedded: inside the runner's sandbox it sees only its own binary and the run's folder.
// Standard library only (tests/stand-ins must not pull in anything).
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

//go:embed k6-output.json
var recorded string

//go:embed summary-export.json
var summary string

const inspected = `{"paused":null,"vus":null,"duration":null,"iterations":null,` +
	`"scenarios":{"default":{"executor":"constant-vus","startTime":"0s","gracefulStop":"0s","env":null,"exec":"default",` +
	`"tags":null,"vus":2,"duration":"3s"}},"thresholds":{"checks":["rate>0.5"],"http_req_duration":["p(95)<500"],` +
	`"http_req_failed":["rate<0.5"]},"totalDuration":"3s","maxVUs":2}`

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "k6-json-replay: a stand-in for k6 (version, inspect, run)")
		os.Exit(2)
	}
	switch args[0] {
	case "version":
		fmt.Println("k6 v1.0.0 (k6-json-replay, a stand-in replaying recorded k6 JSON output)")
	case "inspect":
		if n := os.Getenv("REPLAY_INSPECT_MAX_VUS"); n != "" {
			fmt.Println(strings.Replace(inspected, `"maxVUs":2`, `"maxVUs":`+n, 1))
		} else {
			fmt.Println(inspected)
		}
	case "run":
		os.Exit(run(args[1:]))
	default:
		fmt.Fprintf(os.Stderr, "k6-json-replay: unknown command %q\n", args[0])
		os.Exit(2)
	}
}

func run(args []string) int {
	var outs []string
	summaryPath := ""
	for i := 0; i < len(args); i++ {
		value := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a := args[i]; {
		case a == "--out" || a == "-o":
			if v := value(); strings.HasPrefix(v, "json=") {
				outs = append(outs, strings.TrimPrefix(v, "json="))
			}
		case strings.HasPrefix(a, "--out="):
			if v := strings.TrimPrefix(a, "--out="); strings.HasPrefix(v, "json=") {
				outs = append(outs, strings.TrimPrefix(v, "json="))
			}
		case a == "--summary-export":
			summaryPath = value()
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)

	var files []*os.File
	for _, p := range outs {
		var f *os.File
		var err error
		if p == "-" {
			f = os.Stdout
		} else if f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "level=error msg=\"cannot open the json output %s: %v\"\n", p, err)
			return 107
		}
		files = append(files, f)
	}

	lines := strings.Split(strings.TrimSpace(recorded), "\n")
	first := time.Time{}
	for _, l := range lines {
		if t, _, ok := pointTime(l); ok {
			first = t
			break
		}
	}
	// Whole seconds, so each sample stays in the second it was recorded in.
	shift := time.Now().Truncate(time.Second).Sub(first.Truncate(time.Second))
	began := time.Now()
	for _, l := range lines {
		if t, raw, ok := pointTime(l); ok {
			if wait := t.Sub(first) - time.Since(began); wait > 0 {
				select {
				case <-stop:
					return 0
				case <-time.After(wait):
				}
			}
			l = strings.Replace(l, `"`+raw+`"`, `"`+t.Add(shift).Format("2006-01-02T15:04:05.000000000Z07:00")+`"`, 1)
		}
		for _, f := range files {
			if _, err := f.WriteString(l + "\n"); err != nil {
				fmt.Fprintf(os.Stderr, "level=error msg=\"writing the json output: %v\"\n", err)
				return 107
			}
		}
	}
	for _, f := range files {
		if f != os.Stdout {
			_ = f.Close()
		}
	}
	if summaryPath != "" {
		if err := os.WriteFile(summaryPath, []byte(summary), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "level=error msg=\"writing the summary: %v\"\n", err)
			return 107
		}
	}
	return 0
}

// pointTime is the time of a Point line, and as written.
func pointTime(line string) (time.Time, string, bool) {
	var p struct {
		Type string `json:"type"`
		Data struct {
			Time string `json:"time"`
		} `json:"data"`
	}
	if json.Unmarshal([]byte(line), &p) != nil || p.Type != "Point" {
		return time.Time{}, "", false
	}
	t, err := time.Parse(time.RFC3339Nano, p.Data.Time)
	return t, p.Data.Time, err == nil
}
