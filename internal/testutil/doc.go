// Package testutil holds the helpers that the Go tests and test programs
// of several packages share (host, host/relay, host/cmd/toolerr, tests/...):
// a log buffer a process writes while the test reads it and stopping a
// child process (process.go), waiting for a condition (wait.go), reading
// the test data's JSON files strictly (json.go), and calling a tool with
// the Go SDK's client (mcp.go).
package testutil
