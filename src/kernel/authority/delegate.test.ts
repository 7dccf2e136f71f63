import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Authority } from "./authority.js";
import { DelegationError } from "./authority-errors.js";
import type { Capability } from "./capability.js";
import { type DelegationRequest, delegate } from "./delegate.js";
import { RIGHTS, type Right } from "./resource.js";

const root: Capability = {
	id: "root",
	resource: "fs:src/**",
	rights: ["read", "write"],
	effect: "allow",
	issuer: "host",
	holder: "session:parent",
	expires_at: "2030-01-01T00:00:00.000Z",
	uses: 5,
	constraints: { max_bytes: 100 },
};

describe("delegate", () => {
	it("keeps or narrows a grant and records its lineage", () => {
		const child = delegate(root, { id: "child", holder: "agent:1", resource: "fs:src/lib/*.ts", rights: ["read"], uses: 2, constraints: { max_bytes: 50 } });
		expect(child).toEqual({
			id: "child",
			resource: "fs:src/lib/*.ts",
			rights: ["read"],
			effect: "allow",
			issuer: "session:parent",
			holder: "agent:1",
			parent: "root",
			expires_at: root.expires_at,
			uses: 2,
			constraints: { max_bytes: 50 },
		});
		expect(delegate(root, { id: "same", holder: "agent:2" })).toMatchObject({ resource: root.resource, rights: root.rights, uses: 5 });
	});

	it("refuses every kind of widening with one line", () => {
		const cases: [Partial<DelegationRequest>, string][] = [
			[{ resource: "fs:**" }, "fs:** is not provably within fs:src/**"],
			[{ resource: "shell:*" }, "shell:* is not provably within fs:src/**"],
			[{ rights: ["read", "delete"] }, "right delete is not held by the parent (read, write)"],
			[{ expires_at: "2031-01-01T00:00:00Z" }, "it would outlive the parent"],
			[{ uses: 6 }, "it would allow more uses than the parent's 5"],
			[{ constraints: { max_bytes: 101 } }, "max_bytes 101 is looser than the parent's 100"],
		];
		for (const [asked, why] of cases) {
			expect(() => delegate(root, { id: "c", holder: "h", ...asked })).toThrow(DelegationError);
			expect(() => delegate(root, { id: "c", holder: "h", ...asked })).toThrow(why);
		}
		expect(() => delegate({ ...root, effect: "ask" }, { id: "c", holder: "h", effect: "allow" })).toThrow("effect allow is looser than the parent's ask");
		expect(() => delegate({ ...root, effect: "deny" }, { id: "c", holder: "h" })).toThrow("a deny grant admits nothing to pass on");
		const readOnly: Capability = { ...root, resource: "shell:*", rights: ["exec"], constraints: { read_only_commands: true } };
		expect(() => delegate(readOnly, { id: "c", holder: "h", constraints: { read_only_commands: false } })).toThrow("only read-only commands");
	});

	it("never lets a descendant admit what its ancestor does not, over random grant trees", () => {
		const glob = fc.array(fc.constantFrom("a", "b", "/", "*", "**", "?"), { minLength: 1, maxLength: 5 }).map((t) => t.join(""));
		const kind = fc.constantFrom("fs", "shell");
		const rights = fc.subarray([...RIGHTS], { minLength: 1 }) as fc.Arbitrary<Right[]>;
		const time = fc.integer({ min: 0, max: 100 }).map((n) => new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString());
		// Resources and rights are often derived from the parent (narrowed or kept), sometimes random (usually wider).
		const request = fc.record(
			{
				resource: fc.oneof(fc.constant("keep"), glob.map((g) => `+${g}`), fc.tuple(kind, glob).map(([k, g]) => `${k}:${g}`)),
				rights: fc.oneof(fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), rights),
				effect: fc.constantFrom("allow", "ask", "deny") as fc.Arbitrary<"allow" | "ask" | "deny">,
				expires_at: time,
				uses: fc.integer({ min: 0, max: 4 }),
				constraints: fc.record({ max_bytes: fc.integer({ min: 0, max: 64 }), read_only_commands: fc.boolean() }, { requiredKeys: [] }),
			},
			{ requiredKeys: [] },
		);
		const rootGrant = fc.record({ resource: fc.tuple(kind, glob).map(([k, g]) => `${k}:${g}`), rights, uses: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }) });
		const access = fc.record({
			resource: fc.tuple(kind, fc.array(fc.constantFrom("a", "b", "/"), { maxLength: 6 })).map(([k, t]) => `${k}:${t.join("")}`),
			right: fc.constantFrom(...RIGHTS),
			bytes: fc.option(fc.integer({ min: 0, max: 80 }), { nil: undefined }),
			readOnlyCommand: fc.boolean(),
			at: fc.integer({ min: 0, max: 110 }),
			approved: fc.boolean(),
		});

		let delegated = 0;
		fc.assert(
			fc.property(rootGrant, fc.array(fc.tuple(fc.nat(), request), { minLength: 1, maxLength: 12 }), fc.array(access, { minLength: 10, maxLength: 10 }), (r, steps, accesses) => {
				const tree: Capability[] = [{ id: "n0", issuer: "host", holder: "h0", effect: "allow", resource: r.resource, rights: r.rights }];
				if (r.uses !== undefined) tree[0]!.uses = r.uses;
				for (const [pick, asked] of steps) {
					const parent = tree[pick % tree.length]!;
					const { resource, rights: askedRights, ...rest } = asked;
					const req: DelegationRequest = { id: `n${tree.length}`, holder: `h${tree.length}`, ...rest };
					if (resource !== undefined && resource !== "keep") req.resource = resource.startsWith("+") ? `${parent.resource}${resource.slice(1)}` : resource;
					if (askedRights !== undefined) {
						req.rights = typeof askedRights[0] === "boolean" ? parent.rights.filter((_, i) => askedRights[i]) : (askedRights as Right[]);
					}
					try {
						tree.push(delegate(parent, req));
					} catch (err) {
						if (!(err instanceof DelegationError)) throw err;
					}
				}
				delegated += tree.length - 1;
				const byId = new Map(tree.map((c) => [c.id, c]));
				for (const node of tree) {
					for (const a of accesses) {
						const now = () => Date.UTC(2030, 0, 1) + a.at * 1000;
						const admits = (c: Capability) => {
							try {
								new Authority({ grants: [c], now }).admit([a], { approved: a.approved });
								return true;
							} catch {
								return false;
							}
						};
						if (!admits(node)) continue;
						for (let up = node.parent; up !== undefined; up = byId.get(up)?.parent) {
							if (!admits(byId.get(up)!)) return false;
						}
					}
				}
				return true;
			}),
			{ numRuns: 400 },
		);
		// The property is only worth something if the trees actually grow.
		expect(delegated).toBeGreaterThan(200);
	});
});
