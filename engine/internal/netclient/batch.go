package netclient

import (
	"context"
	"sync"
)

// DoBatch sends requests in parallel, at most limit at once and at most
// perHost at once to one host (k6's batch and batchPerHost; 0 means no limit).
// Responses come back in the order of reqs; done, when set, is called as each
// one finishes (from the request's goroutine).
func (c *Client) DoBatch(ctx context.Context, reqs []*Request, limit, perHost int, done func(i int, r *Response)) []*Response {
	out := make([]*Response, len(reqs))
	if limit <= 0 || limit > len(reqs) {
		limit = len(reqs)
	}
	if perHost > limit {
		perHost = 0
	}
	hostSem := map[string]chan struct{}{}
	if perHost > 0 {
		for _, r := range reqs {
			if r.URL != nil {
				if _, ok := hostSem[r.URL.Host]; !ok {
					hostSem[r.URL.Host] = make(chan struct{}, perHost)
				}
			}
		}
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, req := range reqs {
		var hs chan struct{}
		if perHost > 0 && req.URL != nil {
			hs = hostSem[req.URL.Host]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The host slot first, so a busy host never holds global slots idle.
			if hs != nil {
				hs <- struct{}{}
			}
			sem <- struct{}{}
			resp, _ := c.Do(ctx, req)
			out[i] = resp
			<-sem
			if hs != nil {
				<-hs
			}
			if done != nil {
				done(i, resp)
			}
		}()
	}
	wg.Wait()
	return out
}
