package netclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// dnsTTL is k6's default DNS cache time.
const dnsTTL = 5 * time.Minute

// Shared is what all VUs of a test share: the options and the DNS cache.
type Shared struct {
	Opts *Options

	dnsMu sync.RWMutex
	dns   map[string]dnsEntry
	// lookup resolves a name; tests replace it.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

type dnsEntry struct {
	addrs   []netip.Addr
	expires time.Time
}

// NewShared prepares the state shared by the VUs of one test.
func NewShared(o *Options) *Shared {
	if o == nil {
		o = DefaultOptions()
	}
	return &Shared{Opts: o, dns: map[string]dnsEntry{}, lookup: lookupIP}
}

// resolve returns one address of host, preferring IPv4 and picking at random among them (k6's default DNS policy).
func (s *Shared) resolve(ctx context.Context, host string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return a.Unmap(), nil
	}
	now := time.Now()
	s.dnsMu.RLock()
	e, ok := s.dns[host]
	s.dnsMu.RUnlock()
	if !ok || now.After(e.expires) {
		addrs, err := s.lookup(ctx, host)
		if err != nil {
			return netip.Addr{}, err
		}
		var v4, v6 []netip.Addr
		for _, a := range addrs {
			if a = a.Unmap(); a.Is4() {
				v4 = append(v4, a)
			} else {
				v6 = append(v6, a)
			}
		}
		if len(v4) == 0 {
			v4 = v6
		}
		if len(v4) == 0 {
			return netip.Addr{}, newError(CodeDNSNoIP, fmt.Sprintf("lookup %s: no IP address found", host), nil)
		}
		e = dnsEntry{addrs: v4, expires: now.Add(dnsTTL)}
		s.dnsMu.Lock()
		s.dns[host] = e
		s.dnsMu.Unlock()
	}
	return e.addrs[rand.IntN(len(e.addrs))], nil
}

func lookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// blockedBy returns the blockHostnames pattern that host matches, if any.
func (o *Options) blockedBy(host string) (string, bool) {
	if len(o.BlockHostnames) == 0 {
		return "", false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, p := range o.BlockHostnames {
		if p[0] == '*' {
			if strings.HasSuffix(host, p[1:]) {
				return p, true
			}
		} else if host == p {
			return p, true
		}
	}
	return "", false
}

// blacklistedBy returns the blacklistIPs range that ip is in, if any.
func (o *Options) blacklistedBy(ip netip.Addr) (netip.Prefix, bool) {
	for _, p := range o.BlacklistIPs {
		if p.Contains(ip) {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// mapHost applies the hosts option: "name:port" first, then "name", then "*.suffix:port" and "*.suffix".
func (o *Options) mapHost(host, port string) (string, string) {
	if len(o.Hosts) == 0 {
		return host, port
	}
	h := strings.ToLower(host)
	v, ok := o.Hosts[h+":"+port]
	if !ok {
		v, ok = o.Hosts[h]
	}
	for i := strings.IndexByte(h, '.'); !ok && i >= 0; {
		suffix := "*" + h[i:]
		if v, ok = o.Hosts[suffix+":"+port]; !ok {
			v, ok = o.Hosts[suffix]
		}
		j := strings.IndexByte(h[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if !ok {
		return host, port
	}
	if ap, err := netip.ParseAddrPort(v); err == nil {
		return ap.Addr().String(), strconv.Itoa(int(ap.Port()))
	}
	if _, err := netip.ParseAddr(v); err == nil {
		return v, port
	}
	if hh, pp, err := net.SplitHostPort(v); err == nil {
		return hh, pp
	}
	return v, port
}

// countConn counts the bytes that cross the wire into the VU's traffic counters.
type countConn struct {
	net.Conn
	t *traffic
}

type traffic struct{ sent, received atomic.Int64 }

func (c *countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.t.received.Add(int64(n))
	return n, err
}

func (c *countConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.t.sent.Add(int64(n))
	return n, err
}

// dialed is a new connection with what was measured while making it.
type dialed struct {
	conn       net.Conn // the counted TCP conn, or a *tls.Conn over it
	raw        net.Conn
	ip         netip.Addr
	port       int
	connecting time.Duration
	tlsTime    time.Duration
	tlsState   *tls.ConnectionState
}

// dial resolves, checks the address policy and connects; for https it also does the TLS handshake.
func (c *Client) dial(ctx context.Context, deadline time.Time, https bool, host, port string) (*dialed, error) {
	o := c.shared.Opts
	if p, ok := o.blockedBy(host); ok {
		return nil, newError(CodeBlockedHostname, fmt.Sprintf("hostname (%s) is in a blocked pattern (%s)", host, p), nil)
	}
	dHost, dPort := o.mapHost(host, port)
	if dHost != host {
		if p, ok := o.blockedBy(dHost); ok {
			return nil, newError(CodeBlockedHostname, fmt.Sprintf("hostname (%s) is in a blocked pattern (%s)", dHost, p), nil)
		}
	}
	ip, err := c.shared.resolve(ctx, dHost)
	if err != nil {
		return nil, classify(err)
	}
	if p, ok := o.blacklistedBy(ip); ok {
		return nil, newError(CodeBlacklistedIP, fmt.Sprintf("IP (%s) is in a blacklisted range (%s)", ip, p), nil)
	}
	portN, err := strconv.Atoi(dPort)
	if err != nil || portN <= 0 || portN > 65535 {
		return nil, newError(CodeInvalidURL, fmt.Sprintf("invalid port %q", dPort), nil)
	}
	d := net.Dialer{Deadline: deadline, KeepAlive: 30 * time.Second}
	start := time.Now()
	raw, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(ip, uint16(portN)).String())
	if err != nil {
		return nil, classify(err)
	}
	res := &dialed{raw: raw, ip: ip, port: portN, connecting: time.Since(start)}
	cc := &countConn{Conn: raw, t: &c.traffic}
	res.conn = cc
	if https {
		cfg := c.tlsConfig.Clone()
		cfg.ServerName = host
		tc := tls.Client(cc, cfg)
		tstart := time.Now()
		if !deadline.IsZero() {
			_ = raw.SetDeadline(deadline)
		}
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, classify(err)
		}
		res.tlsTime = time.Since(tstart)
		st := tc.ConnectionState()
		res.tlsState = &st
		res.conn = tc
	}
	return res, nil
}
