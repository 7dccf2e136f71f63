import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./sha256.js";

describe("sha256Hex", () => {
	it.each([
		["empty text", ""],
		["ASCII", "The model proposes; the host decides."],
		["text beyond ASCII, hashed as UTF-8", "héllo 😀 \u2028"],
		["a lone surrogate, as createHash encodes it", "\ud800x"],
		["bytes", new Uint8Array([0, 1, 2, 255])],
		["a Buffer", Buffer.from("x".repeat(5000))],
	])("%s: the digest createHash gives", (_name, data) => {
		expect(sha256Hex(data)).toBe(createHash("sha256").update(data).digest("hex"));
	});
});
