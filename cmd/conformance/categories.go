package main

import (
	"cockpit/live"
	"cockpit/live/money"
)

// categories is every JSON path of the vector files the runner knows. Order is report order.
var categories = []category{
	// live.json
	{file: "live.json", path: "check_mandate", each: checkMandateCase},
	{file: "live.json", path: "mcp_gate", each: mcpGateCase},
	{file: "live.json", path: "sdk_gate", each: sdkGateCase},
	{file: "live.json", path: "sdk_live_action", each: sdkLiveActionCase},
	{file: "live.json", path: "api_runner_lifecycle", skipped: "the reference's HTTP-started runner task; cockpit has no runner HTTP API"},
	{file: "live.json", path: "audit_chain", whole: auditChainCategory},
	{file: "live.json", path: "file_permissions", whole: filePermissionsCategory},
	{file: "live.json", path: "extractor_robinhood", each: extractorCase},
	{file: "live.json", path: "quote_parsing.mcp_broker_quote", each: quoteCase(live.ParseMCPQuote)},
	{file: "live.json", path: "quote_parsing.sdk_connector_quote", each: quoteCase(func(p any, _ string) (money.Amount, bool) { return live.ParseConnectorQuote(p) })},
	{file: "live.json", path: "halt", each: haltCase},
	{file: "live.json", path: "halt_actions", each: haltActionsCase},
	{file: "live.json", path: "daily_count.reads_then_increment", each: dailyCountCase},
	{file: "live.json", path: "classification", each: classificationCase},
	{file: "live.json", path: "registry_wrapping", each: registryWrappingCase},
	{file: "live.json", path: "mandate_load", each: mandateLoadCase},
	{file: "live.json", path: "mandate_commit", each: mandateCommitCase},
	{file: "live.json", path: "expiry", each: expiryCase},
	{file: "live.json", path: "reconcile", skipped: "the reference runner's runtime_state.json diff; cockpit reconciles its order journal by client order id instead"},
	{file: "live.json", path: "runner_ticks", skipped: "the reference's scheduled runner tick; cockpit runs its agent in-process under the engine"},
	{file: "live.json", path: "liveness", skipped: "the reference runner's heartbeat files"},
	{file: "live.json", path: "scheduler", skipped: "the reference runner's job scheduler and jobs.json"},
	{file: "live.json", path: "triggers", skipped: "the reference runner's market-hours triggers"},
	{file: "live.json", path: "audit_redaction", each: auditRedactionCase},
	{file: "live.json", path: "flatten", each: flattenCase},

	// security.json
	{file: "security.json", path: "scanner.rules", data: true},
	{file: "security.json", path: "scanner.scan_cases", each: scanCase},
	{file: "security.json", path: "scanner.with_security_warnings_cases", each: warningsCase},
	{file: "security.json", path: "redaction.text_cases", each: redactTextCase},
	{file: "security.json", path: "redaction.payload_cases", each: redactPayloadCase},
	{file: "security.json", path: "redaction.tool_result_cases", each: redactToolResultCase},
	{file: "security.json", path: "redaction.key_cases", each: redactKeyCase},
	{file: "security.json", path: "redaction.internal_paths", whole: internalPathsCategory},
	{file: "security.json", path: "shell_safety.cases", each: shellSafetyCase},
	{file: "security.json", path: "bash_tool_envelopes", each: bashEnvelopeCase},
	{file: "security.json", path: "read_url_envelopes", each: readURLCase},
	{file: "security.json", path: "urls.validate_url_target", each: validateURLCase},
	{file: "security.json", path: "urls.web_reader_url_allowed", each: webReaderURLCase},
	{file: "security.json", path: "urls.ip_classification", each: ipClassCase},
	{file: "security.json", path: "urls.mcp_host_guard", whole: mcpHostCategory},
	{file: "security.json", path: "paths", whole: pathsCategory},
}
