//! `contract_lock`, `contract_diff` (ABI 1.2) and the `contract` option of
//! `validate` and `format_validation`, on the demo's lockfile
//! (examples/billing.lock.json) and tools (examples/schemas.json).

use serde_json::{Value, json};
use toolerr::{Contract, ErrorCode, FormatValidationRequest, Host, Lockfile, Validation};

const LOCKFILE: &str = include_str!("../../../examples/billing.lock.json");
const SCHEMAS: &str = include_str!("../../../examples/schemas.json");

/// The demo's tools as tools/list advertises them: name, description,
/// inputSchema.
fn tools() -> Value {
    let defs: serde_json::Map<String, Value> = serde_json::from_str(SCHEMAS).unwrap();
    defs.into_iter()
        .map(|(name, def)| {
            json!({"name": name, "description": def["description"], "inputSchema": def["inputSchema"]})
        })
        .collect()
}

fn lockfile() -> Value {
    serde_json::from_str(LOCKFILE).unwrap()
}

#[test]
fn relocking_the_demo_lockfile_gives_the_same_bytes() {
    let host = Host::new().unwrap();
    // Typed: pretty printed, as `toolerr lock` writes it.
    let lock = host.contract_lock(&lockfile()).unwrap();
    assert_eq!(
        serde_json::to_string_pretty(&lock).unwrap() + "\n",
        LOCKFILE
    );
    assert_eq!(lock.lockfile_version, 1);
    // Raw: the module's canonical (compact) text is the file's, compacted.
    let raw = host
        .call("contract_lock", &json!({"tools": lockfile()}))
        .unwrap();
    assert_eq!(raw, serde_json::to_string(&lockfile()).unwrap());
    // A typed lockfile relocks to itself, and so do the tools it was made of,
    // in any order, as an array or a tools/list result.
    assert_eq!(host.contract_lock(&lock).unwrap(), lock);
    let mut reversed = tools().as_array().unwrap().clone();
    reversed.reverse();
    let from_tools = host.contract_lock(&reversed).unwrap();
    assert_eq!(
        host.contract_lock(&json!({"tools": tools(), "nextCursor": "n"}))
            .unwrap(),
        from_tools
    );
    assert!(from_tools.digest.starts_with("sha256:"));
    assert_eq!(
        from_tools
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        [
            "billing.export_invoices",
            "billing.get_invoice",
            "billing.list_invoices",
            "billing.pay_invoice",
            "billing.void_invoice"
        ]
    );
    // The free function runs on the process-wide host.
    assert_eq!(toolerr::contract_lock(&lockfile()).unwrap(), lock);
}

#[test]
fn a_lockfile_serializes_in_the_modules_key_order_whatever_the_map_order() {
    // The module sorts keys by UTF-16 code units: U+10000 (a surrogate pair,
    // 0xD800 first) before U+FFFF, which UTF-8 byte order puts the other way.
    let schema = json!({"type": "object", "properties": {"\u{ffff}": {"type": "string"},
        "\u{10000}": {"type": "string"}, "b": {}, "a": {}}});
    let tools = json!([{"name": "t", "inputSchema": schema}]);
    let host = Host::new().unwrap();
    let raw = host
        .call("contract_lock", &json!({"tools": tools}))
        .unwrap();
    let lock = host.contract_lock(&tools).unwrap();
    assert_eq!(serde_json::to_string(&lock).unwrap(), raw);
    let props = "{\"a\":{},\"b\":{},\"\u{10000}\":{\"type\":\"string\"},\"\u{ffff}\":{\"type\":\"string\"}}";
    assert!(raw.contains(props), "{raw}");

    // A contract whose map holds its keys in another order (as serde_json
    // without preserve_order would: sorted by UTF-8 bytes) is written in the
    // module's order all the same.
    let mut reordered = lock.clone();
    let mut members: Vec<(String, Value)> = match reordered.tools[0].contract.take() {
        Value::Object(m) => m.into_iter().collect(),
        _ => unreachable!(),
    };
    members.reverse();
    for (_, v) in &mut members {
        if let Some(Value::Object(p)) = v.get_mut("properties") {
            let mut inner: Vec<(String, Value)> = std::mem::take(p).into_iter().collect();
            inner.sort_by(|a, b| a.0.cmp(&b.0)); // UTF-8 byte order
            p.extend(inner);
        }
    }
    reordered.tools[0].contract = Value::Object(members.into_iter().collect());
    assert_ne!(
        reordered.tools[0].contract.to_string(),
        lock.tools[0].contract.to_string()
    );
    assert_eq!(serde_json::to_string(&reordered).unwrap(), raw);
    assert_eq!(
        serde_json::to_string_pretty(&reordered).unwrap(),
        serde_json::to_string_pretty(&lock).unwrap()
    );
}

