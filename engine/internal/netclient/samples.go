package netclient

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

// ExpectedStatuses is k6's http.expectedStatuses(): the statuses that count as expected responses.
type ExpectedStatuses struct {
	ranges [][2]int
}

// NewExpectedStatuses takes inclusive [min, max] ranges (a single status is [s, s]).
func NewExpectedStatuses(ranges ...[2]int) *ExpectedStatuses {
	return &ExpectedStatuses{ranges: slices.Clone(ranges)}
}

// DefaultExpectedStatuses is k6's default: 200 to 399.
var DefaultExpectedStatuses = NewExpectedStatuses([2]int{200, 399})

// Expected tells whether a status is expected.
func (e *ExpectedStatuses) Expected(status int) bool {
	for _, r := range e.ranges {
		if status >= r[0] && status <= r[1] {
			return true
		}
	}
	return false
}

// SampleInfo is what the caller knows of a request beyond its Response.
type SampleInfo struct {
	// Name is the name tag; "" uses the URL (a "name" in Tags wins over both).
	Name string
	// URL is the request URL as written (saves formatting it again); "" formats Response.URL.
	URL string
	// Tags are the request's own tags (k6's params.tags); TagsKey is a stable text of them
	// for the tag cache (made by TagsKeyOf when empty).
	Tags    map[string]string
	TagsKey string
	// Expected decides expected_response and http_req_failed; nil emits neither.
	Expected *ExpectedStatuses
}

// TagsKeyOf is a canonical text of a tag map.
func TagsKeyOf(tags map[string]string) string {
	if len(tags) == 0 {
		return ""
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(tags[k])
		b.WriteByte(0)
	}
	return b.String()
}

type tagKey struct {
	base                             *metrics.TagSet
	name, method, url, proto, tlsVer string
	status, errCode                  int
	errMsg                           string
	expected                         int8 // 0: no callback, 1: false, 2: true
	userTags                         string
}

// maxCachedTagSets bounds the tag cache; a test with unbounded URLs starts it over when full.
const maxCachedTagSets = 4096

// Emitter turns responses into k6's HTTP samples. One per VU; it keeps the
// TagSets it built so that a request like an earlier one costs no map building.
type Emitter struct {
	m    *metrics.Builtin
	opts *Options

	mu    sync.Mutex
	cache map[tagKey]*metrics.TagSet
	data  map[*metrics.TagSet]*metrics.TagSet // base tags -> tags of data_sent/data_received
}

func NewEmitter(reg *metrics.Registry, opts *Options) *Emitter {
	if opts == nil {
		opts = DefaultOptions()
	}
	return &Emitter{m: &reg.Builtin, opts: opts, cache: map[tagKey]*metrics.TagSet{}, data: map[*metrics.TagSet]*metrics.TagSet{}}
}

func urlTag(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.User != nil {
		return u.Redacted()
	}
	return u.String()
}

// tags returns the TagSet of one response.
func (e *Emitter) tags(base *metrics.TagSet, r *Response, info *SampleInfo, rawURL string) *metrics.TagSet {
	k := tagKey{base: base, name: info.Name, method: r.Method, url: rawURL, proto: r.Proto, tlsVer: r.TLSVersion,
		status: r.Status, errCode: r.ErrorCode, errMsg: r.Error, userTags: info.TagsKey}
	if k.userTags == "" && len(info.Tags) > 0 {
		k.userTags = TagsKeyOf(info.Tags)
	}
	if info.Expected != nil {
		k.expected = 1
		if r.ErrorCode == 0 || r.Status != 0 {
			if info.Expected.Expected(r.Status) {
				k.expected = 2
			}
		}
	}
	e.mu.Lock()
	ts := e.cache[k]
	e.mu.Unlock()
	if ts != nil {
		return ts
	}
	sys := e.opts.SystemTags
	m := base.Map()
	set := func(tag, v string) {
		if sys[tag] {
			m[tag] = v
		}
	}
	name := info.Name
	if name == "" {
		name = rawURL
	}
	set("name", name)
	set("url", rawURL)
	set("method", r.Method)
	set("status", strconv.Itoa(r.Status))
	if r.Proto != "" {
		set("proto", r.Proto)
	}
	if r.TLSVersion != "" {
		set("tls_version", r.TLSVersion)
	}
	if r.ErrorCode != 0 {
		set("error_code", strconv.Itoa(r.ErrorCode))
	}
	if r.Error != "" {
		set("error", r.Error)
	}
	if sys["ip"] && r.RemoteIP != "" {
		m["ip"] = r.RemoteIP
	}
	switch k.expected {
	case 1:
		set("expected_response", "false")
	case 2:
		set("expected_response", "true")
	}
	for tk, tv := range info.Tags {
		m[tk] = tv
	}
	ts = metrics.NewTags(m)
	e.mu.Lock()
	if len(e.cache) >= maxCachedTagSets {
		clear(e.cache)
	}
	e.cache[k] = ts
	e.mu.Unlock()
	return ts
}

