package modules

import (
	"context"
	"sync"
	"time"

	"github.com/grafana/sobek"
)

// EventLoop runs, on the VU's goroutine, what is due later: timers
// (setTimeout, setInterval) and the completions of asynchronous operations. The
// JS runtime runs it after the init code and after each call into the script
// until nothing is pending, as k6 waits for a VU's timers and promises.
type EventLoop struct {
	mu      sync.Mutex
	queued  []func() error
	pending int // callbacks registered and not yet queued
	gen     uint64
	wake    chan struct{}

	timers []*timer // unordered; a VU has few
	nextID int64
}

type timer struct {
	id    int64
	due   time.Time
	every time.Duration // > 0 for setInterval
	fn    sobek.Callable
	args  []sobek.Value
}

func NewEventLoop() *EventLoop {
	return &EventLoop{wake: make(chan struct{}, 1)}
}

// RegisterCallback reserves a callback: the loop keeps running until the returned
// function is called (once, from any goroutine) with the function to run on the
// VU's goroutine, e.g. to resolve a promise with an operation's result. A
// callback completed after the iteration ended is dropped.
func (l *EventLoop) RegisterCallback() func(func() error) {
	l.mu.Lock()
	l.pending++
	gen := l.gen
	l.mu.Unlock()
	var once sync.Once
	return func(f func() error) {
		once.Do(func() {
			l.mu.Lock()
			if gen == l.gen {
				l.pending--
				l.queued = append(l.queued, f)
			}
			l.mu.Unlock()
			select {
			case l.wake <- struct{}{}:
			default:
			}
		})
	}
}

// Idle tells whether nothing is pending.
func (l *EventLoop) Idle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending == 0 && len(l.queued) == 0 && len(l.timers) == 0
}

// Reset drops the pending timers and callbacks (an iteration that ended early).
func (l *EventLoop) Reset() {
	l.mu.Lock()
	l.gen++
	l.pending = 0
	l.queued = nil
	l.timers = nil
	l.mu.Unlock()
}

// Run runs queued callbacks and due timers until nothing is pending, a callback
// fails (its error is returned) or ctx ends (ctx.Err() is returned).
func (l *EventLoop) Run(ctx context.Context) error {
	var wait *time.Timer
	defer func() {
		if wait != nil {
			wait.Stop()
		}
	}()
	for {
		l.mu.Lock()
		queued := l.queued
		l.queued = nil
		l.mu.Unlock()
		for i, f := range queued {
			if err := f(); err != nil {
				l.mu.Lock()
				l.queued = append(queued[i+1:], l.queued...)
				l.mu.Unlock()
				return err
			}
		}
		if len(queued) > 0 {
			continue
		}
		next := l.nextTimer()
		if next != nil && !next.due.After(time.Now()) {
			if err := l.fire(next); err != nil {
				return err
			}
			continue
		}
		l.mu.Lock()
		idle := l.pending == 0 && len(l.queued) == 0 && next == nil
		l.mu.Unlock()
		if idle {
			return nil
		}
		var timerC <-chan time.Time
		if next != nil {
			d := time.Until(next.due)
			if wait == nil {
				wait = time.NewTimer(d)
			} else {
				wait.Reset(d)
			}
			timerC = wait.C
		}
		var done <-chan struct{}
		if ctx != nil {
			done = ctx.Done()
		}
		select {
		case <-l.wake:
		case <-timerC:
		case <-done:
			return ctx.Err()
		}
	}
}

func (l *EventLoop) nextTimer() *timer {
	var next *timer
	for _, t := range l.timers {
		if next == nil || t.due.Before(next.due) {
			next = t
		}
	}
	return next
}

func (l *EventLoop) fire(t *timer) error {
	if t.every > 0 {
		t.due = time.Now().Add(t.every)
	} else {
		l.remove(t.id)
	}
	_, err := t.fn(sobek.Undefined(), t.args...)
	return err
}

func (l *EventLoop) add(fn sobek.Callable, delay time.Duration, repeat bool, args []sobek.Value) int64 {
	l.nextID++
	t := &timer{id: l.nextID, due: time.Now().Add(delay), fn: fn, args: args}
	if repeat {
		// A zero interval would spin; browsers clamp it too.
		t.every = max(delay, time.Millisecond)
	}
	l.timers = append(l.timers, t)
	return t.id
}

func (l *EventLoop) remove(id int64) {
	for i, t := range l.timers {
		if t.id == id {
			l.timers = append(l.timers[:i], l.timers[i+1:]...)
			return
		}
	}
}
