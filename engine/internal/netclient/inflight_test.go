package netclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// A batch wider than the process's bound never has more requests in flight than the bound, and all are sent.
func TestLimitInFlightBoundsBatch(t *testing.T) {
	var now, most, served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(50 * time.Millisecond)
		now.Add(-1)
		served.Add(1)
	}))
	defer srv.Close()
	LimitInFlight(3)
	defer LimitInFlight(0)
	c := NewClient(NewShared(nil))
	defer c.Close()
	u, _ := url.Parse(srv.URL + "/")
	reqs := make([]*Request, 20)
	for i := range reqs {
		reqs[i] = &Request{Method: "GET", URL: u}
	}
	for _, r := range c.DoBatch(context.Background(), reqs, 20, 20, nil) {
		if r == nil || r.Status != 200 {
			t.Fatalf("a request failed: %+v", r)
		}
	}
	if served.Load() != 20 || most.Load() > 3 || most.Load() < 2 {
		t.Fatalf("served %d, at most %d in flight; want 20 and 2..3", served.Load(), most.Load())
	}
}

// A request waiting for a slot ends, aborted, when its VU is stopped.
func TestLimitInFlightWaitEndsWithContext(t *testing.T) {
	LimitInFlight(1)
	defer LimitInFlight(0)
	release, ok := acquireInFlight(context.Background())
	if !ok {
		t.Fatal("the first slot was refused")
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	u, _ := url.Parse("http://127.0.0.1:1/")
	resp, err := NewClient(NewShared(nil)).Do(ctx, &Request{Method: "GET", URL: u})
	if err == nil || !resp.Aborted {
		t.Fatalf("want an aborted request, got %+v, %v", resp, err)
	}
}
