package options

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a k6 duration: a string such as "1m30s", "500ms" or "1h", or a
// plain number of milliseconds. It is written back as a string ("1m30s").
type Duration time.Duration

// ParseDuration reads a k6 duration string; a bare number means milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if ms, err := strconv.ParseFloat(s, 64); err == nil {
		return msToDuration(ms)
	}
	orig := s
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 { // k6 also reads days: "1d12h"
		n, err := strconv.ParseUint(s[:i], 10, 32)
		if err == nil {
			days, s = time.Duration(n)*24*time.Hour, s[i+1:]
			if s == "" {
				return days, nil
			}
		}
	}
	d, err := time.ParseDuration(s)
	d += days
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (expected e.g. \"1m30s\", \"500ms\", \"1h\" or a number of milliseconds)", orig)
	}
	return d, nil
}

func msToDuration(ms float64) (time.Duration, error) {
	if ms != ms || ms > float64(1<<62)/float64(time.Millisecond) || ms < -float64(1<<62)/float64(time.Millisecond) {
		return 0, fmt.Errorf("invalid duration %v ms", ms)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

func (d Duration) D() time.Duration { return time.Duration(d) }

// String writes the duration as k6 does ("1m30s", "30s", "1h0m0s", "500ms").
func (d Duration) String() string { return time.Duration(d).String() }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("invalid duration %s (expected a string such as \"30s\" or a number of milliseconds)", string(b))
	}
	v, err := msToDuration(ms)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
