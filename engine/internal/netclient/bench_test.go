package netclient

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

// rawServer answers every request with a fixed small response, as cheaply as
// possible, so a benchmark measures the client rather than the server.
func rawServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	reply := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nContent-Length: 13\r\n\r\nHello, world!")
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReaderSize(conn, 4096)
				for {
					// Requests carry no body here: a request ends at the empty line.
					for {
						line, err := br.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(bytes.TrimRight(line, "\r\n")) == 0 {
							break
						}
					}
					if _, err := conn.Write(reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hello?x=1"
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the process CPU time per request (client and the trivial server together) and requests per CPU-second.
func reportCPU(b *testing.B, start time.Duration) {
	cpu := cpuTime() - start
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/req")
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "req/cpu-s")
}

// BenchmarkNetclient: one Client per goroutine (a VU each), body kept, samples emitted as the JS module would.
func BenchmarkNetclient(b *testing.B) {
	target := rawServer(b)
	shared := NewShared(DefaultOptions())
	reg := metrics.NewRegistry()
	var n atomic.Int64
	sink := metrics.SinkFunc(func(s []metrics.Sample) { n.Add(int64(len(s))) })
	base := metrics.NewTags(map[string]string{"scenario": "default"})
	b.ReportAllocs()
	b.SetParallelism(8) // 16 VUs on 2 CPUs
	start := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		c := NewClient(shared)
		defer c.Close()
		em := NewEmitter(reg, shared.Opts)
		req := &Request{Method: "GET", URL: mustURL(b, target)}
		info := &SampleInfo{URL: target, Expected: DefaultExpectedStatuses}
		for pb.Next() {
			resp, err := c.Do(context.Background(), req)
			if err != nil || resp.Status != 200 {
				b.Errorf("%v %d", err, resp.Status)
				return
			}
			em.Emit(sink, base, resp, info, c)
		}
	})
	reportCPU(b, start)
}

// BenchmarkNetHTTP is the same load through net/http's client (no samples).
func BenchmarkNetHTTP(b *testing.B) {
	target := rawServer(b)
	tr := &http.Transport{MaxIdleConnsPerHost: 1000, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.SetParallelism(8) // 16 VUs on 2 CPUs
	start := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Get(target)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	reportCPU(b, start)
}
