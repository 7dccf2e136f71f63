import { afterEach, describe, expect, it } from "vitest";
import { withForkableExecArgv } from "./llama-model.js";

const original = process.execArgv;
afterEach(() => {
	process.execArgv = original;
});

describe("withForkableExecArgv", () => {
	// One row per way node takes a script on its command line.
	const rows: { given: string[]; during: string[] }[] = [
		{ given: ["--input-type=module", "-e", "import('x')"], during: [] },
		{ given: ["--eval", "1", "--max-old-space-size=512"], during: ["--max-old-space-size=512"] },
		{ given: ["--print=1+1"], during: [] },
		{ given: ["-p", "1", "--input-type", "module"], during: [] },
		{ given: ["--enable-source-maps"], during: ["--enable-source-maps"] },
	];
	for (const row of rows) {
		it(`${JSON.stringify(row.given)} -> ${JSON.stringify(row.during)} while starting, restored after`, async () => {
			process.execArgv = row.given;
			const seen = await withForkableExecArgv(async () => [...process.execArgv]);
			expect(seen).toEqual(row.during);
			expect(process.execArgv).toEqual(row.given);
		});
	}

	it("restores execArgv when starting fails", async () => {
		process.execArgv = ["-e", "x"];
		await expect(withForkableExecArgv(() => Promise.reject(new Error("no binary")))).rejects.toThrow("no binary");
		expect(process.execArgv).toEqual(["-e", "x"]);
	});
});
