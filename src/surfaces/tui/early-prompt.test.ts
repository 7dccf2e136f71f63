import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { EarlyPrompt } from "./early-prompt.js";

function terminal() {
	const input = Object.assign(new PassThrough(), { isTTY: true, raw: false, setRawMode(on: boolean) { input.raw = on; return input; } });
	let written = "";
	const output = Object.assign(new PassThrough(), { isTTY: true });
	output.on("data", (d: Buffer) => (written += d.toString()));
	return { term: { input: input as unknown as NodeJS.ReadStream, output: output as unknown as NodeJS.WriteStream }, input, written: () => written };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("the early prompt", () => {
	it("goes raw and draws the prompt row at once", () => {
		const t = terminal();
		EarlyPrompt.draw(t.term, true);
		expect(t.input.raw).toBe(true);
		expect(t.written()).toBe("\r\u001b[2K› _");
	});

	it("echoes text and backspace, and stops echoing at the first key that is not text", async () => {
		const t = terminal();
		EarlyPrompt.draw(t.term, true);
		t.input.write("helo");
		t.input.write("\u007flo");
		await tick();
		expect(t.written().endsWith("› hello_")).toBe(true);
		t.input.write("\r more");
		await tick();
		expect(t.written().endsWith("› hello")).toBe(true);
	});

	it("hands every key over in the order typed, Enter and Ctrl-D included, answering none itself", async () => {
		const t = terminal();
		const prompt = EarlyPrompt.draw(t.term, false) as EarlyPrompt;
		t.input.write("yes\r");
		t.input.write("\u0004");
		await tick();
		prompt.handOver();
		expect(t.input.raw).toBe(true);
		expect(t.written().endsWith("\r\u001b[2K")).toBe(true);
		expect(String(t.input.read())).toBe("yes\r\u0004");
	});

	it("withdrawn, it erases its row and puts the terminal back", async () => {
		const t = terminal();
		const prompt = EarlyPrompt.draw(t.term, true) as EarlyPrompt;
		prompt.withdraw();
		expect(t.input.raw).toBe(false);
		expect(t.written().endsWith("\r\u001b[2K")).toBe(true);
	});

	it("is not drawn where the input is not a terminal", () => {
		const t = terminal();
		(t.input as { isTTY: boolean }).isTTY = false;
		expect(EarlyPrompt.draw(t.term, true)).toBeUndefined();
		expect(t.written()).toBe("");
	});
});
