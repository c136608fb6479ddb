package modules

import (
	"fmt"
	"slices"
	"sync"

	"github.com/grafana/sobek"
)

// Maker makes a module's exports for one VU.
type Maker func(*VUState) (*sobek.Object, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Maker{}
)

// Register makes a module importable under name (e.g. "k6/http"); call it from
// a package's init. Registering a name twice panics.
func Register(name string, make func(*VUState) (*sobek.Object, error)) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("module %q registered twice", name))
	}
	registry[name] = make
}

// Lookup returns the maker of a registered module, or nil.
func Lookup(name string) func(*VUState) (*sobek.Object, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[name]
}

// Names lists the registered modules, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// UnsupportedError names a k6 module or function the engine refuses.
type UnsupportedError struct {
	// What is refused, e.g. `the module "k6/net/grpc"` or `crypto.md4()`.
	What string
	// Hint says what to use instead, if anything.
	Hint string
}

func (e *UnsupportedError) Error() string {
	msg := e.What + " is not supported by opsbench-engine"
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// AbortError is exec.test.abort(): the test stops with exit code 108.
type AbortError struct {
	Reason string
}

func (e *AbortError) Error() string {
	if e.Reason == "" {
		return "test aborted"
	}
	return "test aborted: " + e.Reason
}

// throwUnsupported throws a JS exception carrying an *UnsupportedError.
func throwUnsupported(rt *sobek.Runtime, what, hint string) {
	panic(rt.NewGoError(&UnsupportedError{What: what, Hint: hint}))
}

// throwError throws a JS Error with the message.
func throwError(rt *sobek.Runtime, msg string) {
	panic(newError(rt, msg))
}

// newError makes a JS Error object.
func newError(rt *sobek.Runtime, msg string) sobek.Value {
	ctor, ok := sobek.AssertConstructor(rt.Get("Error"))
	if !ok {
		return rt.ToValue(msg)
	}
	obj, err := ctor(nil, rt.ToValue(msg))
	if err != nil {
		return rt.ToValue(msg)
	}
	return obj
}

// rethrow throws err in the script: JS exceptions and interruptions as they are, Go errors as GoErrors.
func rethrow(rt *sobek.Runtime, err error) {
	switch err.(type) {
	case *sobek.Exception, *sobek.InterruptedError, *sobek.StackOverflowError:
		panic(err)
	}
	panic(rt.NewGoError(err))
}
