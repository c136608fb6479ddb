package modules

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

func TestTagUpkeep(t *testing.T) {
	s := &VUState{}
	s.SetBaseTags(metrics.NewTags(map[string]string{"scenario": "a", "group": "ignored"}))
	root := s.Tags
	if g, ok := root.Get("group"); !ok || g != "" {
		t.Fatalf("root group tag = %q, %v", g, ok)
	}
	s.SetGroup("::x")
	inX := s.Tags
	s.SetGroup("")
	s.SetGroup("::x")
	if s.Tags != inX {
		t.Fatal("entering the same group again built a new TagSet")
	}
	s.SetVUTag("mine", "1")
	if v, _ := s.Tags.Get("mine"); v != "1" || s.Tags == inX {
		t.Fatalf("vu tag not applied: %v", s.Tags)
	}
	s.SetVUTag("group", "no") // the group tag is the engine's
	if g, _ := s.Tags.Get("group"); g != "::x" {
		t.Fatalf("group = %q", g)
	}
	s.DeleteVUTag("mine")
	s.ResetVUTags()
	if _, ok := s.Tags.Get("mine"); ok {
		t.Fatal("vu tag survived its reset")
	}
}

func TestEventLoopCallbacks(t *testing.T) {
	l := NewEventLoop()
	done := l.RegisterCallback()
	if l.Idle() {
		t.Fatal("a registered callback leaves the loop busy")
	}
	ran := false
	go func() {
		time.Sleep(10 * time.Millisecond)
		done(func() error { ran = true; return nil })
	}()
	if err := l.Run(context.Background()); err != nil || !ran {
		t.Fatalf("Run = %v, ran = %v", err, ran)
	}

	boom := errors.New("boom")
	l.RegisterCallback()(func() error { return boom })
	if err := l.Run(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Run = %v", err)
	}

	// A callback never completed: Run waits until the context ends; Reset drops it.
	late := l.RegisterCallback()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.Run(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v", err)
	}
	l.Reset()
	late(func() error { t.Error("a dropped callback ran"); return nil })
	if !l.Idle() {
		t.Fatal("not idle after Reset")
	}
	if err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
