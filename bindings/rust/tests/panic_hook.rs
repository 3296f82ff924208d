//! heal and the process's panic hook (a test binary of its own: the hook is
//! global). A healed handler's panic becomes INTERNAL_ERROR and reaches no
//! hook; every other panic, on any thread, reaches the hook that was there
//! before heal; `HealOptions::print_panics` lets the healed ones through too.

#![cfg(feature = "server")]

use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use toolerr::{HealOptions, HealedRouter};

/// What the hook installed before heal saw: each panic's message.
static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn seen() -> Vec<String> {
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

#[derive(Clone)]
struct Server {
    tool_router: HealedRouter<Self>,
}

#[tool_router]
impl Server {
    #[tool(name = "panics")]
    async fn panics(&self) -> String {
        tokio::task::yield_now().await; // polled again, maybe on another thread
        panic!("healed panic")
    }

    #[tool(name = "panics_sync")]
    fn panics_sync(&self) -> String {
        panic!("healed sync panic")
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}

async fn serve(tool_router: HealedRouter<Server>) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let server = Server { tool_router }.serve(server_io).await?;
        server.waiting().await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    });
    ().serve(client_io).await.expect("initialize")
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str) -> String {
    let params = CallToolRequestParams::new(tool.to_string());
    let result: CallToolResult =
        tokio::time::timeout(Duration::from_secs(30), client.call_tool(params))
            .await
            .expect("an answer")
            .expect("a result");
    assert_eq!(result.is_error, Some(true));
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn healed_panics_are_silent_and_the_others_reach_the_previous_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        SEEN.lock().unwrap_or_else(|p| p.into_inner()).push(message);
    }));

    let client = serve(toolerr::heal(Server::tool_router())).await;
    // Many at once, on the runtime's four threads.
    let calls = (0..40).map(|i| {
        let peer = client.peer().clone();
        let tool = if i % 2 == 0 { "panics" } else { "panics_sync" };
        tokio::spawn(async move {
            let params = CallToolRequestParams::new(tool);
            peer.call_tool(params).await.expect("a result")
        })
    });
    for answer in futures::future::join_all(calls).await {
        let text = answer.unwrap().content[0].as_text().unwrap().text.clone();
        assert!(
            text.starts_with("<tool_error code=\"INTERNAL_ERROR\""),
            "{text}"
        );
        assert!(text.contains("] healed "), "{text}");
    }
    assert_eq!(seen(), Vec::<String>::new());

    // A panic outside a healed handler: another thread, a task, this one.
    std::thread::spawn(|| panic!("thread panic"))
        .join()
        .unwrap_err();
    tokio::spawn(async { panic!("task panic") })
        .await
        .unwrap_err();
    std::panic::catch_unwind(|| panic!("caught here")).unwrap_err();
    assert_eq!(seen(), ["thread panic", "task panic", "caught here"]);

    // Asked for, a healed panic reaches the hook as without heal.
    let loud = serve(toolerr::heal_with(
        Server::tool_router(),
        HealOptions {
            print_panics: true,
            ..HealOptions::default()
        },
    ))
    .await;
    assert!(call(&loud, "panics").await.contains("healed panic"));
    assert!(
        call(&loud, "panics_sync")
            .await
            .contains("healed sync panic")
    );
    // The quiet server stays quiet beside it.
    call(&client, "panics").await;
    assert_eq!(
        seen(),
        [
            "thread panic",
            "task panic",
            "caught here",
            "healed panic",
            "healed sync panic"
        ]
    );
    client.cancel().await.unwrap();
    loud.cancel().await.unwrap();
}
