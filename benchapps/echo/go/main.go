// The echo function of study 001 as a plain Go HTTP server:
// GET /?input=X (or a POST body) answers "Hello, input was: X".
// It is also the fast target opsbench's overhead benchmark uses, so that k6,
// not the server, is the bottleneck; GET /served tells that benchmark how many
// echo requests it has answered (an atomic counter).
package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync/atomic"
)

func main() {
	host := getenv("HOST", "127.0.0.1")
	port := getenv("PORT", "8080")
	var served atomic.Int64
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	http.HandleFunc("/served", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, served.Load()) })
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		input := r.URL.Query().Get("input")
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			input = string(body)
		}
		fmt.Fprintf(w, "Hello, input was: %s", input)
	})
	log.Printf("echo listening on http://%s:%s", host, port)
	log.Fatal(http.ListenAndServe(host+":"+port, nil))
}

func getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
