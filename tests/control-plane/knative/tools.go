//go:build tools

// The commands tests/control-plane/build.mjs builds, so that `go mod tidy` keeps what they need.
package knative

import (
	_ "knative.dev/serving/cmd/autoscaler"
	_ "knative.dev/serving/cmd/controller"
)
