//! heal-rust: every tool of tests/heal/corpus.json on rmcp's tool router over
//! stdio, each tool advertising its schema as its server published it and
//! answering "ok" to the arguments that reach it. Without `--plain` the router
//! is healed by `toolerr::heal` (a call to a tool it does not have gets
//! UNKNOWN_ACTION listing its tools); with it, rmcp alone answers (it checks
//! no argument against a tool's `inputSchema`, and answers an unknown tool
//! with a JSON-RPC error). The heal bench (`go run ./tests/heal`) drives it.
//!
//! ```text
//! heal-rust [--plain] [--corpus FILE]
//! ```

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use rmcp::transport::stdio;
use rmcp::{ServerHandler, ServiceExt, tool_handler};
use serde::Deserialize;
use toolerr::HealedRouter;

#[derive(Deserialize)]
struct Corpus {
    tools: Vec<CorpusTool>,
}

#[derive(Deserialize)]
struct CorpusTool {
    tool: String,
    #[serde(rename = "inputSchema")]
    input_schema: JsonObject,
}

#[derive(Clone)]
struct Bench {
    tool_router: HealedRouter<Bench>,
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {}

/// The corpus's tools, healed, or with `plain` as rmcp alone runs them.
fn router(corpus: Corpus, plain: bool) -> HealedRouter<Bench> {
    let mut router = ToolRouter::new();
    for tool in corpus.tools {
        let attr = Tool::new(tool.tool.clone(), tool.tool, Arc::new(tool.input_schema));
        router.add_route(ToolRoute::new_dyn(attr, |_ctx| {
            Box::pin(async { Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into()) })
        }));
    }
    if plain {
        HealedRouter::unhealed(router)
    } else {
        toolerr::heal(router)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut plain = false;
    let mut corpus_path = String::from("tests/heal/corpus.json");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--plain" => plain = true,
            "--corpus" => match args.next() {
                Some(path) => corpus_path = path,
                None => return fail("--corpus needs a file"),
            },
            other => return fail(&format!("unknown argument {other}")),
        }
    }
    let corpus: Corpus = match std::fs::read(&corpus_path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(c) => c,
        Err(e) => return fail(&format!("{corpus_path}: {e}")),
    };
    let bench = Bench {
        tool_router: router(corpus, plain),
    };
    match bench.serve(stdio()).await {
        Ok(service) => match service.waiting().await {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => fail(&e.to_string()),
        },
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("heal-rust: {message}");
    ExitCode::from(2)
}
