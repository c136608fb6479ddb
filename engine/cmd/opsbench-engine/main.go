// Command opsbench-engine runs k6 scripts: `opsbench-engine run script.js`,
// `opsbench-engine inspect --execution-requirements script.js` and
// `opsbench-engine version`, with k6's flags and exit codes.
//
// __ENV: k6 puts the process environment into __ENV only with
// --include-system-env-vars. Here __ENV is always the process environment
// (plus -e/--env on top): the opsbench runner starts the engine with exactly
// the script's environment and nothing else, so the two are the same.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

const version = "v0.1.0"

// Exit codes, as k6 documents them.
const (
	exitOK               = 0
	exitThresholdsFailed = 99
	exitSetupTimeout     = 100
	exitTeardownTimeout  = 101
	exitStoppedByAPI     = 103
	exitInvalidConfig    = 104
	exitExternalAbort    = 105
	exitCannotStartAPI   = 106
	exitScriptException  = 107
	exitScriptAborted    = 108
	exitMarkedAsFailed   = 110
	exitUsage            = 255
)

// defaultMaxThreads bounds the engine's OS threads (Go's default is 10,000): VUs are goroutines on a few
// threads, only a workload blocking many threads at once would need more. OPSBENCH_ENGINE_MAX_THREADS overrides it.
const defaultMaxThreads = 2000

func main() {
	n := defaultMaxThreads
	if v, err := strconv.Atoi(os.Getenv("OPSBENCH_ENGINE_MAX_THREADS")); err == nil && v > 0 {
		n = v
	}
	debug.SetMaxThreads(n)
	// OPSBENCH_ENGINE_MAX_IN_FLIGHT: at most this many requests in flight in the process (docs/engine.md); the
	// opsbench runner sets it to the run's maxVUs, so http.batch cannot send more at once than the VU limit.
	if v, err := strconv.Atoi(os.Getenv("OPSBENCH_ENGINE_MAX_IN_FLIGHT")); err == nil && v > 0 {
		netclient.LimitInFlight(v)
	}
	// OPSBENCH_ENGINE_CPUPROFILE=FILE writes a Go CPU profile of the whole run (go tool pprof FILE): for
	// measuring the engine itself (docs/engine.md), never set by opsbench.
	if path := os.Getenv("OPSBENCH_ENGINE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			atExit(func() {
				pprof.StopCPUProfile()
				f.Close()
			})
		}
	}
	code := realMain(os.Args[1:])
	for _, f := range exitHooks {
		f()
	}
	os.Exit(code)
}

const usage = `usage:
  opsbench-engine run [flags] SCRIPT
  opsbench-engine inspect [--execution-requirements] [flags] SCRIPT
  opsbench-engine version`

func realMain(args []string) int {
	c, err := parseArgs(args)
	if err == nil {
		err = envOptions(c, os.Getenv)
	}
	if err != nil {
		logError(err.Error())
		var ve *valueError
		if errors.As(err, &ve) {
			return exitInvalidConfig
		}
		fmt.Fprintln(os.Stderr, usage)
		return exitUsage
	}
	switch c.command {
	case "version", "--version", "-v":
		fmt.Printf("opsbench-engine %s (k6 API v1)\n", version)
		return exitOK
	case "inspect":
		return inspect(c)
	case "run":
		return run(c)
	case "help", "--help", "-h":
		fmt.Println(usage)
		return exitOK
	}
	logError(fmt.Sprintf("unknown command %q", c.command))
	fmt.Fprintln(os.Stderr, usage)
	return exitUsage
}

// logError writes `time="..." level=error msg="..."` on stderr (logfmt, as k6 logs).
func logError(msg string) { logLine("error", msg) }

func logWarn(msg string) { logLine("warning", msg) }

func logLine(level, msg string) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(msg)
	fmt.Fprintf(os.Stderr, "time=%q level=%s msg=%s\n", time.Now().Format(time.RFC3339), level, strings.TrimSpace(b.String()))
}

// processEnv is __ENV: the process environment with -e/--env on top.
func processEnv(c *cli) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for k, v := range c.env {
		env[k] = v
	}
	return env
}

// exitHooks run before the process exits (an unpacked archive's folder is removed).
var exitHooks []func()

func atExit(f func()) { exitHooks = append(exitHooks, f) }
