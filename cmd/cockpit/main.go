// Command cockpit supervises an AI trading agent: a terminal cockpit, a fail-closed order
// gate, a kill switch and an audit trail.
//
// Exit codes: 0 success; 1 an operation failed; 2 usage error; 3 `check` found an order that
// is not allowed (DENY or PAUSE_FOR_REAUTH).
package main

import (
	"fmt"
	"os"

	"cockpit/engine/sandbox"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		// The Landlock helper: restrict this process, then become the command.
		err := sandbox.RunHelper(os.Args[2:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	os.Exit(NewApp(os.Stdin, os.Stdout, os.Stderr).Run(os.Args[1:]))
}
