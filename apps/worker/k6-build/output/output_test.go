package output

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The same vectors packages/core's decoder is tested against.
func TestEncodeBucketsMatchesSharedVectors(t *testing.T) {
	raw, err := os.ReadFile("../../../../packages/core/test/fixtures/histogram-encoding.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Buckets [][2]int64 `json:"buckets"`
			Hex     string     `json:"hex"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, v := range file.Vectors {
		sorted := make([]int32, 0, len(v.Buckets))
		counts := map[int32]int64{}
		for _, b := range v.Buckets {
			sorted = append(sorted, int32(b[0]))
			counts[int32(b[0])] = b[1]
		}
		if got := hex.EncodeToString(encodeBuckets(sorted, counts)); got != v.Hex {
			t.Errorf("buckets %v: got %s, want %s", v.Buckets, got, v.Hex)
		}
	}
}

func TestBucketIndexKeepsValuesWithinAlpha(t *testing.T) {
	for v := 0.05; v <= 60000; v *= 1.37 {
		i := bucketIndex(v)
		reported := 2 * math.Pow(gamma, float64(i)) / (gamma + 1)
		if math.Abs(reported-v)/v > Alpha+1e-12 {
			t.Errorf("value %v reported as %v", v, reported)
		}
	}
}
