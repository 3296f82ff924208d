package relay

import "time"

// SetKeepalive sets how often an idle event stream gets a comment, until
// the returned function restores it.
func SetKeepalive(d time.Duration) (restore func()) {
	old := keepalive.Swap(int64(d))
	return func() { keepalive.Store(old) }
}

// HeaderValue is headerValue: a value as the stateless protocol writes it
// in a header.
var HeaderValue = headerValue

// HeaderText is headerText: a header's value read back.
var HeaderText = headerText
