import { describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { renderEvent } from "./render-event.js";

const activated = (payload: Partial<Extract<AnyWardenEvent, { kind: "skill.activated" }>["payload"]>): AnyWardenEvent => ({
	kind: "skill.activated",
	session: "s1",
	turn: 1,
	time: "2026-12-02T00:00:00.000Z",
	payload: { call_id: "call_1_1_1", name: "deploy", source: "workspace", file: "/ws/.agents/skills/deploy/SKILL.md", sha256: "0".repeat(64), trusted: false, files: 2, ...payload },
});

describe("renderEvent: skill.activated", () => {
	it("names the call, the skill, its source and trust", () => {
		expect(renderEvent(activated({}))).toBe("    ✦ call_1_1_1 skill deploy active (workspace, untrusted)");
	});
	it("shows allowed-tools as the skill wrote it", () => {
		expect(renderEvent(activated({ source: "user", trusted: true, allowed_tools: ["Read", "Bash(git status:*)"] }))).toBe("    ✦ call_1_1_1 skill deploy active (user, trusted, allowed-tools Read Bash(git status:*))");
	});
});
