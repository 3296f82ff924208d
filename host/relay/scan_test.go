package relay

import "testing"

func TestScanMessage_Shapes(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		ok        bool
		method    string
		id        string
	}{
		{"request", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1,{"b":"}"}]}}`, true, "tools/call", "7"},
		{"spaces", ` { "id" : "x" , "method" : "ping" } `, true, "ping", `"x"`},
		{"escaped method", `{"id":1,"method":"tools\/call"}`, true, "tools/call", "1"},
		{"a string holding brackets", `{"id":1,"result":{"t":"]}\"{"}}`, true, "", "1"},
		{"empty object", `{}`, true, "", ""},
		{"not JSON", `this is not JSON-RPC`, false, "", ""},
		{"an array", `[{"id":1}]`, false, "", ""},
		{"unclosed", `{"id":1,"result":{"a":1}`, false, "", ""},
		{"unclosed string", `{"id":"1}`, false, "", ""},
		{"a method that is not a string", `{"id":1,"method":5}`, false, "", ""},
		{"trailing text", `{"id":1} x`, false, "", ""},
		{"no colon", `{"id" 1}`, false, "", ""},
		// A name is read as every JSON reader reads it: escapes decoded.
		{"escaped names", `{"\u0069d":1,"m\u0065thod":"ping"}`, true, "ping", "1"},
		{"an escaped name given last wins", `{"id":1,"method":"a","m\u0065thod":"b"}`, true, "b", "1"},
		{"a name with a bad escape", `{"\x":1}`, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m message
			ok := scanMessage([]byte(tc.msg), &m)
			if ok != tc.ok {
				t.Fatalf("scanMessage(%s) = %v", tc.msg, ok)
			}
			if !ok {
				return
			}
			method := ""
			if m.Method != nil {
				method = *m.Method
			}
			if method != tc.method || string(m.ID) != tc.id {
				t.Errorf("method %q id %q, want %q %q", method, m.ID, tc.method, tc.id)
			}
		})
	}
}

// TestCutMessage: what a message cut short shows of itself, read from its
// first bytes and, when the transport kept them, its last.
func TestCutMessage(t *testing.T) {
	for _, tc := range []struct {
		name, head, tail string
		id               string // "" for none
		kind             int
	}{
		{"id first (Go, Python)", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxx`, "", "7", cutAnswer},
		{"id last (TypeScript)", `{"result":{"content":[{"type":"text","text":"xxx`, `xxx"}]},"jsonrpc":"2.0","id":7}` + "\n", "7", cutAnswer},
		{"a string id last", `{"result":{"x":"`, `xx"},"jsonrpc":"2.0","id":"a\"b\\"}`, `"a\"b\\"`, cutAnswer},
		{"spaces", `{ "id" : "q" , "error" : { "message" : "xx`, "xx\" } , \"id\" : 9 }\r\n", "9", cutAnswer},
		{"the last id wins", `{"id":1,"result":"xxx`, `xxx","id":2}`, "2", cutAnswer},
		{"an escaped name", `{"result":"xxx`, `xxx","\u0069d":3}`, "3", cutAnswer},
		{"an error", `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"xxx`, "", "4", cutAnswer},
		{"no id anywhere", `{"result":{"text":"xxx`, `xxx"}}`, "", cutAnswer},
		{"an id inside the result only", `{"result":{"text":"xxx`, `xxx","id":5}}`, "", cutAnswer},
		{"the tail's last member is not the id", `{"result":"xxx`, `xxx","id":6,"jsonrpc":"2.0"}`, "", cutAnswer},
		{"an id that is not a number or string", `{"result":"xxx`, `xxx","id":null}`, "", cutAnswer},
		{"a broken number", `{"result":"xxx`, `xxx","id":1-2}`, "", cutAnswer},
		{"a tail without its end", `{"result":"xxx`, `xxx","id":5`, "", cutAnswer},
		{"a request", `{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"x":"xxx`, "", "8", cutRequest},
		{"a request whose id is not JSON", `{"jsonrpc":"2.0","id":1abc,"method":"x","params":{"x":"xxx`, "", "", cutOther},
		{"an answer whose id is an object", `{"id":{"a":1},"result":"xxx`, "", "", cutAnswer},
		{"a request, its id last (TypeScript)", `{"method":"sampling/createMessage","params":{"x":"xxx`, `xxx"}},"jsonrpc":"2.0","id":"s-3"}`, `"s-3"`, cutRequest},
		{"a notification", `{"method":"notifications/message","params":{"data":"xxx`, `xxx"}}`, "", cutOther},
		{"a request cut in a member after its params", `{"method":"x","params":{},"result":"xxx`, `xxx","id":1}`, "1", cutRequest},
		{"cut in another member", `{"id":1,"other":"xxx`, `xxx","id":1}`, "", cutOther},
		{"cut in a name", `{"id":1,"resu`, "", "", cutOther},
		{"cut after the result", `{"result":{"text":"xxx"},"i`, `xxx"},"id":5}`, "5", cutAnswer},
		{"cut in a member after the result", `{"id":6,"result":{},"_meta":{"x":"xx`, "", "6", cutAnswer},
		{"whole", `{"id":1,"result":{}}`, "", "", cutOther},
		{"not an object", `["xxx`, "", "", cutOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, kind := cutMessage([]byte(tc.head), []byte(tc.tail))
			if string(id) != tc.id || kind != tc.kind {
				t.Errorf("cutMessage = %q %d, want %q %d", id, kind, tc.id, tc.kind)
			}
		})
	}
}
