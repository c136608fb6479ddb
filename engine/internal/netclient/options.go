// Package netclient is the engine's HTTP client for load generation: one
// Client per VU (its own connections and cookie jar, as k6 documents), timings
// measured per request the way k6 defines http_req_*, bytes counted on the
// wire, k6's error codes, and the address policy (blacklistIPs,
// blockHostnames, hosts) enforced when dialing, after name resolution.
//
// Plain HTTP/1.1 (and HTTP/1.1 over TLS) goes through a lean hand-written
// client; when TLS negotiates h2 the request goes through net/http.
package netclient

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
)

// DefaultUserAgent is sent unless the userAgent option says otherwise.
const DefaultUserAgent = "opsbench-engine/1 (k6 API)"

// Options are the k6 options the HTTP client honours, parsed from the
// consolidated options JSON.
type Options struct {
	UserAgent             string
	MaxRedirects          int
	Batch, BatchPerHost   int
	DiscardResponseBodies bool
	Throw                 bool
	InsecureSkipTLSVerify bool
	NoConnectionReuse     bool
	NoVUConnectionReuse   bool
	NoCookiesReset        bool
	TLSMinVersion         uint16
	TLSMaxVersion         uint16
	BlacklistIPs          []netip.Prefix
	BlockHostnames        []string // lower case; a leading "*" matches any prefix
	Hosts                 map[string]string
	// SystemTags says which system tags the HTTP samples carry.
	SystemTags map[string]bool
}

// DefaultSystemTags are k6's default system tags.
var DefaultSystemTags = []string{"proto", "subproto", "status", "method", "url", "name", "group", "check", "error",
	"error_code", "tls_version", "scenario", "service", "expected_response"}

// DefaultOptions are k6's defaults.
func DefaultOptions() *Options {
	o := &Options{UserAgent: DefaultUserAgent, MaxRedirects: 10, Batch: 20, BatchPerHost: 6, SystemTags: map[string]bool{}}
	for _, t := range DefaultSystemTags {
		o.SystemTags[t] = true
	}
	return o
}

type rawOptions struct {
	UserAgent             *string           `json:"userAgent"`
	MaxRedirects          *int              `json:"maxRedirects"`
	Batch                 *int              `json:"batch"`
	BatchPerHost          *int              `json:"batchPerHost"`
	DiscardResponseBodies *bool             `json:"discardResponseBodies"`
	Throw                 *bool             `json:"throw"`
	InsecureSkipTLSVerify *bool             `json:"insecureSkipTLSVerify"`
	NoConnectionReuse     *bool             `json:"noConnectionReuse"`
	NoVUConnectionReuse   *bool             `json:"noVUConnectionReuse"`
	NoCookiesReset        *bool             `json:"noCookiesReset"`
	TLSVersion            json.RawMessage   `json:"tlsVersion"`
	BlacklistIPs          []string          `json:"blacklistIPs"`
	BlockHostnames        json.RawMessage   `json:"blockHostnames"`
	Hosts                 map[string]string `json:"hosts"`
	SystemTags            json.RawMessage   `json:"systemTags"`
}

// ParseOptions reads the HTTP-related k6 options from the options JSON; absent options keep k6's defaults.
func ParseOptions(raw json.RawMessage) (*Options, error) {
	o := DefaultOptions()
	if len(raw) == 0 || string(raw) == "null" {
		return o, nil
	}
	var r rawOptions
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("invalid HTTP options: %w", err)
	}
	if r.UserAgent != nil {
		o.UserAgent = *r.UserAgent
	}
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setInt(&o.MaxRedirects, r.MaxRedirects)
	setInt(&o.Batch, r.Batch)
	setInt(&o.BatchPerHost, r.BatchPerHost)
	setBool(&o.DiscardResponseBodies, r.DiscardResponseBodies)
	setBool(&o.Throw, r.Throw)
	setBool(&o.InsecureSkipTLSVerify, r.InsecureSkipTLSVerify)
	setBool(&o.NoConnectionReuse, r.NoConnectionReuse)
	setBool(&o.NoVUConnectionReuse, r.NoVUConnectionReuse)
	setBool(&o.NoCookiesReset, r.NoCookiesReset)
	for _, s := range r.BlacklistIPs {
		p, err := parsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("invalid blacklistIPs entry %q: %w", s, err)
		}
		o.BlacklistIPs = append(o.BlacklistIPs, p)
	}
	if len(r.BlockHostnames) > 0 && string(r.BlockHostnames) != "null" {
		list, err := stringList(r.BlockHostnames)
		if err != nil {
			return nil, fmt.Errorf("invalid blockHostnames: %w", err)
		}
		for _, h := range list {
			h = strings.ToLower(strings.TrimSpace(h))
			if h == "" {
				continue
			}
			if strings.Contains(h[1:], "*") {
				return nil, fmt.Errorf("invalid blockHostnames pattern %q: only a leading * is allowed", h)
			}
			o.BlockHostnames = append(o.BlockHostnames, h)
		}
	}
	if len(r.Hosts) > 0 {
		o.Hosts = map[string]string{}
		for k, v := range r.Hosts {
			o.Hosts[strings.ToLower(k)] = v
		}
	}
	if len(r.TLSVersion) > 0 && string(r.TLSVersion) != "null" {
		var err error
		if o.TLSMinVersion, o.TLSMaxVersion, err = parseTLSVersion(r.TLSVersion); err != nil {
			return nil, err
		}
	}
	if len(r.SystemTags) > 0 && string(r.SystemTags) != "null" {
		list, err := stringList(r.SystemTags)
		if err != nil {
			return nil, fmt.Errorf("invalid systemTags: %w", err)
		}
		o.SystemTags = map[string]bool{}
		for _, t := range list {
			o.SystemTags[strings.TrimSpace(t)] = true
		}
	}
	return o, nil
}

// stringList accepts a JSON array of strings or one comma-separated string (the CLI's form).
func stringList(raw json.RawMessage) ([]string, error) {
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return strings.Split(s, ","), nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

var tlsVersions = map[string]uint16{
	"ssl3.0": tls.VersionSSL30, //nolint:staticcheck // k6 documents the name; Go refuses SSL 3.0 anyway
	"tls1.0": tls.VersionTLS10,
	"tls1.1": tls.VersionTLS11,
	"tls1.2": tls.VersionTLS12,
	"tls1.3": tls.VersionTLS13,
}

func parseTLSVersion(raw json.RawMessage) (minV, maxV uint16, err error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		v, ok := tlsVersions[one]
		if !ok {
			return 0, 0, fmt.Errorf("unknown tlsVersion %q", one)
		}
		return v, v, nil
	}
	var mm struct{ Min, Max string }
	if err := json.Unmarshal(raw, &mm); err != nil {
		return 0, 0, fmt.Errorf("invalid tlsVersion: %w", err)
	}
	if mm.Min != "" {
		if minV = tlsVersions[mm.Min]; minV == 0 {
			return 0, 0, fmt.Errorf("unknown tlsVersion min %q", mm.Min)
		}
	}
	if mm.Max != "" {
		if maxV = tlsVersions[mm.Max]; maxV == 0 {
			return 0, 0, fmt.Errorf("unknown tlsVersion max %q", mm.Max)
		}
	}
	return minV, maxV, nil
}

// TLSVersionName is k6's name of a TLS version (the tls_version tag).
func TLSVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "tls1.0"
	case tls.VersionTLS11:
		return "tls1.1"
	case tls.VersionTLS12:
		return "tls1.2"
	case tls.VersionTLS13:
		return "tls1.3"
	}
	return ""
}
