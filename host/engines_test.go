package host_test

// The host's tests run every engine, Extism's included, which a program
// links by importing its package.
import _ "github.com/toolerr/toolerr/host/extism"
