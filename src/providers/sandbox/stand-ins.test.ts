import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireStandIns } from "./stand-ins.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-stand-ins-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("acquireStandIns", () => {
	it("makes empty stand-ins and removes them when given back", () => {
		const dir = { path: join(base, ".warden"), directory: true };
		const file = { path: join(base, ".envrc"), directory: false };
		const release = acquireStandIns([dir, file]);
		expect(existsSync(dir.path) && existsSync(file.path)).toBe(true);
		release();
		release();
		expect(existsSync(dir.path) || existsSync(file.path)).toBe(false);
	});

	it("keeps a shared stand-in until the last holder gives it back", () => {
		const p = { path: join(base, ".git"), directory: true };
		const first = acquireStandIns([p]);
		const second = acquireStandIns([p]);
		first();
		expect(existsSync(p.path)).toBe(true);
		second();
		expect(existsSync(p.path)).toBe(false);
	});

	it("never removes what it did not make, nor what is no longer empty", () => {
		const theirs = join(base, "theirs");
		writeFileSync(theirs, "");
		acquireStandIns([{ path: theirs, directory: false }])();
		expect(existsSync(theirs)).toBe(true);
		const filled = { path: join(base, "filled"), directory: false };
		const release = acquireStandIns([filled]);
		writeFileSync(filled.path, "someone wrote here\n");
		release();
		expect(existsSync(filled.path)).toBe(true);
	});
});
