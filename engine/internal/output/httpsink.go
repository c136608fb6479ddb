package output

// HTTP mode: opsbench=https://host/api/v1/runs/<id>/ingest sends the same NDJSON lines to opsbench's
// ingest endpoint, once a second, so an engine started anywhere (CI, a laptop, a Kubernetes job) feeds
// a run. The run-scoped token comes from the environment (never the URL: it would be logged); the
// execution segment goes in a header. A failed batch is kept and sent again with the next; a refused
// token (401/403/409) stops the sending.

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// maxPendingBytes bounds what is kept while the endpoint cannot be reached (about 10 minutes of a busy
// test); maxBatchBytes what one request carries (the endpoint takes up to 2 MiB), ending at a whole line.
const (
	maxPendingBytes = 64 << 20
	maxBatchBytes   = 1 << 20
)

type httpSink struct {
	url, token, segment string
	client              *http.Client
	// retryDelay is how long Close waits between its attempts (times the attempt number).
	retryDelay time.Duration

	mu      sync.Mutex
	pending bytes.Buffer
	refused bool
	dropped int
	// sendMu keeps batches in order.
	sendMu sync.Mutex
}

func newHTTPSink(url, token, segment string) (*httpSink, error) {
	if token == "" {
		return nil, fmt.Errorf("opsbench output: sending to %s needs the run's ingest token in K6_OPSBENCH_TOKEN (or OPSBENCH_INGEST_TOKEN)", url)
	}
	return &httpSink{url: url, token: token, segment: segment, client: &http.Client{Timeout: 10 * time.Second}, retryDelay: time.Second}, nil
}

// Write collects lines; send posts them.
func (s *httpSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused {
		return len(p), nil
	}
	if s.pending.Len()+len(p) > maxPendingBytes {
		s.dropped += bytes.Count(p, []byte("\n"))
		return len(p), nil
	}
	return s.pending.Write(p)
}

func (s *httpSink) Close() error {
	for attempt := 0; attempt < 5; attempt++ {
		if s.send() {
			break
		}
		time.Sleep(time.Duration(attempt+1) * s.retryDelay)
	}
	if s.dropped > 0 {
		slog.Error("opsbench output: lines were dropped while the ingest endpoint could not be reached", "lines", s.dropped, "url", s.url)
	}
	return nil
}

// send posts what is pending; false when it must be tried again.
func (s *httpSink) send() bool {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	for {
		more, ok := s.sendBatch()
		if !ok || !more {
			return ok
		}
	}
}

// sendBatch posts up to maxBatchBytes of what is pending; more: something is left to send.
func (s *httpSink) sendBatch() (more, ok bool) {
	s.mu.Lock()
	body := s.pending.Bytes()
	if len(body) > maxBatchBytes {
		if cut := bytes.LastIndexByte(body[:maxBatchBytes], '\n'); cut > 0 {
			body = body[:cut+1]
		}
	}
	body = append([]byte(nil), body...)
	left := s.pending.Len() > len(body)
	s.mu.Unlock()
	if len(body) == 0 {
		return false, true
	}
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		slog.Error("opsbench output: bad ingest URL", "error", err)
		return false, true
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("X-Opsbench-Segment", s.segment)
	res, err := s.client.Do(req)
	if err != nil {
		slog.Warn("opsbench output: sending failed; will retry", "error", err)
		return false, false
	}
	msg, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
	_ = res.Body.Close()
	switch {
	case res.StatusCode/100 == 2:
		s.mu.Lock()
		s.pending.Next(len(body))
		s.mu.Unlock()
		return left, true
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusConflict:
		slog.Error("opsbench output: the ingest endpoint refused the results; no more are sent", "url", s.url, "status", res.StatusCode, "body", string(msg))
		s.mu.Lock()
		s.refused = true
		s.pending.Reset()
		s.mu.Unlock()
		return false, true
	default:
		slog.Warn("opsbench output: ingest failed; will retry", "url", s.url, "status", res.StatusCode, "body", string(msg))
		return false, false
	}
}
