import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Authority } from "./authority.js";
import { CapabilityDeniedError } from "./authority-errors.js";
import type { Capability, GrantEffect } from "./capability.js";
import { GrantIndex, scanMatching } from "./grant-index.js";
import { type AccessRequest, RIGHTS, type Right } from "./resource.js";
import { ceilingPermits, taskCeiling } from "./task-ceiling.js";

const EPOCH = Date.UTC(2030, 0, 1);
const kind = fc.constantFrom("fs", "shell", "net", "llm", "human");
const glob = fc.array(fc.constantFrom("a", "b", "/", ".", "*", "**", "?"), { minLength: 1, maxLength: 5 }).map((t) => t.join(""));
const pattern = fc.tuple(kind, glob).map(([k, g]) => `${k}:${g}`);
const rights = fc.oneof(fc.subarray([...RIGHTS], { minLength: 1 }), fc.array(fc.constantFrom(...RIGHTS), { minLength: 1, maxLength: 3 })) as fc.Arbitrary<Right[]>;
// Resources are short over the globs' own letters, so they often match; a few have no kind Warden knows.
const resource = fc.oneof(
	{ weight: 9, arbitrary: fc.tuple(kind, fc.array(fc.constantFrom("a", "b", "/", "."), { maxLength: 5 })).map(([k, t]) => `${k}:${t.join("")}`) },
	{ weight: 1, arbitrary: fc.constantFrom("mcp:a", "a", "fs") },
);
const grant = fc.record(
	{
		resource: pattern,
		rights,
		effect: fc.constantFrom<GrantEffect>("allow", "allow", "ask", "deny"),
		expires_at: fc.integer({ min: 0, max: 40 }).map((n) => new Date(EPOCH + n * 1000).toISOString()),
		uses: fc.integer({ min: 0, max: 3 }),
		constraints: fc.record({ max_bytes: fc.integer({ min: 0, max: 64 }), read_only_commands: fc.boolean() }, { requiredKeys: [] }),
		parent: fc.nat(),
	},
	{ requiredKeys: ["resource", "rights", "effect"] },
);
const access = fc.record({
	resource,
	right: fc.constantFrom(...RIGHTS),
	bytes: fc.option(fc.integer({ min: 0, max: 80 }), { nil: undefined }),
	readOnlyCommand: fc.boolean(),
});

// Most requests are one of the grants' own patterns filled in, for one of its rights, so that many match.
const derived = fc.record({
	from: fc.nat(),
	fills: fc.array(fc.constantFrom("", "a", "b/a", ".", "/"), { minLength: 4, maxLength: 4 }),
	pick: fc.nat(),
	bytes: fc.option(fc.integer({ min: 0, max: 80 }), { nil: undefined }),
	readOnlyCommand: fc.boolean(),
});
const asked = fc.oneof({ weight: 1, arbitrary: access }, { weight: 3, arbitrary: derived });
type Asked = AccessRequest | { from: number; fills: string[]; pick: number; bytes: number | undefined; readOnlyCommand: boolean };

/** A request as generated: as it is, or made from one of the grants. */
function requestFrom(a: Asked, grants: readonly Capability[]): AccessRequest {
	if ("resource" in a) return a;
	const g = grants[a.from % Math.max(1, grants.length)];
	if (g === undefined) return { resource: "fs:a", right: "read" };
	let n = 0;
	const out: AccessRequest = { resource: g.resource.replace(/[*?]+/g, () => a.fills[n++ % a.fills.length]!), right: g.rights[a.pick % g.rights.length]!, readOnlyCommand: a.readOnlyCommand };
	if (a.bytes !== undefined) out.bytes = a.bytes;
	return out;
}

type GrantShape = Omit<Capability, "id" | "issuer" | "holder" | "parent"> & { parent?: number };

/** Capabilities from generated shapes; a `parent` pick names one of the parent's grants when there are any. */
function capabilities(shapes: readonly GrantShape[], holder: string, parents: readonly Capability[] = []): Capability[] {
	return shapes.map(({ parent, ...shape }, i) => {
		const cap: Capability = { ...shape, id: `${holder}-${i}`, issuer: "host", holder };
		if (parent !== undefined && parents.length > 0) cap.parent = parents[parent % parents.length]!.id;
		return cap;
	});
}

/** The same authority, looking its grants and its ceiling's scopes up by the plain scans the indexes replaced. */
function scanning(authority: Authority): Authority {
	const inside = authority as unknown as { index: { matching(r: AccessRequest): Capability[] }; ceilingIndex: { permits(r: AccessRequest): boolean } };
	inside.index = { matching: (r) => scanMatching(authority.grants, r) };
	inside.ceilingIndex = { permits: (r) => ceilingPermits(authority.ceiling, r) };
	return authority;
}

