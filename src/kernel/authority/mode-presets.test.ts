import { describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { PERMISSION_MODES } from "../admission/types.js";
import { Authority } from "./authority.js";
import { sessionGrants } from "./session-grants.js";

const shell = await ShellParser.create();
const plain = { approved: false };

function admits(a: Authority, reqs: Parameters<Authority["admit"]>[0]): boolean {
	try {
		a.admit(reqs, plain);
		return true;
	} catch {
		return false;
	}
}

describe("mode presets", () => {
	it("issue the capabilities each mode's Table 2 row needs, and no more", () => {
		const rows = Object.fromEntries(
			PERMISSION_MODES.map((mode) => {
				const a = new Authority({ grants: sessionGrants(mode, undefined, "session:s"), shell });
				return [
					mode,
					{
						read: admits(a, [{ resource: "fs:src/a.ts", right: "read" }]),
						write: admits(a, [{ resource: "fs:src/a.ts", right: "write" }]),
						readOnlyShell: admits(a, a.shellRequests("git status && cat notes.md")),
						otherShell: admits(a, a.shellRequests("npm test")),
						egress: admits(a, [{ resource: "net:https://example.com:443", right: "egress" }]),
						recall: admits(a, [{ resource: "memory:project/notes", right: "read" }]),
						remember: admits(a, [{ resource: "memory:project/notes", right: "write" }]),
					},
				];
			}),
		);
		expect(rows).toEqual({
			"read-only": { read: true, write: false, readOnlyShell: true, otherShell: false, egress: false, recall: true, remember: false },
			plan: { read: true, write: false, readOnlyShell: true, otherShell: false, egress: false, recall: true, remember: false },
			"workspace-write": { read: true, write: true, readOnlyShell: true, otherShell: true, egress: false, recall: true, remember: true },
			"full-access": { read: true, write: true, readOnlyShell: true, otherShell: true, egress: true, recall: true, remember: true },
		});
	});

	it("are issued by the mode and held by the session; host grants replace them", () => {
		const preset = sessionGrants("plan", undefined, "session:s");
		expect(preset.every((g) => g.issuer === "mode:plan" && g.holder === "session:s" && g.effect === "allow")).toBe(true);
		const host = sessionGrants("full-access", [{ resource: "fs:docs/**", rights: ["read"] }], "session:s");
		expect(host).toEqual([
			{ id: "grant-1", resource: "fs:docs/**", rights: ["read"], effect: "allow", issuer: "host", holder: "session:s" },
			{ id: "mode:full-access:llm", resource: "llm:*", rights: ["egress"], effect: "allow", issuer: "mode:full-access", holder: "session:s" },
			{ id: "mode:full-access:human", resource: "human:*", rights: ["egress"], effect: "allow", issuer: "mode:full-access", holder: "session:s" },
			{ id: "mode:full-access:memory", resource: "memory:*", rights: ["read", "write"], effect: "allow", issuer: "mode:full-access", holder: "session:s" },
		]);
		// A host that names a channel kind decides it alone; a deny does not count as naming it.
		const named = sessionGrants("plan", [{ resource: "llm:ollama/*", rights: ["egress"] }, { resource: "human:*", rights: ["egress"], effect: "deny" }], "s");
		expect(named.map((g) => g.resource)).toEqual(["llm:ollama/*", "human:*", "human:*", "memory:*"]);
		expect(() => sessionGrants("plan", [{ resource: "fs:**", rights: ["read"], use: 1 }], "s")).toThrow("grants[0].use: unknown key");
	});
});
