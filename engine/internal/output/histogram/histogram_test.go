package histogram

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The same vectors packages/core's decoder is tested against.
func TestEncodingMatchesSharedVectors(t *testing.T) {
	raw, err := os.ReadFile("../../../../packages/core/test/fixtures/histogram-encoding.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Buckets [][2]int64 `json:"buckets"`
			Hex     string     `json:"hex"`
		} `json:"vectors"`
		BucketIndexes [][2]float64 `json:"bucketIndexes"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) == 0 || len(file.BucketIndexes) == 0 {
		t.Fatal("no vectors in the shared file")
	}
	for _, v := range file.Vectors {
		sorted := make([]int32, 0, len(v.Buckets))
		counts := map[int32]int64{}
		for _, b := range v.Buckets {
			sorted = append(sorted, int32(b[0]))
			counts[int32(b[0])] = b[1]
		}
		got := hex.EncodeToString(AppendEncoded(nil, sorted, func(i int32) int64 { return counts[i] }))
		if got != v.Hex {
			t.Errorf("buckets %v: got %s, want %s", v.Buckets, got, v.Hex)
		}
	}
	for _, p := range file.BucketIndexes {
		if got := Index(p[0]); got != int32(p[1]) {
			t.Errorf("value %v: bucket %d, want %d", p[0], got, int32(p[1]))
		}
	}
}

func TestValuesAreReportedWithinAlpha(t *testing.T) {
	for v := 0.05; v <= 60000; v *= 1.37 {
		if got := Value(Index(v)); math.Abs(got-v)/v > Alpha+1e-12 {
			t.Errorf("value %v reported as %v", v, got)
		}
	}
}

func TestNegativeValuesKeepTheirSignAndOrder(t *testing.T) {
	for v := -60000.0; v <= -0.05; v /= 1.37 {
		i := Index(v)
		if got := Value(i); math.Abs(got-v)/-v > Alpha+1e-12 {
			t.Errorf("value %v reported as %v", v, got)
		}
		if i >= Index(v/1.37) {
			t.Errorf("bucket of %v (%d) not below that of %v", v, i, v/1.37)
		}
	}
	if Index(-0.001) >= Index(0) {
		t.Error("negative buckets must sort below zero's")
	}
}
