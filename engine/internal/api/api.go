// Package api serves the subset of k6's REST API opsbench uses: GET /v1/status
// (the test's state) and PATCH /v1/status (pause or resume it), in k6's JSON:API shape.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/opsbench/opsbench/engine/internal/scheduler"
)

// Controller is what the API reads and steers (the scheduler).
type Controller interface {
	Status() scheduler.Status
	SetPaused(paused bool) error
}

type attributes struct {
	Status  int   `json:"status"`
	Paused  bool  `json:"paused"`
	Stopped bool  `json:"stopped"`
	Running bool  `json:"running"`
	Tainted bool  `json:"tainted"`
	VUs     int64 `json:"vus"`
	VUsMax  int64 `json:"vus-max"`
}

type statusDoc struct {
	Data struct {
		Type       string     `json:"type"`
		ID         string     `json:"id"`
		Attributes attributes `json:"attributes"`
	} `json:"data"`
}

// patchDoc: only the attributes opsbench sends; absent ones are left alone.
type patchDoc struct {
	Data struct {
		Attributes struct {
			Paused *bool `json:"paused"`
		} `json:"attributes"`
	} `json:"data"`
}

// Handler serves the API for c.
func Handler(c Controller) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/status", func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodPatch:
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
			var p patchDoc
			if err == nil {
				err = json.Unmarshal(body, &p)
			}
			if err != nil {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid status document: %v", err))
				return
			}
			if p.Data.Attributes.Paused != nil {
				if err := c.SetPaused(*p.Data.Attributes.Paused); err != nil {
					writeError(w, http.StatusBadRequest, err.Error())
					return
				}
			}
		default:
			w.Header().Set("Allow", "GET, PATCH")
			writeError(w, http.StatusMethodNotAllowed, "only GET and PATCH are served on /v1/status")
			return
		}
		writeJSON(w, http.StatusOK, statusOf(c.Status()))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not found: this engine serves GET and PATCH /v1/status only")
	})
	return mux
}

func statusOf(st scheduler.Status) statusDoc {
	var d statusDoc
	d.Data.Type, d.Data.ID = "status", "default"
	d.Data.Attributes = attributes{Status: st.Status, Paused: st.Paused, Stopped: st.Stopped, Running: st.Running,
		Tainted: st.Tainted, VUs: st.VUs, VUsMax: st.VUsMax}
	return d
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, detail string) {
	writeJSON(w, code, map[string]any{"errors": []map[string]string{{"status": fmt.Sprint(code), "detail": detail}}})
}

// Server is a listening API.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Listen binds addr (k6's --address, e.g. "127.0.0.1:6565") and serves in the background.
func Listen(addr string, c Controller) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot start the REST API on %s: %w", addr, err)
	}
	s := &Server{ln: ln, srv: &http.Server{Handler: Handler(c), ReadHeaderTimeout: 5 * time.Second}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener is gone; the test goes on without its API
		}
	}()
	return s, nil
}

// Addr is the address it listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
