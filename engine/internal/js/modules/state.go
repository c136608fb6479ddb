// Package modules holds what a k6 API module needs of the VU it runs in. Each
// module (k6, k6/http, k6/metrics, ...) is made per VU from a *VUState.
package modules

import (
	"context"
	"encoding/json"
	"time"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// VUState is one VU's view of the test. The JS runtime owns it; modules read it
// and change only what they own (group, tags through exec.vu.tags).
type VUState struct {
	Runtime  *sobek.Runtime
	Registry *metrics.Registry
	// Samples receives every sample the VU makes.
	Samples metrics.Sink
	// IDInInstance / IDInTest: __VU is IDInTest (0 in the init context of the first, options-only, run).
	IDInInstance, IDInTest uint64
	// Init is true while the init code runs: HTTP requests and check() are refused there, open() allowed.
	Init bool
	// Ctx is the iteration's context (the activation's while active); nil in the init context.
	Ctx context.Context
	// Tags are the current tags: the test's and scenario's, "group" and the script's own exec.vu.tags.
	// Read it freely; change it only through SetBaseTags, SetGroup and SetVUTag/DeleteVUTag.
	Tags *metrics.TagSet
	// Group is the current group path ("" at the top, "::a::b" inside groups a then b, as k6 writes it).
	Group string
	// Activation is the scenario the VU serves (zero in the init context and in setup/teardown).
	Activation vu.Activation
	// Iteration is the running iteration.
	Iteration vu.Iteration
	// Options are the test's consolidated options (k6's).
	Options json.RawMessage
	// Env is __ENV.
	Env map[string]string
	// HTTP is the VU's HTTP client state, made and owned by the k6/http module (cookie jar, transport).
	HTTP any

	// The fields below were added by the JS runtime (additive to the contract above).

	// Counters are this VU's own iteration counters (k6/execution's vu.iterationInScenario and
	// vu.iterationInInstance); __ITER is Counters.InScenario.
	Counters VUCounters
	// Shared holds what all VUs of one test share (SharedArray data); never nil in the JS runtime.
	Shared *Shared
	// Loop runs callbacks on the VU's goroutine: timers and asynchronous operations (see EventLoop.RegisterCallback).
	Loop *EventLoop
	// Log writes a line to the test's log; level is "debug", "info", "warning" or "error". May be nil.
	Log func(level, msg string)

	tags tagState
}

// VUCounters are a VU's own iteration counters.
type VUCounters struct {
	InScenario, InInstance int64
}

// tagState keeps Tags up to date from the base tags (the test's and the
// scenario's), the script's own tags (exec.vu.metrics.tags) and the group.
// TagSets are cached per group path, so entering the same group every iteration
// allocates nothing.
type tagState struct {
	base    *metrics.TagSet
	vuTags  map[string]string
	byGroup map[string]*metrics.TagSet
}

// SetBaseTags sets the test's and scenario's tags (the script's own tags and the group stay).
func (s *VUState) SetBaseTags(base *metrics.TagSet) {
	s.tags.base = base
	s.tags.byGroup = nil
	s.refreshTags()
}

// SetGroup enters a group path ("" for the root).
func (s *VUState) SetGroup(path string) {
	s.Group = path
	s.refreshTags()
}

// SetVUTag sets one of the script's own tags (exec.vu.metrics.tags).
func (s *VUState) SetVUTag(key, value string) {
	if old, ok := s.tags.vuTags[key]; ok && old == value {
		return
	}
	if s.tags.vuTags == nil {
		s.tags.vuTags = map[string]string{}
	}
	s.tags.vuTags[key] = value
	s.tags.byGroup = nil
	s.refreshTags()
}

// DeleteVUTag removes one of the script's own tags.
func (s *VUState) DeleteVUTag(key string) {
	if _, ok := s.tags.vuTags[key]; !ok {
		return
	}
	delete(s.tags.vuTags, key)
	s.tags.byGroup = nil
	s.refreshTags()
}

// ResetVUTags drops the script's own tags (a VU starting another scenario).
func (s *VUState) ResetVUTags() {
	if len(s.tags.vuTags) == 0 {
		return
	}
	s.tags.vuTags = nil
	s.tags.byGroup = nil
	s.refreshTags()
}

// maxCachedGroups bounds the per-VU TagSet cache for scripts that make group names up on the fly.
const maxCachedGroups = 256

func (s *VUState) refreshTags() {
	if t, ok := s.tags.byGroup[s.Group]; ok {
		s.Tags = t
		return
	}
	m := s.tags.base.Map()
	for k, v := range s.tags.vuTags {
		m[k] = v
	}
	m["group"] = s.Group
	t := metrics.NewTags(m)
	if s.tags.byGroup == nil || len(s.tags.byGroup) >= maxCachedGroups {
		s.tags.byGroup = map[string]*metrics.TagSet{}
	}
	s.tags.byGroup[s.Group] = t
	s.Tags = t
}

// Emit sends one sample of m, taken now, with the given tags (the current tags when nil).
func (s *VUState) Emit(m *metrics.Metric, value float64, tags *metrics.TagSet) {
	if tags == nil {
		tags = s.Tags
	}
	s.Samples.AddSamples([]metrics.Sample{{Metric: m, Time: time.Now(), Value: value, Tags: tags}})
}

// Logf writes to the test's log, if the VU has one.
func (s *VUState) Logf(level, msg string) {
	if s.Log != nil {
		s.Log(level, msg)
	}
}
