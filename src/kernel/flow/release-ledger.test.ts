import { describe, expect, it } from "vitest";
import { ReleaseRefusedError } from "./flow-errors.js";
import type { ReleaseBinding } from "./flow-types.js";
import { label } from "./label.js";
import { type ReleaseUse, ReleaseLedger } from "./release-ledger.js";

const binding: ReleaseBinding = {
	session: "s1",
	call_id: "c1",
	operation: "net.fetch",
	sink: "net:https://api.example.com:443",
	payload_sha256: "a".repeat(64),
	label: label("secret", "trusted", { kind: "file", ref: ".env" }),
	ceiling_hash: "ceil",
	registry_generation: "gen1",
};
const { label: _shown, ...use } = binding;
const extras = { trust: "trusted" as const, why: "secret data is above internal", preview: "{...}" };

function setup(now = { t: 1_000_000 }) {
	const ledger = new ReleaseLedger({ now: () => now.t, ttlMs: 60_000, sequentialIds: true });
	const request = ledger.request(binding, extras);
	return { ledger, request, now };
}

function refusal(fn: () => unknown): string {
	try {
		fn();
	} catch (err) {
		expect(err).toBeInstanceOf(ReleaseRefusedError);
		return (err as Error).message;
	}
	throw new Error("expected a refusal");
}

describe("ReleaseLedger", () => {
	it("builds a request bound to the payload, with an expiry", () => {
		const { request } = setup();
		expect(request).toMatchObject({ ...binding, ...extras, id: "rel_1", expires_at: new Date(1_060_000).toISOString() });
		expect(new ReleaseLedger().request(binding, extras).id).toMatch(/^rel_[0-9a-f-]{36}$/);
	});

	it("spends a granted release once, and refuses a replay", () => {
		const { ledger, request } = setup();
		ledger.grant(request);
		expect(ledger.outstanding).toBe(1);
		expect(ledger.consume("rel_1", use).id).toBe("rel_1");
		expect(ledger.outstanding).toBe(0);
		expect(refusal(() => ledger.consume("rel_1", use))).toBe("release rel_1 was already used");
	});

	it("refuses an unknown, an ungranted and an expired release", () => {
		const { ledger, request, now } = setup();
		expect(refusal(() => ledger.consume("rel_9", use))).toBe("unknown release rel_9");
		expect(refusal(() => ledger.consume(request.id, use))).toBe("release rel_1 was not granted");
		ledger.grant(request);
		now.t += 60_000;
		expect(refusal(() => ledger.consume(request.id, use))).toMatch(/^release rel_1 expired at /);
		expect(refusal(() => ledger.consume(request.id, use))).toBe("release rel_1 was already used");
	});

	it("refuses to grant an expired or already granted request", () => {
		const { ledger, request, now } = setup();
		ledger.grant(request);
		expect(refusal(() => ledger.grant(request))).toBe("release rel_1 was already granted");
		const late = ledger.request(binding, extras);
		now.t += 61_000;
		expect(refusal(() => ledger.grant(late))).toMatch(/^release rel_2 expired/);
	});

	const changes: [keyof ReleaseUse, string | undefined][] = [
		["session", "s2"],
		["call_id", "c2"],
		["call_id", undefined],
		["operation", "shell.exec"],
		["sink", "net:https://evil.example:443"],
		["payload_sha256", "b".repeat(64)],
		["ceiling_hash", "other"],
		["registry_generation", "gen2"],
	];
	for (const [field, value] of changes) {
		it(`refuses a use with another ${field} (${value}) and burns the release`, () => {
			const { ledger, request } = setup();
			ledger.grant(request);
			const presented = { ...use, [field]: value } as ReleaseUse;
			expect(refusal(() => ledger.consume("rel_1", presented))).toMatch(new RegExp(`^release rel_1 was granted for ${field} `));
			expect(refusal(() => ledger.consume("rel_1", use))).toBe("release rel_1 was already used");
			expect(ledger.release("rel_1")).toBe(false);
		});
	}

	it("takes back a release whose operation never started, still for one use", () => {
		const { ledger, request } = setup();
		ledger.grant(request);
		expect(ledger.release("rel_1")).toBe(false);
		ledger.consume("rel_1", use);
		expect(ledger.release("rel_1")).toBe(true);
		expect(ledger.find(use)?.id).toBe("rel_1");
		ledger.consume("rel_1", use);
		expect(refusal(() => ledger.consume("rel_1", use))).toBe("release rel_1 was already used");
	});
});
