import { describe, expect, it } from "vitest";
import { contextSettings, DEFAULT_CONTEXT_WINDOW } from "./context-settings.js";

describe("contextSettings", () => {
	it.each([
		["the provider's window wins", { contextWindow: 32_000 }, { window: 1000 }, { window: 32_000, windowSource: "provider", reserve: 4000, limit: 25_600 }],
		["the session's window when the provider knows none", {}, { window: 16_000 }, { window: 16_000, windowSource: "session", reserve: 2000, limit: 12_800 }],
		["the stated default otherwise", {}, {}, { window: DEFAULT_CONTEXT_WINDOW, windowSource: "default", reserve: 1024, limit: 6553 }],
		["a large window keeps at most 4096 for the answer", { contextWindow: 200_000 }, {}, { reserve: 4096, limit: 160_000 }],
		["a threshold near the whole window still keeps the reserve", {}, { window: 10_000, compactAt: 1, reserve: 3000 }, { limit: 7000 }],
	])("%s", (_name, model, options, expected) => {
		expect(contextSettings(model, options)).toMatchObject(expected);
	});

	it.each([
		[{ window: 0 }, "context window must be a positive whole number of tokens, got 0"],
		[{ window: 1.5 }, "context window must be a positive whole number of tokens, got 1.5"],
		[{ compactAt: 0 }, "context compact_at must be a share of the window above 0 and at most 1, got 0"],
		[{ compactAt: 1.2 }, "context compact_at must be a share of the window above 0 and at most 1, got 1.2"],
		[{ window: 1000, reserve: 1000 }, "context reserve (1000 tokens) must be smaller than the window (1000 tokens)"],
	])("refuses %j in one line", (options, message) => {
		expect(() => contextSettings({}, options)).toThrow(message);
	});
});
