//! The stdio gate in the Rust binding: `Host::gate` on bytes as read, and
//! the gated transport (`toolerr::stdio()`, here `Host::gated` over
//! in-memory pipes) in front of a healed rmcp server. Expected answers come
//! from `gate` itself (the module's rule, which the vectors check): these
//! tests check what the binding does with a verdict, not the module's texts.

#![cfg(feature = "server")]

mod common;
use common::{Id, load_vectors};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolerr::{GateVerdict, Host, host};

fn call_line(id: &str, args: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{args}}}}}"#).into_bytes()
}

fn answer_of(verdict: GateVerdict) -> Value {
    match verdict {
        GateVerdict::Answer { response } => {
            serde_json::from_str(&response).expect("an answer is JSON")
        }
        other => panic!("want an answer, got {other:?}"),
    }
}

#[test]
fn gate_reads_bytes_that_are_not_utf8() {
    let h = host().expect("host");
    assert_eq!(
        h.gate(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .unwrap(),
        GateVerdict::Pass
    );
    assert_eq!(
        h.gate(b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"a\xffb\"}}")
            .unwrap(),
        GateVerdict::Rewrite {
            line: "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"a\u{FFFD}b\"}}".into()
        }
    );
    let mut line = call_line("3", r#"{"s":"?"}"#);
    let at = line.iter().position(|&c| c == b'?').unwrap();
    line[at] = 0xc0;
    let answer = answer_of(h.gate(&line).unwrap());
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["result"]["isError"], true);
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("the byte 0xc0")
    );
    assert_eq!(
        toolerr::gate(b"").unwrap(),
        GateVerdict::Ignore {
            reason: "blank".into()
        }
    );
}

#[test]
fn gate_sends_a_line_over_the_limit_as_its_length_and_head() {
    let h = host().expect("host");
    let line = call_line(r#""big""#, &format!(r#"{{"s":"{}"}}"#, "a".repeat(5 << 20)));
    let mut head = format!("{}\n", line.len()).into_bytes();
    head.extend_from_slice(&line[..Host::GATE_HEAD_BYTES]);
    let via_head: GateVerdict = serde_json::from_str(&h.call_raw("gate", &head).unwrap()).unwrap();
    assert_eq!(h.gate(&line).unwrap(), via_head);
    let answer = answer_of(via_head);
    assert_eq!(answer["id"], "big");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("a message of {} bytes", line.len())),
        "{text}"
    );
}

#[test]
fn arguments_too_large_is_the_gates_answer_to_a_message_of_that_size() {
    let h = host().expect("host");
    let size = 4_194_300;
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{{"name":"billing.get_invoice","arguments":"{}"}}}}"#,
        "x".repeat(size - 2)
    );
    let want = answer_of(h.gate(line.as_bytes()).unwrap());
    let got =
        serde_json::to_value(h.arguments_too_large("billing.get_invoice", size).unwrap()).unwrap();
    assert_eq!(got, want["result"]);
}

/// rmcp drops a message serde cannot read into its client message type (or
/// answers it without an id): every line the gate hands on must read.
#[test]
fn every_line_the_gate_hands_on_is_a_message_rmcp_reads() {
    let h = host().expect("host");
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in load_vectors().into_iter().filter(|f| f.export == "gate") {
        for case in file.cases.iter().filter(|c| c.output.is_some()) {
            let line = case.request();
            if line.contains(&b'\n') {
                continue; // the head of a line over the limit
            }
            let handed = match h.gate(&line).unwrap() {
                GateVerdict::Pass => line,
                GateVerdict::Rewrite { line } => line.into_bytes(),
                _ => continue,
            };
            checked += 1;
            if let Err(e) = serde_json::from_slice::<ClientJsonRpcMessage>(&handed) {
                failures.push(format!(
                    "{}: {}: {e}",
                    case.description,
                    String::from_utf8_lossy(&handed)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "rmcp cannot read:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 30, "only {checked} lines handed on");
}

#[derive(Clone)]
struct Server {
    tool_router: toolerr::HealedRouter<Self>,
}

#[tool_router]
impl Server {
    #[tool(name = "t")]
    async fn t(&self, Parameters(Id { id }): Parameters<Id>) -> String {
        id
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}

#[tokio::test(flavor = "current_thread")]
async fn a_healed_server_on_the_gate_answers_every_request_with_its_id() {
    let h: &'static Host = host().expect("host");
    let (client_in, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, client_out) = tokio::io::duplex(1 << 20);
    let server = Server {
        tool_router: toolerr::heal(Server::tool_router()),
    };
    let serving = tokio::spawn(async move {
        let running = server
            .serve(h.gated(server_in, server_out))
            .await
            .expect("serve");
        let _ = running.waiting().await;
    });
    let mut to_server = client_in;
    let mut from_server = BufReader::new(client_out).lines();
    let mut send = async |line: &[u8]| {
        to_server.write_all(line).await.unwrap();
        to_server.write_all(b"\n").await.unwrap();
    };
    send(br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#).await;
    let init: Value =
        serde_json::from_str(&from_server.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], "init");
    send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    let nested = format!(r#"{{"id":{}{}}}"#, "[".repeat(200), "]".repeat(200));
    let hostile: Vec<Vec<u8>> = vec![
        call_line("10", r#"{"id":1e400}"#),
        call_line("11", &nested),
        call_line(r#""s""#, r#"{"id":"\ud800"}"#),
        call_line("12", r#""inv_001""#),
        br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":13,"method":"ping","params":{"_meta":"x"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"arguments":{}}}"#.to_vec(),
    ];
    for line in &hostile {
        send(line).await;
        let got: Value =
            serde_json::from_str(&from_server.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(
            got,
            answer_of(h.gate(line).unwrap()),
            "{}",
            String::from_utf8_lossy(&line[..60])
        );
    }
    send(b"not json").await;
    send(&call_line("99", r#"{"id":"inv_001"}"#)).await;
    let last: Value =
        serde_json::from_str(&from_server.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(last["id"], 99);
    assert_eq!(last["result"]["content"][0]["text"], "inv_001");
    drop(to_server);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), serving).await;
}
