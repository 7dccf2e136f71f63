import { describe, expect, it } from "vitest";
import { probeBwrap, probeSandbox } from "./sandbox-probe.js";

describe("probeSandbox", () => {
	it("says why when bwrap is not on PATH", async () => {
		expect(await probeBwrap("/nonexistent-dir")).toEqual({ available: false, reason: "bubblewrap (bwrap) is not installed" });
	});

	it("proves bwrap works here once and caches the answer", async () => {
		const first = probeSandbox("bwrap");
		expect(probeSandbox("bwrap")).toBe(first);
		const probe = await first;
		// This project's machines have a working bubblewrap; the sandbox tests depend on it.
		expect(probe).toMatchObject({ available: true });
		if (probe.available) expect(probe.program).toMatch(/\/bwrap$/);
	});
});
