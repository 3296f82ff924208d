package relay

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// The stateless protocol (MCP 2026-07-28) over Streamable HTTP: no
// initialize and no session; every request is a POST of its own that
// names its protocol version in params._meta, and mirrors it, its method
// and the name it calls in headers. A stdio server serves one client, so
// the handler keeps one session for such requests (for each Authorization
// a client presents, so that no two credentials share a server), whose
// relay and server serve them all. Each request's id, and its progress
// token, are replaced by ones of the session's own on the way in and
// restored on the way out, so that two clients using the same id never
// meet; and nothing of the server's that no request of its own is waiting
// for (a notification that is neither its progress nor on its
// subscriptions/listen stream, a request of the server, which the protocol
// has not) reaches any client.

// codeHeaderMismatch is the stateless protocol's error for a request whose
// headers say otherwise than its body.
const codeHeaderMismatch = -32020

// statelessRequest reports whether it, a POST's one message without a
// session, is a request of the stateless protocol: server/discover, or a
// request naming its version in _meta (for a message over MaxBodyBytes, of
// which only the head is there, the Mcp-Protocol-Version header says);
// and, for one, what its headers say otherwise than its body, or "": its
// version, its method, and the name it calls.
func statelessRequest(it *inbound, header http.Header) (stateless bool, mismatch string) {
	if it.size != len(it.msg) { // only the head: the gate answers it
		v := header.Get(versionHeader)
		return v >= "2026-07-28" && versionSyntax.MatchString(v), ""
	}
	var m message
	if !scanMessage(it.msg, &m) || !m.isRequest() {
		return false, ""
	}
	meta, _ := member(m.Params, "_meta")
	version, named := versionIn(meta)
	if *m.Method != "server/discover" && !named {
		return false, ""
	}
	switch {
	case named && header.Get(versionHeader) != version:
		return true, versionHeader + " header does not match the request's protocol version (params._meta)"
	case header.Get(methodHeader) != *m.Method:
		return true, methodHeader + " header does not match the request's method"
	}
	if key := namedBy[*m.Method]; key != "" {
		if name, ok := stringMember(m.Params, key); ok {
			if got, ok := headerText(header.Get(nameHeader)); !ok || got != name {
				return true, nameHeader + " header does not match the request's " + strconv.Quote(key)
			}
		}
	}
	return true, ""
}

// headerText reads a header's value as the stateless protocol writes it
// (headerValue); false for a malformed base64 form.
func headerText(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// statelessSession is the session that serves stateless requests made
// with the Authorization of req, started when there is none.
func (h *HTTPHandler) statelessSession(req *http.Request) (*httpSession, error) {
	key := strings.Join(req.Header.Values("Authorization"), "\n")
	h.mu.Lock()
	s := h.stateless[key]
	h.mu.Unlock()
	if s != nil && !s.isClosed() {
		return s, nil
	}
	s, err := h.newSession()
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if other := h.stateless[key]; other != nil && !other.isClosed() {
		// Another request started one meanwhile: this one ends unused.
		go s.close("another session serves these requests")
		return other, nil
	}
	s.stateless, s.authKey = true, key
	h.stateless[key] = s
	return s, nil
}

func (s *httpSession) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// rewrite gives a stateless request (m, read from it.msg) an id of the
// session's own, and a progress token of its own when it has one; it
// returns them and the client's. s.mu is held.
func (s *httpSession) rewrite(it *inbound, m *message) (id, clientID, token, clientToken json.RawMessage) {
	s.seq++
	id = json.RawMessage(strconv.Quote("toolerr-" + s.short() + "-" + strconv.Itoa(s.seq)))
	clientID = append(json.RawMessage(nil), m.ID...)
	at := []splice{{offsetIn(it.msg, m.ID), len(m.ID), id}}
	if raw := progressTokenOf(m.Params); raw != nil {
		token = json.RawMessage(strconv.Quote("toolerr-progress-" + strconv.Itoa(s.seq)))
		clientToken = append(json.RawMessage(nil), raw...)
		at = append(at, splice{offsetIn(it.msg, raw), len(raw), token})
	}
	whole := it.size == len(it.msg)
	it.msg = spliced(it.msg, at)
	if whole {
		it.size = len(it.msg)
	} else {
		it.size += len(id) - len(clientID)
	}
	return id, clientID, token, clientToken
}

// restored is msg, the server's answer to a stateless request, with the
// client's id back in it.
func restored(msg []byte, m *message, clientID json.RawMessage) []byte {
	return spliced(msg, []splice{{offsetIn(msg, m.ID), len(m.ID), clientID}})
}

// progressTokenOf is params._meta.progressToken as written, or nil.
func progressTokenOf(params json.RawMessage) json.RawMessage {
	meta, _ := member(params, "_meta")
	token, _ := member(meta, "progressToken")
	return token
}

// splice replaces n bytes at off with v.
type splice struct {
	off, n int
	v      []byte
}

// spliced is a copy of b with the splices (in any order, apart) made.
func spliced(b []byte, at []splice) []byte {
	if len(at) == 2 && at[1].off < at[0].off {
		at[0], at[1] = at[1], at[0]
	}
	out := make([]byte, 0, len(b)+64)
	last := 0
	for _, s := range at {
		out = append(append(out, b[last:s.off]...), s.v...)
		last = s.off + s.n
	}
	return append(out, b[last:]...)
}

// offsetIn is where sub, a slice of b's bytes, starts in b.
func offsetIn(b, sub []byte) int { return cap(b) - cap(sub) }

// ownOf is the exchange of the stateless request a message of the server
// belongs to, and the message as its client knows it: a progress
// notification (by its token), or a notification on a
// subscriptions/listen stream (by its _meta's subscription id, the id of
// the listen request), with the client's token or id back in it. nil for
// anything else. s.mu is held.
func (s *httpSession) ownOf(msg []byte, m *message) (*exchange, []byte) {
	if *m.Method == "notifications/progress" {
		raw, _ := member(m.Params, "progressToken")
		key := idKey(raw)
		for _, a := range s.awaiting {
			if a.token == key && a.clientToken != nil && a.ex.sseOK {
				return a.ex, spliced(msg, []splice{{offsetIn(msg, raw), len(raw), a.clientToken}})
			}
		}
		return nil, nil
	}
	meta, _ := member(m.Params, "_meta")
	sub, ok := member(meta, subscriptionKey)
	if !ok || m.isRequest() {
		return nil, nil
	}
	if a := s.awaiting[idKey(sub)]; a != nil && a.clientID != nil && a.ex.sseOK {
		return a.ex, spliced(msg, []splice{{offsetIn(msg, sub), len(sub), a.clientID}})
	}
	return nil, nil
}

// subscriptionKey is the member of a notification's _meta that names the
// subscriptions/listen request whose stream it belongs to.
const subscriptionKey = "io.modelcontextprotocol/subscriptionId"

// refuse answers a request of the server in a stateless session, which no
// client can answer (the protocol asks for input in a result instead).
func (s *httpSession) refuse(id json.RawMessage) {
	answer := errorResponse(id, -32601, "Method not found: the client speaks the stateless protocol, which has no requests of the server.")
	go s.deliver([]*inbound{{msg: answer, size: len(answer), ex: &exchange{wake: make(chan struct{}, 1)}}})
}