#[test]
fn the_billing_diff_is_a_breaking_currency_and_a_risky_limit() {
    let diff = toolerr::contract_diff(&lockfile(), &tools()).unwrap();
    let fields: Vec<(&str, &str)> = diff
        .deltas
        .iter()
        .map(|d| (d.severity.as_str(), d.field.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("BREAKING", "actions.billing.pay_invoice.input.currency"),
            ("RISKY", "actions.billing.list_invoices.input.limit.maximum"),
        ]
    );
    assert_eq!(diff.max_severity.as_deref(), Some("BREAKING"));
    assert!(!diff.backwards_compatible);
    let currency = &diff.deltas[0];
    assert_eq!(currency.category.as_deref(), Some("surface.input"));
    assert_eq!(
        currency.description,
        "Required property \"currency\" was added to input"
    );
    assert_eq!(currency.before, None);
    assert_eq!(
        currency.after.as_deref(),
        Some(r#"{"enum":["EUR","USD"],"type":"string"}"#)
    );
    let limit = &diff.deltas[1];
    assert_eq!(
        (limit.before.as_deref(), limit.after.as_deref()),
        (Some("500"), Some("100"))
    );

    // Either side may be a lockfile, an array or a tools/list result.
    let host = Host::new().unwrap();
    let locked_now = host.contract_lock(&tools()).unwrap();
    assert_eq!(host.contract_diff(&lockfile(), &locked_now).unwrap(), diff);
    assert_eq!(
        host.contract_diff(&lockfile(), &json!({"tools": tools()}))
            .unwrap(),
        diff
    );
    // No change: no deltas, no severity, compatible.
    let same = host.contract_diff(&tools(), &tools()).unwrap();
    assert!(same.deltas.is_empty());
    assert_eq!(same.max_severity, None);
    assert!(same.backwards_compatible);
}

#[test]
fn bad_input_is_a_typed_error() {
    let host = Host::new().unwrap();
    let err = host.contract_lock(&json!(42)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.starts_with("contract_lock: "), "{err}");

    let dup = json!([{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]);
    let err = host.contract_lock(&dup).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.starts_with("contract_lock: "), "{err}");

    let err = host.contract_diff(&json!("x"), &tools()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.starts_with("contract_diff: "), "{err}");

    // A tampered lockfile (a contract that no longer matches its digest).
    let mut tampered: Lockfile = serde_json::from_str(LOCKFILE).unwrap();
    tampered.tools[0].contract["description"] = json!("Something else.");
    let err = host.contract_diff(&tampered, &tools()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.starts_with("contract_diff: "), "{err}");

    // The instance keeps serving.
    assert!(host.contract_diff(&lockfile(), &tools()).is_ok());

    // Deltas and a lockfile at once are refused.
    let mut both = Contract::with_lockfile("billing.pay_invoice", lockfile(), tools());
    both.deltas = host.contract_diff(&lockfile(), &tools()).unwrap().deltas;
    let request = toolerr::ValidateRequest {
        action: "billing.pay_invoice".into(),
        schema: json!({"type": "object"}),
        args: json!(1),
        contract: Some(both),
    };
    let err = host.validate(&request).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

/// The block validate appends for billing.pay_invoice, blank lines
/// included: tests/contract/billing.json, which the Node and Python tests
/// read too.
fn pay_awareness() -> String {
    let shared: Value =
        serde_json::from_str(include_str!("../../../tests/contract/billing.json")).unwrap();
    shared["payAwareness"]
        .as_str()
        .expect("payAwareness")
        .to_string()
}

#[test]
fn validate_and_format_validation_carry_the_contract() {
    let host = Host::new().unwrap();
    let defs: Value = serde_json::from_str(SCHEMAS).unwrap();
    let schema = defs["billing.pay_invoice"]["inputSchema"].clone();
    let args = json!({"id": "inv_001", "amount": 120.5});
    let pay_awareness = pay_awareness();
    let want = format!(
        "<validation_error action=\"billing.pay_invoice\">\n\
         <field name=\"currency\">Required property is missing. You sent: (missing). Expected type: string.</field>\n\
         <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>{pay_awareness}\n\
         </validation_error>"
    );

    // {tool, deltas}: all the deltas; the module keeps the tool's.
    let deltas = host.contract_diff(&lockfile(), &tools()).unwrap().deltas;
    let with_deltas = Contract::with_deltas("billing.pay_invoice", deltas.clone());
    let by_deltas =
        toolerr::validate_with_contract("billing.pay_invoice", &schema, &args, &with_deltas)
            .unwrap();
    match &by_deltas {
        Validation::Invalid(result) => assert_eq!(result.text(), want),
        Validation::Valid => panic!("currency is required"),
    }

    // {tool, lockfile, tools}: the module diffs them, same bytes.
    let with_lockfile = Contract::with_lockfile("billing.pay_invoice", lockfile(), tools());
    assert_eq!(
        serde_json::to_value(&with_lockfile).unwrap(),
        json!({"tool": "billing.pay_invoice", "lockfile": lockfile(), "tools": tools()})
    );
    let request = toolerr::ValidateRequest {
        action: "billing.pay_invoice".into(),
        schema: schema.clone(),
        args: args.clone(),
        contract: Some(with_lockfile.clone()),
    };
    assert_eq!(host.validate(&request).unwrap(), by_deltas);

    // A tool with no changes: no block.
    let get_schema = defs["billing.get_invoice"]["inputSchema"].clone();
    let request = toolerr::ValidateRequest {
        action: "billing.get_invoice".into(),
        schema: get_schema,
        args: json!({}),
        contract: Some(Contract::with_deltas("billing.get_invoice", deltas.clone())),
    };
    match host.validate(&request).unwrap() {
        Validation::Invalid(result) => assert!(!result.text().contains("<contract_awareness>")),
        Validation::Valid => panic!("id is required"),
    }

    // format_validation takes the same option.
    let issues = json!([{"code": "invalid_type", "expected": "string", "received": "undefined",
                         "path": ["currency"], "message": "Required"}]);
    for contract in [with_deltas, with_lockfile] {
        let result = host
            .format_validation(&FormatValidationRequest {
                action: "billing.pay_invoice".into(),
                issues: issues.clone(),
                args: Some(args.clone()),
                contract: Some(contract),
                ..FormatValidationRequest::default()
            })
            .unwrap();
        assert!(result.is_error);
        assert!(
            result
                .text()
                .ends_with(&format!("{pay_awareness}\n</validation_error>")),
            "{}",
            result.text()
        );
    }
}
