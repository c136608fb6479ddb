package modules

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"

	"github.com/grafana/sobek"
)

func init() {
	Register("k6/crypto", newCrypto)
}

var hashes = map[string]func() hash.Hash{
	"md5":        md5.New,
	"sha1":       sha1.New,
	"sha256":     sha256.New,
	"sha384":     sha512.New384,
	"sha512":     sha512.New,
	"sha512_224": sha512.New512_224,
	"sha512_256": sha512.New512_256,
}

// k6 documents these too; Go's standard library has no implementation of them.
var refusedHashes = []string{"md4", "ripemd160"}

const hashHint = "supported: md5, sha1, sha256, sha384, sha512, sha512_224, sha512_256"

func newCrypto(s *VUState) (*sobek.Object, error) {
	rt := s.Runtime
	obj := rt.NewObject()
	hashFor := func(alg string) func() hash.Hash {
		h, ok := hashes[alg]
		if !ok {
			for _, r := range refusedHashes {
				if alg == r {
					throwUnsupported(rt, "the hash algorithm "+alg, hashHint)
				}
			}
			panic(rt.NewTypeError(`unknown hash algorithm "` + alg + `" (` + hashHint + `)`))
		}
		return h
	}
	for name, h := range hashes {
		_ = obj.Set(name, func(call sobek.FunctionCall) sobek.Value {
			hh := h()
			hh.Write(bytesOf(rt, call.Argument(0)))
			return digest(rt, hh.Sum(nil), call.Argument(1))
		})
	}
	for _, name := range refusedHashes {
		_ = obj.Set(name, func(sobek.FunctionCall) sobek.Value {
			throwUnsupported(rt, "crypto."+name+"()", hashHint)
			return nil
		})
	}
	_ = obj.Set("hmac", func(call sobek.FunctionCall) sobek.Value {
		mac := hmac.New(hashFor(call.Argument(0).String()), bytesOf(rt, call.Argument(1)))
		mac.Write(bytesOf(rt, call.Argument(2)))
		return digest(rt, mac.Sum(nil), call.Argument(3))
	})
	_ = obj.Set("createHash", func(call sobek.FunctionCall) sobek.Value {
		return newHasher(rt, hashFor(call.Argument(0).String())())
	})
	_ = obj.Set("createHMAC", func(call sobek.FunctionCall) sobek.Value {
		return newHasher(rt, hmac.New(hashFor(call.Argument(0).String()), bytesOf(rt, call.Argument(1))))
	})
	_ = obj.Set("randomBytes", func(call sobek.FunctionCall) sobek.Value {
		n := call.Argument(0).ToInteger()
		if n < 0 || n > 1<<30 {
			panic(rt.NewTypeError("randomBytes() needs a length from 0 to 2^30"))
		}
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return rt.ToValue(rt.NewArrayBuffer(b))
	})
	return obj, nil
}

// newHasher is k6/crypto's Hasher: update(data) adds, digest(encoding) reads the digest so far.
func newHasher(rt *sobek.Runtime, h hash.Hash) *sobek.Object {
	obj := rt.NewObject()
	_ = obj.Set("update", func(call sobek.FunctionCall) sobek.Value {
		h.Write(bytesOf(rt, call.Argument(0)))
		return sobek.Undefined()
	})
	_ = obj.Set("digest", func(call sobek.FunctionCall) sobek.Value {
		return digest(rt, h.Sum(nil), call.Argument(0))
	})
	return obj
}

// digest encodes a hash as k6/crypto's outputEncoding says: "hex", "base64",
// "base64url", "base64rawurl" or "binary" (an ArrayBuffer).
func digest(rt *sobek.Runtime, sum []byte, encoding sobek.Value) sobek.Value {
	enc := "hex"
	if !sobek.IsUndefined(encoding) && !sobek.IsNull(encoding) {
		enc = encoding.String()
	}
	switch enc {
	case "hex":
		return rt.ToValue(hex.EncodeToString(sum))
	case "base64":
		return rt.ToValue(base64.StdEncoding.EncodeToString(sum))
	case "base64url":
		return rt.ToValue(base64.URLEncoding.EncodeToString(sum))
	case "base64rawurl":
		return rt.ToValue(base64.RawURLEncoding.EncodeToString(sum))
	case "binary":
		return rt.ToValue(rt.NewArrayBuffer(sum))
	}
	panic(rt.NewTypeError(`unknown output encoding "` + enc + `" (use "hex", "base64", "base64url", "base64rawurl" or "binary")`))
}
