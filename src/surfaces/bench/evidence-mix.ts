/**
 * The evidence the append benchmark writes: the events and audit records one governed file write
 * leaves behind, varied by index so no two are alike. Sizes match what the runtime records.
 */
import type { AuditInput } from "../../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";

/** A unified diff of a few lines, like the one an fs.write effect record carries. */
function smallDiff(path: string, i: number): string {
	return [
		`--- a/${path}`,
		`+++ b/${path}`,
		"@@ -1,4 +1,5 @@",
		` export function handler${i}(input: string): string {`,
		"-\treturn input;",
		"+\tconst trimmed = input.trim();",
		`+\treturn trimmed.length > ${i % 97} ? trimmed : input;`,
		" }",
		"",
	].join("\n");
}

export function benchEvent(session: string, i: number): AnyWardenEvent {
	const call_id = `call_1_${i}_0`;
	const base = { session, turn: 1, time: new Date().toISOString() };
	switch (i % 4) {
		case 0:
			return { ...base, kind: "tool.proposed", payload: { call_id, tool: "write_file", arguments: { path: `src/gen/file${i}.ts`, content: smallDiff(`src/gen/file${i}.ts`, i) } } };
		case 1:
			return {
				...base,
				kind: "permission.decided",
				payload: { call_id, tool: "write_file", decision: "allow", layer: "host-rule", reason: `host allow rule write_file(src/**) matched "src/gen/file${i}.ts"`, rule: "write_file(src/**)" },
			};
		case 2:
			return { ...base, kind: "tool.started", payload: { call_id, tool: "write_file" } };
		default:
			return { ...base, kind: "tool.completed", payload: { call_id, tool: "write_file", duration_ms: 2 + (i % 7), output_bytes: 40 + (i % 50), truncated: false } };
	}
}

export function benchAuditInput(session: string, i: number): AuditInput {
	const call_id = `call_1_${i}_0`;
	const path = `src/gen/file${i}.ts`;
	switch (i % 3) {
		case 0:
			return {
				session,
				turn: 1,
				kind: "permission.decided",
				call_id,
				data: { tool: "write_file", decision: "allow", layer: "host-rule", reason: `host allow rule write_file(src/**) matched "${path}"`, rule: "write_file(src/**)" },
			};
		case 1:
			return { session, turn: 1, kind: "effect", call_id, data: { effect: "fs.write", resource: `fs:${path}`, bytes: 180 + (i % 40), diff: smallDiff(path, i) } };
		default:
			return { session, turn: 1, kind: "tool.outcome", call_id, data: { tool: "write_file", outcome: "completed", duration_ms: 2 + (i % 7), output_bytes: 40 + (i % 50) } };
	}
}
