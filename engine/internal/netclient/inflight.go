package netclient

import (
	"context"
	"sync/atomic"
)

// inFlight holds one slot per request in flight in this process; nil, no bound. VUs alone do not bound
// concurrency: one VU's http.batch (or asyncRequest) sends many requests at once. opsbench sets it to the run's
// maxVUs (OPSBENCH_ENGINE_MAX_IN_FLIGHT, from the runner) so a workspace's VU limit bounds the requests in flight.
var inFlight atomic.Pointer[chan struct{}]

// LimitInFlight lets at most n requests be in flight at once in this process, whatever the VUs and their
// batches ask; n <= 0 removes the bound. Set it before the test starts.
func LimitInFlight(n int) {
	if n <= 0 {
		inFlight.Store(nil)
		return
	}
	ch := make(chan struct{}, n)
	inFlight.Store(&ch)
}

// acquireInFlight waits for a slot; the release func frees it. False when ctx ended first (the VU was stopped).
func acquireInFlight(ctx context.Context) (release func(), ok bool) {
	p := inFlight.Load()
	if p == nil {
		return func() {}, true
	}
	ch := *p
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, true
	case <-ctx.Done():
		return nil, false
	}
}
