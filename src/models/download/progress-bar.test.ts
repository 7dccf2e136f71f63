import { describe, expect, it } from "vitest";
import { formatProgress, terminalProgress } from "./progress-bar.js";

describe("the download progress bar", () => {
	it("draws percent, a bar and megabytes", () => {
		expect(formatProgress("m.gguf", 0, 4 * 1_048_576)).toBe(`m.gguf    0% ▕${" ".repeat(24)}▏ 0.0/4.0 MB`);
		expect(formatProgress("m.gguf", 2 * 1_048_576, 4 * 1_048_576)).toBe(`m.gguf   50% ▕${"█".repeat(12)}${" ".repeat(12)}▏ 2.0/4.0 MB`);
		expect(formatProgress("m.gguf", 4 * 1_048_576, 4 * 1_048_576)).toBe(`m.gguf  100% ▕${"█".repeat(24)}▏ 4.0/4.0 MB`);
		expect(formatProgress("m.gguf", 1_048_576, undefined)).toBe("m.gguf  1.0 MB");
	});

	it("draws on a terminal only, redrawing in place once per percent", () => {
		const written: string[] = [];
		const tty = terminalProgress("m.gguf", { isTTY: true, write: (t) => written.push(t) });
		expect(tty).toBeDefined();
		for (let received = 0; received <= 1000; received += 1) tty?.(received, 1000);
		tty?.done();
		expect(written).toHaveLength(102);
		expect(written.every((line, i) => (i === 101 ? line === "\n" : line.startsWith("\rm.gguf")))).toBe(true);
		expect(terminalProgress("m.gguf", { isTTY: false, write: () => undefined })).toBeUndefined();
		expect(terminalProgress("m.gguf", { write: () => undefined })).toBeUndefined();
	});
});
