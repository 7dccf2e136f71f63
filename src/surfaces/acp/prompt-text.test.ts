import { describe, expect, it } from "vitest";
import { modeState } from "./acp-modes.js";
import { promptText, UnsupportedPromptError } from "./prompt-text.js";
import { slashCommand } from "./slash-commands.js";

describe("prompt content as turn text", () => {
	it("joins text, embedded text resources with their URI, and links", () => {
		expect(
			promptText([
				{ type: "text", text: "fix this" },
				{ type: "resource", resource: { uri: "file:///w/a.ts", text: "let x = 1" } },
				{ type: "resource_link", uri: "file:///w/b.ts", name: "b.ts" },
			]),
		).toBe('fix this\n\n<context uri="file:///w/a.ts">\nlet x = 1\n</context>\n\n(see file:///w/b.ts)');
	});
	it("refuses what it does not advertise (images, audio, binary resources) rather than dropping it", () => {
		expect(() => promptText([{ type: "image", data: "AAAA", mimeType: "image/png" }])).toThrow(UnsupportedPromptError);
		expect(() => promptText([{ type: "resource", resource: { uri: "file:///w/x.bin", blob: "AAAA" } }])).toThrow("binary resource (file:///w/x.bin)");
	});
});

describe("slash commands and modes", () => {
	it("a prompt that is exactly /audit or /budget is that command; anything else is a turn", () => {
		expect(slashCommand("/audit")?.command.name).toBe("audit");
		expect(slashCommand("  /budget \n")?.command.name).toBe("budget");
		expect(slashCommand("/audit everything")).toBeUndefined();
		expect(slashCommand("/deploy")).toBeUndefined();
		expect(slashCommand("please /audit")).toBeUndefined();
	});
	it("every permission mode is a session mode, the current one marked", () => {
		const state = modeState("plan");
		expect(state.currentModeId).toBe("plan");
		expect(state.availableModes.map((m) => m.id)).toEqual(["read-only", "workspace-write", "full-access", "plan"]);
		for (const mode of state.availableModes) expect(mode.name).not.toBe("");
	});
	it("with a mode the host named, only modes no looser than it are offered", () => {
		expect(modeState("plan", "read-only").availableModes.map((m) => m.id)).toEqual(["read-only", "plan"]);
		expect(modeState("workspace-write", "workspace-write").availableModes.map((m) => m.id)).toEqual(["read-only", "workspace-write", "plan"]);
		expect(modeState("full-access", "full-access").availableModes).toHaveLength(4);
	});
});
