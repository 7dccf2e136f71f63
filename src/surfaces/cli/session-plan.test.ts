import { describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { renderPlan, sessionPlan } from "./session-plan.js";

const started = (mode: string) => ({ kind: "session.started", session: "s", turn: 0, time: "", payload: { event_schema: "1.0", workspace: "/w", mode, model: "m", resumed: false } });
const done = (turn: number, text: string, status = "completed") => ({ kind: "turn.completed", session: "s", turn, time: "", payload: { status, text, steps: 1 } });

describe("sessionPlan", () => {
	it.each([
		["the last completed answer in plan mode", [started("plan"), done(1, "first"), done(2, "1. edit a\n2. test")], "1. edit a\n2. test"],
		["no plan outside plan mode", [started("workspace-write"), done(1, "did it")], undefined],
		["the plan survives a later run in workspace-write", [started("plan"), done(1, "the plan"), started("workspace-write"), done(2, "carried out")], "the plan"],
		["a cancelled turn is no plan", [started("plan"), done(1, "partial", "cancelled")], undefined],
	])("%s", (_name, events, plan) => {
		expect(sessionPlan(events as AnyWardenEvent[])).toBe(plan);
	});

	it("prints it indented under its heading", () => {
		expect(renderPlan("a\nb")).toBe("  plan (the last answer in plan mode):\n    a\n    b\n");
	});
});