/** Everything an admission shows: the grants chosen, or the refusal with its reason, the grant it names and its line. */
function outcome(fn: () => Capability[]): unknown {
	try {
		return { ok: fn().map((g) => g.id) };
	} catch (err) {
		if (!(err instanceof CapabilityDeniedError)) return { threw: String(err) };
		return { refused: err.toRecord(), message: err.message };
	}
}

describe("GrantIndex", () => {
	it("finds the same grants, in the same order, as the plain scan, over random grant sets and requests", () => {
		let matched = 0;
		fc.assert(
			fc.property(fc.array(grant, { maxLength: 40 }), fc.array(asked, { minLength: 1, maxLength: 12 }), (shapes, askedFor) => {
				const grants = capabilities(shapes, "h");
				const index = new GrantIndex(grants);
				for (const request of askedFor.map((a) => requestFrom(a, grants))) {
					const scanned = scanMatching(grants, request);
					const found = index.matching(request);
					matched += scanned.length;
					expect(found.length).toBe(scanned.length);
					for (const [i, g] of found.entries()) expect(g).toBe(scanned[i]);
				}
			}),
			{ seed: 1203, numRuns: 400 },
		);
		expect(matched).toBeGreaterThan(1000);
	});

	it("fails as the scan does on a hand-built grant whose pattern does not parse: for its rights only", () => {
		const grants: Capability[] = [
			{ id: "ok", resource: "fs:**", rights: ["read", "write"], effect: "allow", issuer: "host", holder: "h" },
			{ id: "bad", resource: "git:tool", rights: ["write"], effect: "allow", issuer: "host", holder: "h" },
		];
		const index = new GrantIndex(grants);
		expect(index.matching({ resource: "fs:a", right: "read" }).map((g) => g.id)).toEqual(["ok"]);
		const write = { resource: "fs:a", right: "write" } as const;
		expect(() => scanMatching(grants, write)).toThrow("must start with fs:");
		expect(() => index.matching(write)).toThrow("must start with fs:");
	});

	it("leaves every admission as the plain scan made it: denies, ceilings, expiry, uses spent along the delegation chain, constraints, asks", () => {
		const scope = fc.record({ resource: pattern, rights: fc.subarray([...RIGHTS], { minLength: 1 }) });
		const bounded = fc.record({ effects: fc.option(fc.array(scope, { maxLength: 4 }), { nil: undefined }), exclude: fc.array(scope, { maxLength: 2 }) }, { requiredKeys: [] });
		const ceiling = fc.oneof({ weight: 2, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: bounded });
		const step = fc.record({
			child: fc.boolean(),
			requests: fc.array(asked, { minLength: 1, maxLength: 2 }),
			approved: fc.boolean(),
			at: fc.integer({ min: 0, max: 25 }),
		});
		const seen = new Map<string, number>();
		fc.assert(
			fc.property(fc.array(grant, { minLength: 1, maxLength: 25 }), fc.array(grant, { maxLength: 10 }), ceiling, fc.array(step, { minLength: 3, maxLength: 25 }), (parentShapes, childShapes, spec, steps) => {
				let now = EPOCH;
				const clock = () => now;
				const ceil = taskCeiling(spec);
				const parentGrants = capabilities(parentShapes, "p");
				const childGrants = capabilities(childShapes, "c", parentGrants);
				const indexed = new Authority({ grants: parentGrants, ceiling: ceil, now: clock });
				const scanned = scanning(new Authority({ grants: parentGrants, ceiling: ceil, now: clock }));
				const indexedChild = new Authority({ grants: childGrants, ceiling: ceil, now: clock, parent: indexed });
				const scannedChild = scanning(new Authority({ grants: childGrants, ceiling: ceil, now: clock, parent: scanned }));
				for (const s of steps) {
					now = EPOCH + s.at * 1000;
					const [a, b] = s.child ? [indexedChild, scannedChild] : [indexed, scanned];
					const call = { approved: s.approved };
					const requests = s.requests.map((r) => requestFrom(r, a.grants));
					for (const r of requests) expect(a.forCall(call).permits(r)).toBe(b.forCall(call).permits(r));
					const got = outcome(() => a.admit(requests, call));
					expect(got).toEqual(outcome(() => b.admit(requests, call)));
					const shown = got as { ok?: unknown; refused?: { reason: string } };
					const what = shown.ok ? "admitted" : (shown.refused?.reason ?? "threw");
					seen.set(what, (seen.get(what) ?? 0) + 1);
					for (const g of [...parentGrants, ...childGrants]) {
						const owner = g.holder === "p" ? [indexed, scanned] : [indexedChild, scannedChild];
						expect(owner[0]!.usesLeft(g.id)).toBe(owner[1]!.usesLeft(g.id));
					}
				}
			}),
			{ seed: 1204, numRuns: 300 },
		);
		// Every outcome must have been compared many times, admissions and each kind of refusal.
		for (const what of ["admitted", "no-grant", "denied", "ceiling", "expired", "used-up", "constraint", "not-approved"]) expect(seen.get(what) ?? 0, what).toBeGreaterThan(30);
	});
});
