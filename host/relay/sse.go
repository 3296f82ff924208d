package relay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// oneLine returns msg with the line breaks between its JSON tokens made
// spaces: a message over stdio is one line, and the module's gate reads one
// line (a message over HTTP may be pretty-printed). It reports false for a
// line break inside a string, which JSON does not allow. msg is changed in
// place.
func oneLine(msg []byte) ([]byte, bool) {
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		return msg, true
	}
	in := false
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case c == '\n' || c == '\r':
			if in {
				return msg, false
			}
			msg[i] = ' '
		}
	}
	return msg, true
}

// appendEvent appends one server-sent event of type message holding msg,
// which holds no line break (oneLine).
func appendEvent(b, msg []byte) []byte {
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

// sseEvent is one event of a text/event-stream.
type sseEvent struct {
	id, name string
	data     []byte // cut at the reader's max
	size     int    // the data's full length
}

// sseReader reads server-sent events (the WHATWG event stream format, lines
// ended by LF or CRLF), keeping at most max bytes of an event's data.
type sseReader struct {
	r   *bufio.Reader
	max int
	// lastID is the last event ID the stream set (for Last-Event-ID).
	lastID string
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next event that has data; io.EOF (or the read error)
// when the stream ends.
func (s *sseReader) next() (*sseEvent, error) {
	ev := &sseEvent{}
	hasData := false
	var line []byte
	for {
		line = line[:0]
		over := 0 // bytes of the line past what is kept
		for {     // one line, whatever its length
			chunk, err := s.r.ReadSlice('\n')
			if room := s.max + 64 - len(line); room > 0 {
				line = append(line, chunk[:min(len(chunk), room)]...)
				over += len(chunk) - min(len(chunk), room)
			} else {
				over += len(chunk)
			}
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if len(line) > 0 && errors.Is(err, io.EOF) {
				break // a last line without its end; the stream ends after it
			}
			return nil, err
		}
		if over > 0 && bytes.HasPrefix(line, []byte("data")) {
			ev.size += over
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 { // the end of an event
			if hasData {
				ev.data = bytes.TrimSuffix(ev.data, []byte("\n"))
				ev.size--
				return ev, nil
			}
			ev = &sseEvent{}
			continue
		}
		if line[0] == ':' { // a comment: a keep-alive
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			hasData = true
			ev.size += len(value) + 1
			if room := s.max - len(ev.data); room > 0 {
				ev.data = append(ev.data, value[:min(len(value), room)]...)
				if len(ev.data) < s.max {
					ev.data = append(ev.data, '\n')
				}
			}
		case "event":
			ev.name = string(value)
		case "id":
			if !bytes.ContainsRune(value, 0) {
				ev.id = string(value)
				s.lastID = ev.id
			}
		}
	}
}

// mediaType is a Content-Type's type and subtype, lower-cased.
func mediaType(v string) string {
	v, _, _ = strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(v))
}
