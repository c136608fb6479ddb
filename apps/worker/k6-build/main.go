// The k6 binary opsbench runs: upstream k6 (version pinned in go.mod) with
// opsbench's output extension compiled in, as `xk6 build` would produce.
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	_ "github.com/opsbench/opsbench/k6-build/output"
)

func main() { k6cmd.Execute() }
