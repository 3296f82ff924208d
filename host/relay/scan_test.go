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
