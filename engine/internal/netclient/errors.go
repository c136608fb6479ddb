package netclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// k6's documented error codes (javascript-api/error-codes).
const (
	CodeGeneric             = 1000
	CodeNonTCPNetwork       = 1010
	CodeInvalidURL          = 1020
	CodeTimeout             = 1050
	CodeDNSGeneric          = 1100
	CodeDNSNoIP             = 1101
	CodeBlacklistedIP       = 1110
	CodeBlockedHostname     = 1111
	CodeTCPGeneric          = 1200
	CodeBrokenPipe          = 1201
	CodeTCPUnknownErrno     = 1202
	CodeDialGeneric         = 1210
	CodeDialTimeout         = 1211
	CodeDialRefused         = 1212
	CodeDialUnknown         = 1213
	CodeResetByPeer         = 1220
	CodeTLSGeneric          = 1300
	CodeTLSUnknownAuthority = 1310
	CodeTLSHostname         = 1311
	CodeHTTP2Generic        = 1600
	CodeHTTP2GoAway         = 1610
	CodeHTTP2Stream         = 1630
	CodeHTTP2Connection     = 1650
	CodeDecompression       = 1701
)

// Error is a request error with its k6 error code.
type Error struct {
	Code int
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func newError(code int, msg string, err error) *Error { return &Error{Code: code, Msg: msg, Err: err} }

// StatusErrorCode is the error code k6 gives a 4xx or 5xx response (0 otherwise).
func StatusErrorCode(status int) int {
	if status >= 400 && status < 600 {
		return 1000 + status
	}
	return 0
}

var h2Codes = map[string]int{
	"NO_ERROR": 0, "PROTOCOL_ERROR": 1, "INTERNAL_ERROR": 2, "FLOW_CONTROL_ERROR": 3, "SETTINGS_TIMEOUT": 4,
	"STREAM_CLOSED": 5, "FRAME_SIZE_ERROR": 6, "REFUSED_STREAM": 7, "CANCEL": 8, "COMPRESSION_ERROR": 9,
	"CONNECT_ERROR": 10, "ENHANCE_YOUR_CALM": 11, "INADEQUATE_SECURITY": 12, "HTTP_1_1_REQUIRED": 13,
}

// h2CodeIn finds an HTTP/2 error code name in a message (net/http's HTTP/2 errors are unexported types).
func h2CodeIn(msg string) (int, bool) {
	for name, c := range h2Codes {
		if strings.Contains(msg, name) {
			return c, true
		}
	}
	return 0, false
}

// classify gives an error its k6 error code.
func classify(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	msg := err.Error()
	code := CodeGeneric
	var (
		dnsErr   *net.DNSError
		opErr    *net.OpError
		errno    syscall.Errno
		unknownA x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		certErr  x509.CertificateInvalidError
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		code = CodeTimeout
	case errors.As(err, &dnsErr):
		code = CodeDNSGeneric
		if dnsErr.IsNotFound {
			code = CodeDNSNoIP
		}
	case errors.As(err, &unknownA):
		code = CodeTLSUnknownAuthority
	case errors.As(err, &hostErr):
		code = CodeTLSHostname
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alertErr):
		code = CodeTLSGeneric
	case errors.As(err, &opErr) && opErr.Op == "dial":
		code = CodeDialGeneric
		switch {
		case opErr.Timeout():
			code = CodeDialTimeout
		case errors.Is(err, syscall.ECONNREFUSED):
			code = CodeDialRefused
		case errors.As(err, &errno):
			code = CodeDialUnknown
		}
	case errors.Is(err, syscall.ECONNRESET):
		code = CodeResetByPeer
	case errors.Is(err, syscall.EPIPE):
		code = CodeBrokenPipe
	case errors.As(err, &errno):
		code = CodeTCPUnknownErrno
	case strings.Contains(msg, "tls:"):
		code = CodeTLSGeneric
	case strings.Contains(msg, "GOAWAY"):
		code = CodeHTTP2GoAway
		if c, ok := h2CodeIn(msg); ok {
			code = 1611 + c
		}
	case strings.HasPrefix(msg, "stream error") || strings.Contains(msg, "http2: stream"):
		code = CodeHTTP2Stream
		if c, ok := h2CodeIn(msg); ok {
			code = 1631 + c
		}
	case strings.Contains(msg, "connection error"):
		code = CodeHTTP2Connection
		if c, ok := h2CodeIn(msg); ok {
			code = 1651 + c
		}
	case strings.Contains(msg, "http2:"):
		code = CodeHTTP2Generic
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		code = CodeTCPGeneric
	}
	return &Error{Code: code, Msg: msg, Err: err}
}
