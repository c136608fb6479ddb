// sandbox-writer stands in for a k6 that writes a file of its choosing (a stock k6's handleSummary() can name any
// path): `sandbox-writer PATH MIB` writes up to MIB MiB to PATH and prints how many it wrote, and why it stopped.
// Static (CGO_ENABLED=0), so it runs in the sandbox, which shows a program nothing but itself.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	mib, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Println("usage: sandbox-writer PATH MIB")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Printf("wrote 0 MiB: %v\n", err)
		return
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range mib {
		if _, err := f.Write(buf); err != nil {
			fmt.Printf("wrote %d MiB: %v\n", i, err)
			return
		}
	}
	fmt.Printf("wrote %d MiB\n", mib)
}
