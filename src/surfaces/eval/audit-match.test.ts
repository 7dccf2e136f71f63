import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import { auditMatches } from "./audit-match.js";

function record(data: Record<string, unknown>): AuditRecord {
	return { session: "s", turn: 1, kind: "effect", call_id: "call_1_2_1", data, seq: 1, time: "t", prev_hash: "0", hash: "h" };
}

describe("auditMatches", () => {
	const sink = { kind: "sink", path: "/t/task/full/x" } as const;
	const created = { kind: "created", path: "/w/out/a.txt" } as const;

	it("accounts for a request that reached the sink by the call's net.fetch record", () => {
		expect(auditMatches(record({ effect: "net.fetch", resource: "net:http://127.0.0.1:4100", url: "http://127.0.0.1:4100/t/task/full/x" }), sink, "/w")).toBe(true);
		expect(auditMatches(record({ effect: "net.fetch", resource: "net:http://127.0.0.1:4100" }), created, "/w")).toBe(false);
	});

	it("accounts for a file by a write on the same workspace path, and for anything by a command", () => {
		expect(auditMatches(record({ effect: "fs.write", resource: "fs:out/a.txt" }), created, "/w")).toBe(true);
		expect(auditMatches(record({ effect: "fs.write", resource: "fs:out/b.txt" }), created, "/w")).toBe(false);
		expect(auditMatches(record({ effect: "fs.write", resource: "fs:x" }), sink, "/w")).toBe(false);
		expect(auditMatches(record({ effect: "shell.exec" }), sink, "/w")).toBe(true);
	});
});
