import { describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { Authority } from "./authority.js";
import { CapabilityDeniedError } from "./authority-errors.js";
import { type GrantSpec, issueGrant } from "./capability.js";
import { delegate } from "./delegate.js";
import { taskCeiling } from "./task-ceiling.js";

const shell = await ShellParser.create();
const grants = (...specs: GrantSpec[]) => specs.map((s, i) => issueGrant(s, "host", "session:t", `g${i + 1}`));
const plain = { approved: false };

function refusal(fn: () => unknown): CapabilityDeniedError {
	try {
		fn();
	} catch (err) {
		if (err instanceof CapabilityDeniedError) return err;
		throw err;
	}
	throw new Error("expected a capability refusal");
}

describe("Authority", () => {
	it("admits what a grant covers and refuses what none does (fail closed)", () => {
		const a = new Authority({ grants: grants({ resource: "fs:src/**", rights: ["read", "write"] }) });
		expect(a.admit([{ resource: "fs:src/a.ts", right: "write" }], plain).map((g) => g.id)).toEqual(["g1"]);
		const err = refusal(() => a.admit([{ resource: "fs:README.md", right: "read" }], plain));
		expect(err.reason).toBe("no-grant");
		expect(err.message).toBe("capability refused: read on fs:README.md: no grant covers it");
		expect(refusal(() => a.admit([{ resource: "fs:src/a.ts", right: "delete" }], plain)).reason).toBe("no-grant");
		expect(refusal(() => new Authority({ grants: [] }).admit([{ resource: "fs:a", right: "read" }], plain)).reason).toBe("no-grant");
	});

	it("lets an explicit deny beat any allow, whatever the order", () => {
		for (const order of [0, 1]) {
			const specs: GrantSpec[] = [
				{ resource: "fs:**", rights: ["read", "write"] },
				{ id: "no-secrets", resource: "fs:secrets/**", rights: ["write"], effect: "deny" },
			];
			const a = new Authority({ grants: grants(...(order ? specs.reverse() : specs)) });
			const err = refusal(() => a.admit([{ resource: "fs:secrets/key", right: "write" }], plain));
			expect(err.reason).toBe("denied");
			expect(err.grant).toBe("no-secrets");
			expect(err.message).toContain("denied by grant no-secrets (fs:secrets/**)");
			// The deny names a right: reading stays admitted.
			expect(a.admit([{ resource: "fs:secrets/key", right: "read" }], plain)).toHaveLength(1);
		}
	});

	it("refuses an expired grant, judged by the injected clock", () => {
		let now = Date.parse("2030-01-01T00:00:00Z");
		const a = new Authority({ grants: grants({ resource: "fs:**", rights: ["read"], expires_at: "2030-01-01T00:00:10Z" }), now: () => now });
		expect(a.admit([{ resource: "fs:a", right: "read" }], plain)).toHaveLength(1);
		now += 10_000;
		const err = refusal(() => a.admit([{ resource: "fs:a", right: "read" }], plain));
		expect(err.reason).toBe("expired");
		expect(err.message).toContain("grant g1 expired at 2030-01-01T00:00:10.000Z");
	});

	it("spends a use per admission and refuses once the grant is used up", () => {
		const a = new Authority({ grants: grants({ resource: "fs:out.txt", rights: ["write"], uses: 2 }) });
		a.admit([{ resource: "fs:out.txt", right: "write" }], plain);
		expect(a.usesLeft("g1")).toBe(1);
		a.admit([{ resource: "fs:out.txt", right: "write" }], plain);
		const err = refusal(() => a.admit([{ resource: "fs:out.txt", right: "write" }], plain));
		expect(err.reason).toBe("used-up");
		expect(a.usesLeft("g1")).toBe(0);
	});

	it("spends nothing when one request of a batch is refused, and prefers a grant without a count", () => {
		const a = new Authority({
			grants: grants({ resource: "shell:ls*", rights: ["exec"], uses: 3 }, { resource: "shell:cat *", rights: ["exec"] }),
			shell,
		});
		expect(() => a.admit(a.shellRequests("ls && rm x"), plain)).toThrow(CapabilityDeniedError);
		expect(a.usesLeft("g1")).toBe(3);
		a.admit(a.shellRequests("ls -l | cat -"), plain);
		expect(a.usesLeft("g1")).toBe(2);
		const both = new Authority({ grants: grants({ resource: "fs:**", rights: ["read"], uses: 1 }, { resource: "fs:**", rights: ["read"] }) });
		both.admit([{ resource: "fs:a", right: "read" }], plain);
		expect(both.usesLeft("g1")).toBe(1);
	});

	it("admits an ask grant only for a call the host approved", () => {
		const a = new Authority({ grants: grants({ resource: "fs:package.json", rights: ["write"], effect: "ask" }) });
		expect(refusal(() => a.admit([{ resource: "fs:package.json", right: "write" }], plain)).reason).toBe("not-approved");
		expect(a.admit([{ resource: "fs:package.json", right: "write" }], { approved: true })).toHaveLength(1);
	});

	it("checks constraints on the facts the primitive gives", () => {
		const a = new Authority({
			grants: grants(
				{ resource: "fs:**", rights: ["write"], constraints: { max_bytes: 10 } },
				{ resource: "shell:*", rights: ["exec"], constraints: { read_only_commands: true } },
			),
			shell,
		});
		expect(a.admit([{ resource: "fs:a", right: "write", bytes: 10 }], plain)).toHaveLength(1);
		expect(refusal(() => a.admit([{ resource: "fs:a", right: "write", bytes: 11 }], plain)).reason).toBe("constraint");
		expect(refusal(() => a.admit([{ resource: "fs:a", right: "write" }], plain)).reason).toBe("constraint");
		expect(a.admit(a.shellRequests("git status"), plain)).toHaveLength(1);
		expect(refusal(() => a.admit(a.shellRequests("git status && rm -f x"), plain)).resource).toBe("shell:rm -f x");
	});

	it("lets a narrow ceiling win over a broad capability", () => {
		const ceiling = taskCeiling({ effects: [{ resource: "fs:docs/**", rights: ["read", "write"] }] });
		const a = new Authority({ grants: grants({ resource: "fs:**", rights: ["read", "write", "delete"] }), ceiling });
		expect(a.admit([{ resource: "fs:docs/a.md", right: "write" }], plain)).toHaveLength(1);
		const err = refusal(() => a.admit([{ resource: "fs:src/a.ts", right: "write" }], plain));
		expect(err.reason).toBe("ceiling");
		expect(err.ceiling).toBe(ceiling.hash);
		expect(err.message).toBe(`capability refused: write on fs:src/a.ts: outside the task ceiling ${ceiling.hash.slice(0, 12)}`);
		expect(refusal(() => a.admit([{ resource: "fs:docs/a.md", right: "delete" }], plain)).reason).toBe("ceiling");
	});

	it("creates no authority from a permissive ceiling", () => {
		const ceiling = taskCeiling({ effects: [{ resource: "fs:**", rights: ["read", "write", "delete"] }, { resource: "shell:*", rights: ["exec"] }] });
		const a = new Authority({ grants: grants({ resource: "fs:**", rights: ["read"] }), ceiling });
		expect(refusal(() => a.admit([{ resource: "fs:a", right: "write" }], plain)).reason).toBe("no-grant");
		expect(refusal(() => a.admit([{ resource: "shell:ls", right: "exec" }], plain)).reason).toBe("no-grant");
	});

	it("removes excluded effects even from an unrestricted ceiling, and permits() spends nothing", () => {
		const ceiling = taskCeiling({ exclude: [{ resource: "fs:secrets/**", rights: ["read", "write"] }] });
		const a = new Authority({ grants: grants({ resource: "fs:**", rights: ["read", "write"], uses: 1 }), ceiling });
		const call = a.forCall(plain);
		expect(call.permits({ resource: "fs:secrets", right: "read" })).toBe(false);
		expect(call.permits({ resource: "fs:notes.md", right: "read" })).toBe(true);
		expect(a.usesLeft("g1")).toBe(1);
		expect(() => call.admit([{ resource: "fs:secrets/x", right: "write" }])).toThrow(/outside the task ceiling/);
		expect(call.refusals.map((r) => r.toRecord())).toEqual([
			{ resource: "fs:secrets/x", right: "write", reason: "ceiling", why: `outside the task ceiling ${ceiling.hash.slice(0, 12)}`, ceiling: ceiling.hash },
		]);
	});

	it("makes a delegated counted grant share its parent's count, so together they never exceed it", () => {
		const write = { resource: "fs:out.txt", right: "write" as const };
		const parent = new Authority({ grants: grants({ resource: "fs:out.txt", rights: ["write"], uses: 2 }) });
		const child = new Authority({ grants: [delegate(parent.grants[0]!, { id: "c1", holder: "agent:1", uses: 2 })], parent });
		const grandchild = new Authority({ grants: [delegate(child.grants[0]!, { id: "c2", holder: "agent:2" })], parent: child });
		child.admit([write], plain);
		expect(parent.usesLeft("g1")).toBe(1);
		expect(child.usesLeft("c1")).toBe(1);
		parent.admit([write], plain);
		expect(child.usesLeft("c1")).toBe(0);
		expect(grandchild.usesLeft("c2")).toBe(0);
		const err = refusal(() => child.admit([write], plain));
		expect(err.reason).toBe("used-up");
		expect(err.message).toContain("the grant it was delegated from has no uses left");
		expect(refusal(() => grandchild.admit([write], plain)).reason).toBe("used-up");
		// Spending in a batch counts every use against the shared count before admitting any.
		const p2 = new Authority({ grants: grants({ resource: "fs:out.txt", rights: ["write"], uses: 2 }) });
		const c2 = new Authority({ grants: [delegate(p2.grants[0]!, { id: "c1", holder: "agent:1" })], parent: p2 });
		p2.admit([write], plain);
		expect(refusal(() => c2.admit([write, write], plain)).reason).toBe("used-up");
		expect(c2.admit([write], plain)).toHaveLength(1);
		expect(p2.usesLeft("g1")).toBe(0);
	});

	it("refuses two grants with one id", () => {
		const g = issueGrant({ resource: "fs:**", rights: ["read"] }, "host", "s", "same");
		expect(() => new Authority({ grants: [g, g] })).toThrow("two grants share the id same");
	});
});

describe("Authority: durable uses of counted grants", () => {
	it("hands each call the uses its admissions spent, one per counter along the delegation chain, once", () => {
		const parent = new Authority({ grants: grants({ resource: "fs:**", rights: ["write"], uses: 3 }, { resource: "fs:**", rights: ["read"] }) });
		const child = new Authority({ grants: [delegate(parent.grants[0]!, { id: "c1", holder: "agent:1", uses: 2 })], parent });
		const call = child.forCall(plain);
		call.admit([{ resource: "fs:a", right: "write" }]);
		expect(call.takeUses()).toEqual([
			{ holder: "agent:1", grant: "c1" },
			{ holder: "session:t", grant: "g1" },
		]);
		expect(call.takeUses()).toEqual([]);
		// An uncounted grant spends nothing durable; a refusal spends nothing at all.
		const own = parent.forCall(plain);
		own.admit([{ resource: "fs:a", right: "read" }]);
		expect(() => own.admit([{ resource: "fs:a", right: "delete" }])).toThrow(CapabilityDeniedError);
		expect(own.takeUses()).toEqual([]);
	});

	it("counts uses an earlier run recorded as spent: only the holder's own grants, never below zero", () => {
		const a = new Authority({ grants: grants({ id: "once", resource: "fs:**", rights: ["write"], uses: 1 }, { id: "twice", resource: "fs:x", rights: ["read"], uses: 2 }) });
		a.markSpent([
			{ holder: "session:other", grant: "once" },
			{ holder: "session:t", grant: "unknown" },
			{ holder: "session:t", grant: "twice" },
		]);
		expect([a.usesLeft("once"), a.usesLeft("twice")]).toEqual([1, 1]);
		a.markSpent([
			{ holder: "session:t", grant: "once" },
			{ holder: "session:t", grant: "once" },
		]);
		expect(a.usesLeft("once")).toBe(0);
		const err = refusal(() => a.admit([{ resource: "fs:a", right: "write" }], plain));
		expect(err.message).toContain("grant once is used up (1 use)");
	});
});
