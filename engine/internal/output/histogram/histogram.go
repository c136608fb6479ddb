// Package histogram is opsbench's sparse logarithmic histogram (as in
// DDSketch): bucket i holds values in (gamma^(i-1), gamma^i], and reporting a
// bucket by 2*gamma^i/(gamma+1) keeps every value within Alpha (relative) of
// the truth. The opsbench output format carries these buckets (its reader is
// packages/core/src/histograms/histogram.ts, which uses the same constants), and
// the end-of-test summary falls back to them for trends too large to keep whole.
package histogram

import (
	"encoding/binary"
	"math"
)

const (
	// Alpha is the relative accuracy: any value is reported within Alpha of its true value.
	Alpha = 0.008
	// MinValue: values closer to zero than this share one bucket.
	MinValue = 0.001
	// NegativeIndexOffset: a negative value -v goes to bucket NegativeIndexOffset - index(v),
	// so bucket order is value order (positive values use about -430..45,000).
	NegativeIndexOffset = -(1 << 24)
)

var (
	Gamma   = (1 + Alpha) / (1 - Alpha)
	lnGamma = math.Log(Gamma)
)

func magnitudeIndex(v float64) int32 {
	if v < MinValue {
		v = MinValue
	}
	return int32(math.Ceil(math.Log(v) / lnGamma))
}

// Index is the bucket of v; values within MinValue of zero share the lowest positive bucket.
func Index(v float64) int32 {
	if v <= -MinValue {
		return NegativeIndexOffset - magnitudeIndex(-v)
	}
	return magnitudeIndex(v)
}

// Value is what bucket i reports: within Alpha (relative) of every value in it, with its sign.
func Value(i int32) float64 {
	if i < NegativeIndexOffset/2 {
		return -2 * math.Pow(Gamma, float64(NegativeIndexOffset-i)) / (Gamma + 1)
	}
	return 2 * math.Pow(Gamma, float64(i)) / (Gamma + 1)
}

// AppendEncoded writes sorted sparse buckets compactly, as HdrHistogram does:
// signed (zigzag) varints, first the lowest index, then for each bucket its
// count, with a run of k empty buckets written as -k. Dense buckets cost a byte
// or two, isolated ones two. packages/core/src/histograms/histogram-encoding.ts reads it.
func AppendEncoded(out []byte, sorted []int32, count func(i int32) int64) []byte {
	if len(sorted) == 0 {
		return out
	}
	out = appendZigzag(out, int64(sorted[0]))
	for n, i := range sorted {
		if n > 0 {
			if empty := int64(i) - int64(sorted[n-1]) - 1; empty > 0 {
				out = appendZigzag(out, -empty)
			}
		}
		out = appendZigzag(out, count(i))
	}
	return out
}

func appendZigzag(out []byte, v int64) []byte {
	return binary.AppendUvarint(out, uint64((v<<1)^(v>>63)))
}
