package output

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	"go.k6.io/k6/metrics"
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
		BucketIndexes [][2]float64 `json:"bucketIndexes"`
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
	if len(file.BucketIndexes) == 0 {
		t.Fatal("no bucketIndexes in the shared vectors")
	}
	for _, p := range file.BucketIndexes {
		if got := bucketIndex(p[0]); got != int32(p[1]) {
			t.Errorf("value %v: bucket %d, want %d", p[0], got, int32(p[1]))
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

func TestNegativeValuesKeepTheirSign(t *testing.T) {
	for v := -60000.0; v <= -0.05; v /= 1.37 {
		i := bucketIndex(v)
		reported := -2 * math.Pow(gamma, float64(negativeIndexOffset-i)) / (gamma + 1)
		if math.Abs(reported-v)/-v > Alpha+1e-12 {
			t.Errorf("value %v reported as %v", v, reported)
		}
		if i >= bucketIndex(v/1.37) {
			t.Errorf("bucket of %v (%d) not below that of %v", v, i, v/1.37)
		}
	}
	if bucketIndex(-0.001) >= bucketIndex(0) {
		t.Error("negative buckets must sort below zero's")
	}
}

func TestStatusClass(t *testing.T) {
	cases := map[string][2]string{
		"2xx":        {"200", ""},
		"5xx":        {"503", ""},
		"timeout":    {"0", "1050"},
		"connection": {"0", "1212"},
		"error":      {"", "1300"},
	}
	for want, c := range cases {
		tags := metrics.NewRegistry().RootTagSet().With("status", c[0]).With("error_code", c[1])
		if got := statusClass(tags); got != want {
			t.Errorf("status %q error_code %q: got %q, want %q", c[0], c[1], got, want)
		}
	}
}

// One status class, successful and failed responses in the same second (a script that expects 404 but not 400):
// two lines, one holding only the successes (fail 0) and one only the failures (fail = n), each with its own latencies.
func TestSuccessfulAndFailedResponsesAreSeparateCells(t *testing.T) {
	r := metrics.NewRegistry()
	dur := r.MustNewMetric("http_req_duration", metrics.Trend, metrics.Time)
	t0 := time.Unix(1_700_000_000, 0)
	req := func(status, expected string, ms int, v float64) metrics.Sample {
		tags := r.RootTagSet().With("name", "get").With("status", status).With("expected_response", expected)
		return metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: dur, Tags: tags}, Time: t0.Add(time.Duration(ms) * time.Millisecond), Value: v}
	}
	lines := runOutput(t, []metrics.Sample{req("404", "true", 1, 10), req("400", "false", 2, 1), req("404", "true", 3, 30), req("400", "false", 4, 2)})
	var http []map[string]any
	for _, l := range lines {
		if l["t"] == "http" {
			http = append(http, l)
		}
	}
	if len(http) != 2 {
		t.Fatalf("want 2 http lines, got %v", http)
	}
	ok, failed := http[0], http[1]
	if ok["class"] != "4xx" || ok["n"] != 2.0 || ok["fail"] != 0.0 || ok["min"] != 10.0 || ok["max"] != 30.0 {
		t.Errorf("successful cell: %v", ok)
	}
	if failed["class"] != "4xx" || failed["n"] != 2.0 || failed["fail"] != 2.0 || failed["min"] != 1.0 || failed["max"] != 2.0 {
		t.Errorf("failed cell: %v", failed)
	}
}
