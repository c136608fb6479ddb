package output

// HTTP mode: --out opsbench=https://host/api/v1/runs/<id>/ingest sends the same NDJSON lines to
// opsbench's ingest endpoint, once a second, so a k6 started anywhere (CI, a laptop, a k6-operator
// TestRun) feeds a run. The run-scoped token comes from K6_OPSBENCH_TOKEN (never the URL: it would
// be logged); the execution segment (k6-operator and --execution-segment set it) goes in a header.
// A failed batch is kept and sent again with the next; a refused token (401/403) stops the sending.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// maxPendingBytes bounds what is kept while the endpoint cannot be reached (about 10 minutes of a busy test);
// maxBatchBytes what one request carries (the endpoint takes up to 2 MiB), ending at a whole line.
const (
	maxPendingBytes = 64 << 20
	maxBatchBytes   = 1 << 20
)

type httpSink struct {
	url, token, segment string
	client              *http.Client
	logger              logrus.FieldLogger

	mu      sync.Mutex
	pending bytes.Buffer
	refused bool
	dropped int
	// sendMu keeps batches in order.
	sendMu sync.Mutex
}

func newHTTPSink(url, token, segment string, logger logrus.FieldLogger) (*httpSink, error) {
	if token == "" {
		return nil, fmt.Errorf("opsbench output: sending to %s needs the run's ingest token in K6_OPSBENCH_TOKEN", url)
	}
	return &httpSink{url: url, token: token, segment: segment, client: &http.Client{Timeout: 10 * time.Second}, logger: logger}, nil
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
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	if s.dropped > 0 {
		s.logger.Errorf("opsbench output: %d lines were dropped while %s could not be reached", s.dropped, s.url)
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
		s.logger.WithError(err).Error("opsbench output: bad ingest URL")
		return false, true
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("X-Opsbench-Segment", s.segment)
	res, err := s.client.Do(req)
	if err != nil {
		s.logger.WithError(err).Warn("opsbench output: sending failed; will retry")
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
		s.logger.Errorf("opsbench output: %s refused the results (HTTP %d: %s); no more are sent", s.url, res.StatusCode, msg)
		s.mu.Lock()
		s.refused = true
		s.pending.Reset()
		s.mu.Unlock()
		return false, true
	default:
		s.logger.Warnf("opsbench output: HTTP %d from %s: %s; will retry", res.StatusCode, s.url, msg)
		return false, false
	}
}
