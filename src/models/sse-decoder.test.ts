import { describe, expect, it } from "vitest";
import { SseDecoder } from "./sse-decoder.js";

describe("SseDecoder", () => {
	it("delivers data payloads only when their event is complete", () => {
		const sse = new SseDecoder();
		expect(sse.push('data: {"a":')).toEqual([]);
		expect(sse.push("1}\n")).toEqual([]);
		expect(sse.push("\ndata: [DONE]\n\n")).toEqual(['{"a":1}', "[DONE]"]);
	});

	it("joins multi-line data, skips comments and other fields, and accepts any line ending", () => {
		const sse = new SseDecoder();
		const events = sse.push(": keep-alive\r\nevent: message\r\nid: 7\r\ndata: one\r\ndata:two\r\n\r\ndata: three\r\r\n");
		expect(events).toEqual(["one\ntwo", "three"]);
	});

	it("does not split an event when a CRLF is cut between two chunks", () => {
		const sse = new SseDecoder();
		expect(sse.push("data: a\r")).toEqual([]);
		expect(sse.push("\ndata: b\r\n\r\n")).toEqual(["a\nb"]);
	});

	it("delivers a final event the server did not close with a blank line", () => {
		const sse = new SseDecoder();
		expect(sse.push("data: last")).toEqual([]);
		expect(sse.finish()).toEqual(["last"]);
		expect(sse.finish()).toEqual([]);
	});
});
