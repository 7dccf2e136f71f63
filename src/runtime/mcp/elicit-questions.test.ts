import { describe, expect, it } from "vitest";
import type { McpElicitation } from "../../providers/mcp/mcp-types.js";
import { elicitByQuestions, elicitFields, fieldValue } from "./elicit-questions.js";

const SCHEMA = {
	type: "object",
	properties: {
		name: { type: "string", title: "Name", description: "Your full name" },
		check: { type: "boolean" },
		count: { type: "integer", default: 42 },
		hero: { type: "string", oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2" }] },
		fish: { type: "array", items: { anyOf: [{ const: "fish-1" }, { const: "fish-2" }] } },
	},
	required: ["name"],
};

const request: McpElicitation = { server: "everything", message: "Please provide inputs", requestedSchema: SCHEMA };

/** Answers the questions in order, and keeps what was asked. */
function scripted(answers: (string | undefined)[]) {
	const asked: string[] = [];
	const ask = async (question: string) => {
		asked.push(question);
		return answers.shift();
	};
	return { asked, ask };
}

describe("an elicitation asked as questions", () => {
	it("reads the fields of a requested schema with their types, choices, defaults and whether they are required", () => {
		expect(elicitFields(SCHEMA).map((f) => [f.name, f.type, f.required, f.choices, f.default])).toEqual([
			["name", "string", true, undefined, undefined],
			["check", "boolean", false, undefined, undefined],
			["count", "integer", false, undefined, 42],
			["hero", "string", false, ["hero-1", "hero-2"], undefined],
			["fish", "string[]", false, ["fish-1", "fish-2"], undefined],
		]);
	});

	it("takes each typed answer as its field's type, and says what was wrong with one that is not", () => {
		const [name, check, count, hero, fish] = elicitFields(SCHEMA);
		expect(fieldValue(name!, "")).toEqual({ error: "name is required" });
		expect(fieldValue(check!, "yes")).toEqual({ value: true });
		expect(fieldValue(check!, "")).toEqual({ value: undefined });
		expect(fieldValue(count!, "")).toEqual({ value: 42 });
		expect(fieldValue(count!, "4.5")).toEqual({ error: "count takes a whole number" });
		expect(fieldValue(hero!, "hero-3")).toEqual({ error: "hero takes one of hero-1, hero-2" });
		expect(fieldValue(fish!, "fish-2, fish-1")).toEqual({ value: ["fish-2", "fish-1"] });
	});

	it("shows the server's message and fields first; yes then one answer a field gives the content", async () => {
		const { asked, ask } = scripted(["yes", "Ada Lovelace", "y", "", "hero-2", "fish-1"]);
		const answer = await elicitByQuestions(ask)(request, new AbortController().signal);
		expect(answer).toEqual({ action: "accept", content: { name: "Ada Lovelace", check: true, count: 42, hero: "hero-2", fish: ["fish-1"] } });
		expect(asked[0]).toBe("MCP server everything asks for input: Please provide inputs — it asks for: name (required), check, count, hero, fish. Answer it? (yes, or anything else to decline)");
		expect(asked[1]).toBe("name (string; required) — Name: Your full name");
	});

	it("anything but yes declines; a wrong answer is asked again, three wrong ones decline; a withdrawn ask cancels", async () => {
		const signal = new AbortController().signal;
		expect(await elicitByQuestions(scripted(["no"]).ask)(request, signal)).toEqual({ action: "decline" });
		const again = scripted(["yes", "", "Ada"]);
		const retried = await elicitByQuestions(again.ask)(request, signal);
		expect(again.asked[2]).toMatch(/^name is required\. name \(string/);
		expect(retried.action).toBe("cancel");
		expect(await elicitByQuestions(scripted(["yes", "", "", ""]).ask)(request, signal)).toEqual({ action: "decline" });
		expect(await elicitByQuestions(scripted([undefined]).ask)(request, signal)).toEqual({ action: "cancel" });
	});
});
