import { describe, expect, it } from "vitest";
import { probeSandbox, probeSandboxUncached } from "./sandbox-probe.js";

describe("probeSandbox", () => {
	it("says why when bwrap is not on PATH", async () => {
		expect(await probeSandboxUncached("/nonexistent-dir")).toEqual({ available: false, reason: "bubblewrap (bwrap) is not installed" });
	});

	it("proves bwrap works here once and caches the answer", async () => {
		const first = probeSandbox();
		expect(probeSandbox()).toBe(first);
		const probe = await first;
		// This project's machines have a working bubblewrap; the sandbox tests depend on it.
		expect(probe).toMatchObject({ available: true });
		if (probe.available) expect(probe.bwrap).toMatch(/\/bwrap$/);
	});
});
