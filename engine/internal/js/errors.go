package js

import (
	"errors"
	"fmt"
	"strings"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
)

// ScriptError is a script's uncaught exception, or an error bundling or compiling
// it; the message names the file and line. The CLI exits with 107 for it.
type ScriptError struct {
	// Message is the exception ("Error: boom") or the build error ("script.js:3:5: Expected ...").
	Message string
	// Stack is the exception's stack, one "\tat function (file:line:column)" line per frame; may be empty.
	Stack string
	// Err is the cause, when there is one to tell apart, e.g. an *UnsupportedError.
	Err error
}

func (e *ScriptError) Error() string {
	if e.Stack == "" {
		return e.Message
	}
	return e.Message + "\n" + e.Stack
}

func (e *ScriptError) Unwrap() error { return e.Err }

// UnsupportedError names a module or function the engine refuses (a remote
// import, k6/net/grpc, crypto.md4, ...). It comes wrapped in a *ScriptError.
type UnsupportedError = modules.UnsupportedError

// AbortError is exec.test.abort() (exit code 108).
type AbortError = modules.AbortError

// errInterrupted is the interrupt value when the VU's context ends mid-call.
type errInterrupted struct{ cause error }

func (e errInterrupted) Error() string { return "interrupted: " + e.cause.Error() }
func (e errInterrupted) Unwrap() error { return e.cause }

// scriptError turns what a call into the script returned into the engine's
// errors: *AbortError, an interruption (wrapping the context's error), or a *ScriptError.
func scriptError(err error) error {
	if err == nil {
		return nil
	}
	var intr *sobek.InterruptedError
	if errors.As(err, &intr) {
		switch v := intr.Value().(type) {
		case *AbortError:
			return v
		case errInterrupted:
			return v
		case error:
			return v
		}
		return fmt.Errorf("interrupted: %v", intr.Value())
	}
	var ex *sobek.Exception
	if errors.As(err, &ex) {
		se := &ScriptError{Message: valueMessage(ex.Value()), Stack: formatStack(ex.Stack())}
		if cause := ex.Unwrap(); cause != nil {
			se.Err = cause
			var abort *AbortError
			if errors.As(cause, &abort) {
				return abort
			}
		}
		return se
	}
	var se *ScriptError
	if errors.As(err, &se) {
		return err
	}
	return &ScriptError{Message: err.Error(), Err: err}
}

// valueMessage is what an exception says: an Error's "Name: message", or the thrown value.
func valueMessage(v sobek.Value) string {
	if v == nil {
		return "undefined"
	}
	return v.String()
}

func formatStack(frames []sobek.StackFrame) string {
	var b strings.Builder
	for i := range frames {
		f := &frames[i]
		p := f.Position()
		if p.Filename == "" {
			continue // Go functions: their names say nothing to the script's author
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "\tat %s (%s:%d:%d)", f.FuncName(), p.Filename, p.Line, p.Column)
	}
	return b.String()
}

// rejectionError makes a *ScriptError of a promise's rejection reason.
func rejectionError(reason sobek.Value) *ScriptError {
	se := &ScriptError{Message: valueMessage(reason)}
	if obj, ok := reason.(*sobek.Object); ok {
		if st := obj.Get("stack"); st != nil && !sobek.IsUndefined(st) {
			msg, stack, _ := strings.Cut(strings.TrimRight(st.String(), "\n"), "\n")
			if msg != "" {
				se.Message = msg
			}
			se.Stack = stack
		}
		if ge, ok := obj.Export().(error); ok {
			se.Err = ge
		}
	}
	return se
}
