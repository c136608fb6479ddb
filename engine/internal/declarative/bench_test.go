package declarative

import (
	"testing"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

func benchIterations(b *testing.B, program map[string]any) {
	target := newTarget(&testing.T{})
	defer target.Close()
	r, err := New(workloadJSON(&testing.T{}, program), map[string]string{"OPSBENCH_BASE_URL": target.URL}, metrics.NewRegistry(),
		metrics.SinkFunc(func([]metrics.Sample) {}))
	if err != nil {
		b.Fatal(err)
	}
	v, err := r.NewVU(b.Context(), 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	active := v.Activate(vu.Activation{Ctx: b.Context(), Tags: metrics.NewTags(map[string]string{"scenario": "main"})})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = active.RunIteration(vu.Iteration{InTest: int64(i)})
	}
}

func BenchmarkConstantRequest(b *testing.B) {
	benchIterations(b, map[string]any{"requests": []any{loadRequest("home", "GET", []any{text("/")}, nil)}})
}

func BenchmarkTemplatedRequest(b *testing.B) {
	benchIterations(b, map[string]any{
		"pools": map[string]any{"user": map[string]any{"choice": map[string]any{"zipf": 1.25}, "dimensions": []any{map[string]any{"name": "user", "size": 1000}}}},
		"requests": []any{loadRequest("user", "POST", []any{text("/users/"), poolPart("user", "user")}, map[string]any{
			"body":    []any{text(`{"u":`), poolPart("user", "index"), text(`}`)},
			"headers": []any{map[string]any{"name": "X-User", "value": []any{poolPart("user", "user")}}},
		})},
	})
}
