package netclient

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Jar is a cookie jar as RFC 6265 describes it (without the public suffix
// list: a test talks to the hosts it is told to). Safe for concurrent use.
type Jar struct {
	mu      sync.Mutex
	entries map[jarKey]*jarEntry
	seq     uint64
}

type jarKey struct{ domain, path, name string }

type jarEntry struct {
	http.Cookie
	hostOnly bool
	expires  time.Time // zero: a session cookie
	seq      uint64    // creation order, for a stable Cookie header
}

func NewJar() *Jar { return &Jar{entries: map[jarKey]*jarEntry{}} }

// Reset empties the jar (k6 does so after each iteration unless noCookiesReset).
func (j *Jar) Reset() {
	j.mu.Lock()
	clear(j.entries)
	j.mu.Unlock()
}

func canonicalHost(u *url.URL) string {
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}

func isIP(host string) bool { return net.ParseIP(host) != nil }

func defaultPath(u *url.URL) string {
	p := u.Path
	if p == "" || p[0] != '/' {
		return "/"
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/"
	}
	return p[:i]
}

// SetCookies stores the cookies a response to u set.
func (j *Jar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	for _, c := range cookies {
		j.Set(u, c)
	}
}

// Set stores one cookie as if the server at u had set it; it returns false when the cookie is refused (domain mismatch).
func (j *Jar) Set(u *url.URL, c *http.Cookie) bool {
	host := canonicalHost(u)
	e := &jarEntry{Cookie: *c}
	domain := strings.ToLower(strings.TrimPrefix(c.Domain, "."))
	if domain == "" || domain == host {
		e.hostOnly = domain == ""
		domain = host
	} else if isIP(host) || !strings.HasSuffix(host, "."+domain) {
		return false
	}
	e.Domain = domain
	if e.Path == "" || e.Path[0] != '/' {
		e.Path = defaultPath(u)
	}
	now := time.Now()
	switch {
	case c.MaxAge < 0:
		e.expires = time.Unix(1, 0)
	case c.MaxAge > 0:
		e.expires = now.Add(time.Duration(c.MaxAge) * time.Second)
	case !c.Expires.IsZero():
		e.expires = c.Expires
	}
	key := jarKey{domain, e.Path, c.Name}
	j.mu.Lock()
	defer j.mu.Unlock()
	if !e.expires.IsZero() && !e.expires.After(now) {
		delete(j.entries, key)
		return true
	}
	if old, ok := j.entries[key]; ok {
		e.seq = old.seq
	} else {
		j.seq++
		e.seq = j.seq
	}
	j.entries[key] = e
	return true
}

func pathMatch(reqPath, cookiePath string) bool {
	if reqPath == "" {
		reqPath = "/"
	}
	if reqPath == cookiePath {
		return true
	}
	if strings.HasPrefix(reqPath, cookiePath) {
		return cookiePath[len(cookiePath)-1] == '/' || reqPath[len(cookiePath)] == '/'
	}
	return false
}

func (e *jarEntry) matches(host, path string, https bool, now time.Time) bool {
	if e.Secure && !https {
		return false
	}
	if !e.expires.IsZero() && !e.expires.After(now) {
		return false
	}
	if e.hostOnly {
		if host != e.Domain {
			return false
		}
	} else if host != e.Domain && !strings.HasSuffix(host, "."+e.Domain) {
		return false
	}
	return pathMatch(path, e.Path)
}

// Cookies returns the cookies to send to u: longer paths first, then older first (RFC 6265 5.4).
func (j *Jar) Cookies(u *url.URL) []*http.Cookie {
	j.mu.Lock()
	if len(j.entries) == 0 {
		j.mu.Unlock()
		return nil
	}
	host, now := canonicalHost(u), time.Now()
	https := u.Scheme == "https" || u.Scheme == "wss"
	var found []*jarEntry
	for k, e := range j.entries {
		if !e.expires.IsZero() && !e.expires.After(now) {
			delete(j.entries, k)
			continue
		}
		if e.matches(host, u.Path, https, now) {
			found = append(found, e)
		}
	}
	j.mu.Unlock()
	slices.SortFunc(found, func(a, b *jarEntry) int {
		if len(a.Path) != len(b.Path) {
			return len(b.Path) - len(a.Path)
		}
		return int(a.seq) - int(b.seq)
	})
	out := make([]*http.Cookie, len(found))
	for i, e := range found {
		out[i] = &http.Cookie{Name: e.Name, Value: e.Value}
	}
	return out
}

// Delete removes the cookies named name that would be sent to u.
func (j *Jar) Delete(u *url.URL, name string) {
	j.remove(u, func(e *jarEntry) bool { return e.Name == name })
}

// Clear removes every cookie that would be sent to u.
func (j *Jar) Clear(u *url.URL) { j.remove(u, func(*jarEntry) bool { return true }) }

func (j *Jar) remove(u *url.URL, which func(*jarEntry) bool) {
	host, now := canonicalHost(u), time.Now()
	https := u.Scheme == "https" || u.Scheme == "wss"
	j.mu.Lock()
	defer j.mu.Unlock()
	for k, e := range j.entries {
		if which(e) && e.matches(host, u.Path, https, now) {
			delete(j.entries, k)
		}
	}
}