func ms(d interface{ Nanoseconds() int64 }) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Emit sends the samples of a response (and of each redirect before it) to
// sink: http_reqs, http_req_* timings, http_req_failed (when info.Expected is
// set) and, when c is given, data_sent/data_received with the bytes c moved
// since the last emission. Aborted requests emit nothing.
func (e *Emitter) Emit(sink metrics.Sink, base *metrics.TagSet, r *Response, info *SampleInfo, c *Client) {
	if r == nil || r.Aborted || sink == nil {
		return
	}
	buf := sampleBuffers.Get().(*[]metrics.Sample)
	samples := (*buf)[:0]
	for _, hop := range r.Redirects {
		samples = e.appendSamples(samples, base, hop, info, urlTag(hop.URL))
	}
	raw := info.URL
	if raw == "" || len(r.Redirects) > 0 {
		raw = urlTag(r.URL)
	}
	samples = e.appendSamples(samples, base, r, info, raw)
	if c != nil {
		sent, received := c.TakeTraffic()
		e.mu.Lock()
		dt := e.data[base]
		if dt == nil {
			if len(e.data) >= maxCachedTagSets {
				clear(e.data)
			}
			dt = base
			if dt == nil {
				dt = metrics.NewTags(nil)
			}
			e.data[base] = dt
		}
		e.mu.Unlock()
		t := r.Timings.End
		samples = append(samples,
			metrics.Sample{Metric: e.m.DataSent, Time: t, Value: float64(sent), Tags: dt},
			metrics.Sample{Metric: e.m.DataReceived, Time: t, Value: float64(received), Tags: dt})
	}
	sink.AddSamples(samples)
	clear(samples) // drop the tag and metric pointers while pooled
	*buf = samples[:0]
	sampleBuffers.Put(buf)
}

// sampleBuffers hold the slices Emit fills: a sink never keeps one (metrics.Sink), so a request's
// samples cost no allocation, which at 100,000 requests a second is garbage the collector is spared.
var sampleBuffers = sync.Pool{New: func() any { s := make([]metrics.Sample, 0, 16); return &s }}

func (e *Emitter) appendSamples(s []metrics.Sample, base *metrics.TagSet, r *Response, info *SampleInfo, rawURL string) []metrics.Sample {
	ts := e.tags(base, r, info, rawURL)
	t := r.Timings.End
	tm := &r.Timings
	s = append(s,
		metrics.Sample{Metric: e.m.HTTPReqs, Time: t, Value: 1, Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqDuration, Time: t, Value: ms(tm.Duration), Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqBlocked, Time: t, Value: ms(tm.Blocked), Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqConnecting, Time: t, Value: ms(tm.Connecting), Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqTLSHandshaking, Time: t, Value: ms(tm.TLSHandshaking), Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqSending, Time: t, Value: ms(tm.Sending), Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqWaiting, Time: t, Value: ms(tm.Waiting), Tags: ts},
		metrics.Sample{Metric: e.m.HTTPReqReceiving, Time: t, Value: ms(tm.Receiving), Tags: ts},
	)
	if info.Expected != nil {
		failed := 1.0
		if (r.ErrorCode == 0 || r.Status != 0) && info.Expected.Expected(r.Status) {
			failed = 0
		}
		s = append(s, metrics.Sample{Metric: e.m.HTTPReqFailed, Time: t, Value: failed, Tags: ts})
	}
	return s
}
