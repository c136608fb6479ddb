package js

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

func benchIteration(b *testing.B, script string) {
	b.Helper()
	dir := writeFiles(b, map[string]string{"script.js": script})
	r, err := New(Config{Entry: filepath.Join(dir, "script.js"), Samples: metrics.SinkFunc(func([]metrics.Sample) {})})
	if err != nil {
		b.Fatal(err)
	}
	v, err := r.NewVU(context.Background(), 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	a := v.Activate(vu.Activation{Ctx: context.Background(), Scenario: "default", Tags: metrics.NewTags(map[string]string{"scenario": "default"})})
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := a.RunIteration(vu.Iteration{InInstance: int64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmptyIteration(b *testing.B) {
	benchIteration(b, `export default function () {}`)
}

func BenchmarkCheckGroupMetricIteration(b *testing.B) {
	benchIteration(b, `
import { check, group } from "k6";
import { Trend } from "k6/metrics";
const t = new Trend("t");
export default function () {
  group("g", () => { check(1, { "one": (v) => v === 1 }); t.add(__ITER); });
}`)
}
