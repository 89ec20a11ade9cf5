// Command cockpit supervises an AI trading agent: a terminal cockpit, a fail-closed order
// gate, a kill switch and an audit trail.
//
// Exit codes: 0 success; 1 an operation failed; 2 usage error; 3 `check` found an order that
// is not allowed (DENY or PAUSE_FOR_REAUTH).
package main

import (
	"os"
)

func main() {
	os.Exit(NewApp(os.Stdin, os.Stdout, os.Stderr).Run(os.Args[1:]))
}
