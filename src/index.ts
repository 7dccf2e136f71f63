/** The embedding API: `import { Runtime } from "warden"`. */
export { Runtime, RuntimeConfigError } from "./runtime/runtime.js";
export type { OpenSessionOptions, RuntimeOptions } from "./runtime/runtime.js";
export { Session } from "./runtime/session.js";
export type { RunOptions } from "./runtime/session.js";
export type { ConfigNote, ConfirmCallback, ConfirmationRequest, RuleEntry, RuleSet, SessionOptions, SourcedRule } from "./runtime/session-options.js";
export type {
	ApprovalAnswer,
	ApprovalRequest,
	ApprovalResponse,
	ApprovalResponseKind,
	ApprovedRule,
} from "./kernel/approval/approval-types.js";
export { checkPolicy } from "./runtime/policy-check.js";
export type { ExplainedRule, ExplainedSubcommand, InvalidToolCall, PolicyCheck, PolicyCheckRequest, PolicyCheckResult, ShadowedRule } from "./runtime/policy-check.js";
export { resolveConfig } from "./config/resolve-config.js";
export { ConfigError } from "./config/config-error.js";
export type { ConfigFlags, ConfigRequest, IgnoredConfigItem, ResolvedConfig, Sourced } from "./config/config-types.js";
export type { TurnResult } from "./runtime/turn-loop.js";
export type { AnyWardenEvent, EventKind, EventPayloads, TurnStatus, WardenEvent } from "./kernel/evidence/event-types.js";
export { EVENT_KINDS, EVENT_SCHEMA_VERSION } from "./kernel/evidence/event-types.js";
export type { AuditRecord, AuditVerifyResult } from "./kernel/evidence/audit-types.js";
export { checkTraceInvariant } from "./kernel/evidence/trace-invariant.js";
export type { TraceReport } from "./kernel/evidence/trace-invariant.js";
export type { Decision, DecisionResult, PermissionMode, PermissionRule, ProtectedTarget } from "./kernel/admission/types.js";
export type { ProtectedPathRule, ProtectedPathSpec } from "./kernel/protected/protected-paths.js";
export { DEFAULT_PROTECTED_PATHS } from "./kernel/protected/protected-paths.js";
export { ProtectedPathDeniedError } from "./kernel/protected/protected-guard.js";
export { GIT_EXEC_KEYS } from "./kernel/admission/git-exec-config.js";
export type { Message, ModelProvider, ModelRequest, ModelResponse, RawToolCall, ToolSchema } from "./models/provider.js";
export { ModelError } from "./models/provider.js";
export type { Store, SessionRow } from "./store/store.js";
export type { ToolLimits } from "./tools/tool.js";
export { BUDGET_COUNTERS } from "./kernel/budget/budget-types.js";
export type { BudgetCounter, BudgetLimits, BudgetUsage, CounterUsage } from "./kernel/budget/budget-types.js";
export { BudgetExhaustedError } from "./kernel/budget/budget-errors.js";
export { approveMcpTools, inspectMcpServers, McpApprovalError, revokeMcpTools } from "./runtime/mcp/mcp-approvals.js";
export type { McpApproveRequest, McpInspectOptions } from "./runtime/mcp/mcp-approvals.js";
export type { McpServerConfig } from "./runtime/mcp/mcp-server-config.js";
export type { ElicitCallback, McpServerSummary } from "./runtime/mcp/mcp-session-tools.js";
export { type AskLine, elicitByQuestions, elicitFields } from "./runtime/mcp/elicit-questions.js";
export type { McpToolReview, McpToolStatus } from "./runtime/mcp/mcp-review.js";
export type { McpElicitation, McpElicitationAnswer, McpTransportSpec } from "./providers/mcp/mcp-types.js";
export { decodeVisibleText, hasHiddenCharacters, visibleText } from "./kernel/display/visible-text.js";
export type { VisibleTextOptions } from "./kernel/display/visible-text.js";
