package output

// The json output writes k6's documented JSON lines: a {"type":"Metric",...} line when a metric is
// first seen, then one {"type":"Point",...} line per sample. Lines are encoded by hand (appends into a
// buffer): the output writes every sample, so it must not cost a map or a reflection walk per sample.

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

type jsonOutput struct {
	file   *os.File
	gz     *gzip.Writer
	w      *bufio.Writer
	mu     sync.Mutex
	seen   map[*metrics.Metric]bool
	thresh map[string][]string
	buf    []byte
	stop   chan struct{}
	done   chan struct{}
}

func openJSON(dest string) (Output, error) {
	if dest == "" {
		return nil, fmt.Errorf("json output needs a file: json=FILE (FILE.gz is gzipped)")
	}
	f, err := os.Create(dest)
	if err != nil {
		return nil, fmt.Errorf("json output: %w", err)
	}
	o := &jsonOutput{file: f, seen: map[*metrics.Metric]bool{}}
	var w io.Writer = f
	if strings.HasSuffix(dest, ".gz") {
		o.gz = gzip.NewWriter(f)
		w = o.gz
	}
	o.w = bufio.NewWriterSize(w, 256*1024)
	return o, nil
}

func (o *jsonOutput) Start(p Plan) error {
	o.thresh = p.Thresholds
	o.stop, o.done = make(chan struct{}), make(chan struct{})
	// Written at least once a second, so `tail -f` follows the test.
	go func() {
		defer close(o.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-o.stop:
				return
			case <-tick.C:
				o.mu.Lock()
				_ = o.w.Flush()
				o.mu.Unlock()
			}
		}
	}()
	return nil
}

func (o *jsonOutput) Stop() error {
	if o.stop != nil {
		close(o.stop)
		<-o.done
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	err := o.w.Flush()
	if o.gz != nil {
		err = firstError(err, o.gz.Close())
	}
	err = firstError(err, o.file.Close())
	if err != nil {
		return fmt.Errorf("json output: %w", err)
	}
	return nil
}

func firstError(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (o *jsonOutput) AddSamples(samples []metrics.Sample) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.buf[:0]
	for i := range samples {
		s := &samples[i]
		if !o.seen[s.Metric] {
			o.seen[s.Metric] = true
			b = o.appendMetric(b, s.Metric)
		}
		b = appendPoint(b, s)
		if len(b) > 64*1024 {
			_, _ = o.w.Write(b)
			b = b[:0]
		}
	}
	_, _ = o.w.Write(b)
	o.buf = b[:0]
}

// appendMetric: {"type":"Metric","data":{"name":..,"type":..,"contains":..,"tainted":null,"thresholds":[..],"submetrics":null},"metric":..}
func (o *jsonOutput) appendMetric(b []byte, m *metrics.Metric) []byte {
	b = append(b, `{"type":"Metric","data":{"name":`...)
	b = appendJSONString(b, m.Name)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, m.Type.String())
	b = append(b, `,"contains":`...)
	b = appendJSONString(b, m.Contains.String())
	b = append(b, `,"tainted":null,"thresholds":[`...)
	for i, t := range o.thresh[m.Name] {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, t)
	}
	b = append(b, `],"submetrics":null},"metric":`...)
	b = appendJSONString(b, m.Name)
	return append(b, "}\n"...)
}

// appendPoint: {"type":"Point","data":{"time":RFC 3339 with nanoseconds,"value":v,"tags":{..}|null},"metric":..}
func appendPoint(b []byte, s *metrics.Sample) []byte {
	b = append(b, `{"type":"Point","data":{"time":"`...)
	b = s.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","value":`...)
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendFloat(b, s.Value, 'f', -1, 64)
	}
	b = append(b, `,"tags":`...)
	if s.Tags.Len() == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		first := true
		s.Tags.Each(func(k, v string) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, v)
		})
		b = append(b, '}')
	}
	b = append(b, `},"metric":`...)
	b = appendJSONString(b, s.Metric.Name)
	return append(b, "}\n"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string (invalid UTF-8 becomes U+FFFD, as encoding/json does).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
