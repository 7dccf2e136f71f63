import { describe, expect, it } from "vitest";
import { probeBwrap, probeLandlock, probeSandbox, probeSandboxUncached, sandboxChoice } from "./sandbox-probe.js";

describe("probeSandbox", () => {
	it("says why when bwrap is not on PATH", async () => {
		expect(await probeBwrap("/nonexistent-dir")).toEqual({ available: false, reason: "bubblewrap (bwrap) is not installed" });
	});

	it("proves bwrap works here once and caches the answer", async () => {
		const first = probeSandbox("bwrap");
		expect(probeSandbox("bwrap")).toBe(first);
		const probe = await first;
		// This project's machines have a working bubblewrap; the sandbox tests depend on it.
		expect(probe).toMatchObject({ available: true, provider: "bwrap" });
		if (probe.available) expect(probe.program).toMatch(/\/bwrap$/);
	});

	it("proves the Landlock helper confines here (built by npm run build; Linux >= 5.13)", async () => {
		const probe = await probeSandbox("landlock");
		expect(probe).toMatchObject({ available: true, provider: "landlock" });
		if (probe.available && probe.provider === "landlock") expect(probe.abi).toBeGreaterThanOrEqual(1);
	});

	it("says why when the Landlock helper is missing", async () => {
		expect(await probeLandlock("/nonexistent/landlock-exec")).toMatchObject({ available: false, reason: expect.stringMatching(/not built/) });
	});

	it("auto takes bubblewrap first, falls back to Landlock, and says both reasons when neither works", async () => {
		expect(await probeSandboxUncached("auto")).toMatchObject({ available: true, provider: "bwrap" });
		expect(await probeSandboxUncached("auto", "/nonexistent-dir")).toMatchObject({ available: true, provider: "landlock" });
		expect(await probeSandboxUncached("none")).toEqual({ available: false, reason: "WARDEN_SANDBOX_PROVIDER=none" });
	});
});

describe("sandboxChoice", () => {
	it.each([
		[undefined, "auto"],
		["", "auto"],
		["auto", "auto"],
		["bwrap", "bwrap"],
		["landlock", "landlock"],
		["none", "none"],
	])("WARDEN_SANDBOX_PROVIDER=%s is %s", (value, choice) => {
		expect(sandboxChoice(value === undefined ? {} : { WARDEN_SANDBOX_PROVIDER: value })).toBe(choice);
	});

	it("refuses a value that names no provider, rather than falling back", () => {
		expect(() => sandboxChoice({ WARDEN_SANDBOX_PROVIDER: "firejail" })).toThrow('WARDEN_SANDBOX_PROVIDER must be one of auto, bwrap, landlock, none, got "firejail"');
	});
});
