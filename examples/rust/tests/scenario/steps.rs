// Generated from the scenario of examples/go/main_test.go (the Go server's test):
// both servers give these texts byte for byte, <contract_awareness> included
// (the validation errors of the two tools that changed since
// examples/billing.lock.json carry it).

const SCENARIO: &[Step] = &[
    Step {
        name: r#"get existing invoice"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"inv_001"}"#,
        want: &[r#"{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}"#],
        error: None,
    },
    Step {
        name: r#"get unknown invoice is NOT_FOUND"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"inv_999"}"#,
        want: &[r#"<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">inv_999</detail>
</details>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "NOT_FOUND", severity: "error", recovery: true }),
    },
    Step {
        name: r#"list all invoices"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{}"#,
        want: &[r#"{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"},{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}]}"#],
        error: None,
    },
    Step {
        name: r#"list with status and limit"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{"status":"open","limit":1}"#,
        want: &[r#"{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}]}"#],
        error: None,
    },
    Step {
        name: r#"list paid invoices"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{"status":"paid"}"#,
        want: &[r#"{"invoices":[{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}"#],
        error: None,
    },
    Step {
        name: r#"list with page_size warns first and succeeds"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{"page_size":2}"#,
        want: &[r#"<tool_error code="DEPRECATED" severity="warning">
<message>page_size is deprecated; use limit</message>
<recovery>Call billing.list_invoices with limit instead</recovery>
</tool_error>"#, r#"{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}"#],
        error: None,
    },
    Step {
        name: r#"list with limit below minimum"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{"limit":0}"#,
        want: &[r#"<validation_error action="billing.list_invoices">
<field name="limit">Must be greater than or equal to 1. You sent: 0. Must be >= 1.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.list_invoices" has changed since your last calibration.</system_note>
  <action>billing.list_invoices</action>
  <change_count>1</change_count>
  <max_severity>RISKY</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"list with fractional limit"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{"limit":1.5}"#,
        want: &[r#"<validation_error action="billing.list_invoices">
<field name="limit">Expected integer, received number. You sent: 1.5. Expected type: integer.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.list_invoices" has changed since your last calibration.</system_note>
  <action>billing.list_invoices</action>
  <change_count>1</change_count>
  <max_severity>RISKY</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"list with unknown status and page_size over maximum"#,
        tool: r#"billing.list_invoices"#,
        args: r#"{"page_size":101,"status":"draft"}"#,
        want: &[r#"<validation_error action="billing.list_invoices">
<field name="page_size">Must be less than or equal to 100. You sent: 101. Must be &lt;= 100.</field>
<field name="status">Is not one of the allowed values. You sent: 'draft'. Valid options: 'open', 'paid'.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.list_invoices" has changed since your last calibration.</system_note>
  <action>billing.list_invoices</action>
  <change_count>1</change_count>
  <max_severity>RISKY</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"get with id not matching the pattern"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"INV-1"}"#,
        want: &[r#"<validation_error action="billing.get_invoice">
<field name="id">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'. Value does not match the required pattern.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"get with an unknown property"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"inv_001","verbose":true}"#,
        want: &[r#"<validation_error action="billing.get_invoice">
<field name="(root)">Unrecognized field: 'verbose'. You sent: (missing). Remove or correct unrecognized fields: 'verbose'. Check for typos.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"get without the required id"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{}"#,
        want: &[r#"<validation_error action="billing.get_invoice">
<field name="id">Required property is missing. You sent: (missing). Expected type: string.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"get with a number id"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":42}"#,
        want: &[r#"<validation_error action="billing.get_invoice">
<field name="id">Expected string, received number. You sent: 42. Expected type: string.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"pay a zero amount"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_003","amount":0,"currency":"USD"}"#,
        want: &[r#"<validation_error action="billing.pay_invoice">
<field name="amount">Must be greater than 0. You sent: 0. Must be > 0.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"pay in an unsupported currency"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_003","amount":9.99,"currency":"GBP"}"#,
        want: &[r#"<validation_error action="billing.pay_invoice">
<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"pay without amount and currency"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_003"}"#,
        want: &[r#"<validation_error action="billing.pay_invoice">
<field name="amount">Required property is missing. You sent: (missing). Expected type: number.</field>
<field name="currency">Required property is missing. You sent: (missing). Expected type: string.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"pay an open invoice (validated pay call 1)"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_001","amount":120.5,"currency":"EUR"}"#,
        want: &[r#"{"id":"inv_001","status":"paid","paid":120.5,"currency":"EUR"}"#],
        error: None,
    },
    Step {
        name: r#"the paid invoice reads back paid"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"inv_001"}"#,
        want: &[r#"{"id":"inv_001","status":"paid","amount":120.5,"currency":"EUR"}"#],
        error: None,
    },
    Step {
        name: r#"pay a paid invoice is CONFLICT (validated pay call 2)"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_002","amount":75,"currency":"USD"}"#,
        want: &[r#"<tool_error code="CONFLICT" severity="error">
<message>Invoice inv_002 is already paid</message>
<recovery>Call billing.get_invoice to check the status before paying</recovery>
<available_actions>
  <action>billing.get_invoice</action>
</available_actions>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "CONFLICT", severity: "error", recovery: true }),
    },
    Step {
        name: r#"pay the wrong amount is VALIDATION_ERROR (validated pay call 3)"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_003","amount":10,"currency":"USD"}"#,
        want: &[r#"<tool_error code="VALIDATION_ERROR" severity="error">
<message>Amount or currency does not match invoice inv_003</message>
<details>
  <detail key="expectedAmount">9.99</detail>
  <detail key="expectedCurrency">USD</detail>
</details>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "VALIDATION_ERROR", severity: "error", recovery: false }),
    },
    Step {
        name: r#"the fourth validated pay call is RATE_LIMITED"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_003","amount":9.99,"currency":"USD"}"#,
        want: &[r#"<tool_error code="RATE_LIMITED" severity="error">
<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>
<recovery>Wait 60 seconds before retrying. Current key: "billing.pay_invoice".</recovery>
<retry_after>60 seconds</retry_after>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "RATE_LIMITED", severity: "error", recovery: true }),
    },
    Step {
        name: r#"validation still comes before the rate limit"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_003","amount":-1,"currency":"USD"}"#,
        want: &[r#"<validation_error action="billing.pay_invoice">
<field name="amount">Must be greater than 0. You sent: -1. Must be > 0.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"the rate-limited call paid nothing"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"inv_003"}"#,
        want: &[r#"{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}"#],
        error: None,
    },
    Step {
        name: r#"void is FORBIDDEN, critical"#,
        tool: r#"billing.void_invoice"#,
        args: r#"{"id":"inv_001"}"#,
        want: &[r#"<tool_error code="FORBIDDEN" severity="critical">
<message>Voiding invoices requires the billing-admin role</message>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "FORBIDDEN", severity: "critical", recovery: false }),
    },
    Step {
        name: r#"void validates before its handler"#,
        tool: r#"billing.void_invoice"#,
        args: r#"{"id":"nope"}"#,
        want: &[r#"<validation_error action="billing.void_invoice">
<field name="id">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'nope'. Value does not match the required pattern.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"export fails with INTERNAL_ERROR naming the tool"#,
        tool: r#"billing.export_invoices"#,
        args: r#"{}"#,
        want: &[r#"<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "INTERNAL_ERROR", severity: "error", recovery: true }),
    },
    Step {
        name: r#"export takes no arguments"#,
        tool: r#"billing.export_invoices"#,
        args: r#"{"format":"csv","since":"2026"}"#,
        want: &[r#"<validation_error action="billing.export_invoices">
<field name="(root)">Unrecognized fields: 'format', 'since'. You sent: (missing). Remove or correct unrecognized fields: 'format', 'since'. Check for typos.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ValidationError, code: "VALIDATION_ERROR", severity: "error", recovery: true }),
    },
];

const FRESH_PROCESS: &[Step] = &[
    Step {
        name: r#"pay an unknown invoice is NOT_FOUND"#,
        tool: r#"billing.pay_invoice"#,
        args: r#"{"id":"inv_404","amount":1,"currency":"EUR"}"#,
        want: &[r#"<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">inv_404</detail>
</details>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "NOT_FOUND", severity: "error", recovery: true }),
    },
    Step {
        name: r#"the invoices are reset at start"#,
        tool: r#"billing.get_invoice"#,
        args: r#"{"id":"inv_001"}"#,
        want: &[r#"{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}"#],
        error: None,
    },
    Step {
        name: r#"absent arguments are an empty object"#,
        tool: r#"billing.export_invoices"#,
        args: r#""#,
        want: &[r#"<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>"#],
        error: Some(Expect { kind: ClientErrorKind::ToolError, code: "INTERNAL_ERROR", severity: "error", recovery: true }),
    },
];
