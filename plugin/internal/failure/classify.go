// Package failure reads failures a tool or server reported in words alone:
// what a proxy does with a server's answer to a tool call that failed (pass
// an envelope the server rendered exactly as the module would, or write a
// new one that keeps the server's words and claims only what those words
// say), and the class of such words, which tool_failure uses too
// (docs/CONTRACT.md, "A server's own failures").
package failure

// Class is what a server's failure text says happened: a canonical code
// and the recovery that fits it.
type Class struct {
	Code     string
	Recovery string
}

// Unexplained is the class of a failure whose text says nothing the
// module recognises: the tool reported a failure without saying why.
// Unlike INTERNAL_ERROR it never says the arguments were fine, since the
// module cannot know.
var Unexplained = Class{"TOOL_FAILURE", "The tool reported this failure without saying why. Read its message: " +
	"if it points at your arguments, fix them and call again; otherwise do not repeat the same call, and tell the user what failed."}

// The classes a failure text can name.
var (
	notFound = Class{"NOT_FOUND", "The server reports that something the call names does not exist. Check the names, " +
		"paths or IDs in your arguments (list what exists first, if a tool can), then call again with one that exists."}
	forbidden = Class{"FORBIDDEN", "The server refused access to what the call names. Do not repeat the same call: " +
		"choose something the server allows (its message may say what), or tell the user that access is needed."}
	unauthorized = Class{"UNAUTHORIZED", "The server reports missing or invalid credentials. Calling again will not help: " +
		"tell the user that the server needs to be authenticated."}
	rateLimited = Class{"RATE_LIMITED", "The server reports a rate limit. Wait before calling again, and make fewer calls."}
	timedOut    = Class{"TIMEOUT", "The server reports that an operation timed out. The call may or may not have taken effect: " +
		"check before calling again, and tell the user if it keeps timing out."}
	conflict = Class{"CONFLICT", "The server reports a conflict with the current state (something already exists or was changed). " +
		"Check the current state before calling again."}
	invalid = Class{"VALIDATION_ERROR", "The server rejected the arguments. Read its message, fix the arguments it names " +
		"and call the tool again."}
)

// phrase is a text that names a class. A phrase matches at the start of a
// word (no ASCII letter or digit before it), ignoring ASCII case; a whole
// phrase must also end a word, a stem need not ("rate limit" is a stem:
// "rate limited", "rate limits").
type phrase struct {
	text  string // lower case
	stem  bool
	class *Class
}

// phrases are tried at every word start, in this order; the earliest
// match in the text wins.
var phrases = []phrase{
	{"enoent", false, &notFound},
	{"no such", false, &notFound},
	{"not found", false, &notFound},
	{"does not exist", false, &notFound},
	{"doesn't exist", false, &notFound},
	{"eacces", false, &forbidden},
	{"eperm", false, &forbidden},
	{"access denied", false, &forbidden},
	{"access is denied", false, &forbidden},
	{"permission denied", false, &forbidden},
	{"forbidden", false, &forbidden},
	{"not allowed", false, &forbidden},
	{"not permitted", false, &forbidden},
	{"unauthorized", false, &unauthorized},
	{"unauthorised", false, &unauthorized},
	{"unauthenticated", false, &unauthorized},
	{"not authenticated", false, &unauthorized},
	{"authentication failed", false, &unauthorized},
	{"authentication required", false, &unauthorized},
	{"invalid credentials", false, &unauthorized},
	{"invalid api key", false, &unauthorized},
	{"rate limit", true, &rateLimited},
	{"rate-limit", true, &rateLimited},
	{"too many requests", false, &rateLimited},
	{"quota exceeded", false, &rateLimited},
	{"throttl", true, &rateLimited},
	{"timed out", false, &timedOut},
	{"timeout", true, &timedOut},
	{"etimedout", false, &timedOut},
	{"deadline exceeded", false, &timedOut},
	{"eexist", false, &conflict},
	{"already exists", false, &conflict},
	{"conflict", true, &conflict},
	{"einval", false, &invalid},
	{"invalid argument", true, &invalid},
	{"invalid input", false, &invalid},
	{"invalid param", true, &invalid},
	{"missing required", false, &invalid},
	{"validation", true, &invalid},
}

// statuses are HTTP status codes that name a class, read only when no
// phrase matches: a number is a weaker sign than words ("/tmp/404" is a
// path), and is read only as a number of its own (no letter, digit, or
// '.', '/', '-', '_' joined to a letter or digit, on either side).
var statuses = []struct {
	code  string
	class *Class
}{
	{"401", &unauthorized},
	{"403", &forbidden},
	{"404", &notFound},
	{"408", &timedOut},
	{"409", &conflict},
	{"429", &rateLimited},
	{"504", &timedOut},
}

// Classify returns the class of a server's failure text: the class of the
// earliest phrase in it, else of the earliest status code, else
// Unexplained. It runs in time linear in len(text).
func Classify(text string) Class {
	for i := 0; i < len(text); i++ {
		if i > 0 && isAlnum(text[i-1]) {
			continue
		}
		c := lower(text[i])
		if c < 'a' || c > 'z' {
			continue
		}
		for _, p := range phrases {
			if p.text[0] == c && matchesAt(text, i, p) {
				return *p.class
			}
		}
	}
	for i := 0; i+3 <= len(text); i++ {
		if !isDigit(text[i]) || !numberStarts(text, i) || !numberEnds(text, i+3) {
			continue
		}
		for _, s := range statuses {
			if text[i:i+3] == s.code {
				return *s.class
			}
		}
	}
	return Unexplained
}

func matchesAt(text string, i int, p phrase) bool {
	if len(text)-i < len(p.text) {
		return false
	}
	for k := 0; k < len(p.text); k++ {
		if lower(text[i+k]) != p.text[k] {
			return false
		}
	}
	end := i + len(p.text)
	return p.stem || end == len(text) || !isAlnum(text[end])
}

// joiners are what makes a number part of a longer token when a letter or
// digit is on their other side: "1.404", "/v1/404", "a-404".
func joiner(c byte) bool { return c == '.' || c == '/' || c == '-' || c == '_' }

func numberStarts(text string, i int) bool {
	if i == 0 {
		return true
	}
	prev := text[i-1]
	if isAlnum(prev) {
		return false
	}
	return !joiner(prev) || i < 2 || !isAlnum(text[i-2])
}

func numberEnds(text string, end int) bool {
	if end == len(text) {
		return true
	}
	next := text[end]
	if isAlnum(next) {
		return false
	}
	return !joiner(next) || end+1 >= len(text) || !isAlnum(text[end+1])
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
