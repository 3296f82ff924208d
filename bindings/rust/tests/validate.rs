//! `validate`: arguments checked against a tool's JSON Schema by the module.
//! (Needs a plugin/toolerr.wasm whose `describe` lists `validate`.)

use serde_json::json;
use toolerr::{Host, Validation};

#[test]
fn validate_answers_valid_or_the_validation_error() {
    let host = Host::new().unwrap();
    assert!(
        host.has_export("validate"),
        "plugin/toolerr.wasm has no `validate` export yet (describe lists {:?})",
        host.description().exports
    );
    let schema = json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^inv_[0-9]{3}$"}}, "required": ["id"], "additionalProperties": false});
    assert_eq!(
        toolerr::validate("billing.get_invoice", &schema, &json!({"id": "inv_001"})).unwrap(),
        Validation::Valid
    );
    match toolerr::validate("billing.get_invoice", &schema, &json!({"id": "INV-1"})).unwrap() {
        Validation::Invalid(result) => {
            assert!(result.is_error);
            assert_eq!(
                result.text(),
                "<validation_error action=\"billing.get_invoice\">\n<field name=\"id\">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
            );
        }
        Validation::Valid => panic!("INV-1 passed the pattern"),
    }
    // A request the module refuses is a typed error naming the field.
    let err = host
        .call("validate", &json!({"action": "a", "args": {}}))
        .unwrap_err();
    assert_eq!(err.code, toolerr::ErrorCode::InvalidRequest);
    assert!(err.message.contains("schema"), "{err}");
}
