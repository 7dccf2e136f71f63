import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { goneReason, heldByMessage, type LeaseHolder, type LivenessProbe, processAlive, processStartTime } from "./process-lease.js";

const HOST = "host-a";
const NOW = new Date("2025-05-01T10:00:00.000Z");
const holder = (over: Partial<LeaseHolder> = {}): LeaseHolder => ({
	token: "t1",
	pid: 4242,
	pid_start: "1000",
	hostname: HOST,
	started_at: "2025-05-01T09:00:00.000Z",
	heartbeat_at: "2025-05-01T09:59:50.000Z",
	...over,
});
const probe = (over: Partial<LivenessProbe> = {}): LivenessProbe => ({
	hostname: HOST,
	isAlive: () => true,
	startTime: () => "1000",
	now: () => NOW,
	staleAfterMs: 60_000,
	...over,
});
const EXPIRED = "2025-05-01T09:58:00.000Z";

/** One row per way a holder is judged: what is known of it, and the verdict. */
const CASES: { name: string; holder: Partial<LeaseHolder>; probe: Partial<LivenessProbe>; gone: ReturnType<typeof goneReason> }[] = [
	{ name: "a live pid with its own start time is live", holder: {}, probe: {}, gone: undefined },
	{ name: "a live pid with its own start time is live even past the heartbeat bound (busy, not dead)", holder: { heartbeat_at: EXPIRED }, probe: {}, gone: undefined },
	{ name: "a dead pid is gone", holder: {}, probe: { isAlive: () => false }, gone: "the process is gone" },
	{ name: "a pid reused by a later process (another start time) is gone", holder: {}, probe: { startTime: () => "2000" }, gone: "its pid now belongs to another process" },
	{ name: "a live pid without a known start time is live while it beats", holder: { pid_start: undefined }, probe: {}, gone: undefined },
	{ name: "a live pid without a known start time is gone once its heartbeat expired", holder: { pid_start: undefined, heartbeat_at: EXPIRED }, probe: {}, gone: "its heartbeat expired" },
	{ name: "another host's holder is live while it beats (its pid cannot be probed)", holder: { hostname: "host-b" }, probe: { isAlive: () => false }, gone: undefined },
	{ name: "another host's holder is gone once its heartbeat expired", holder: { hostname: "host-b", heartbeat_at: EXPIRED }, probe: {}, gone: "its heartbeat expired" },
];

describe("goneReason", () => {
	for (const c of CASES) {
		it(c.name, () => {
			expect(goneReason(holder(c.holder), probe(c.probe))).toBe(c.gone);
		});
	}
});

describe("heldByMessage", () => {
	it("names the holder's pid and since when, and its host when it is another", () => {
		expect(heldByMessage("session s1", holder(), HOST)).toBe("session s1 is in use by another Warden process (pid 4242 since 2025-05-01T09:00:00.000Z)");
		expect(heldByMessage("session s1", holder({ hostname: "host-b" }), HOST)).toBe(
			"session s1 is in use by another Warden process (pid 4242 on host-b since 2025-05-01T09:00:00.000Z)",
		);
	});
});

describe("process probes", () => {
	it.runIf(process.platform === "linux")("reads a pid's start time, which differs between two processes and is stable for one", async () => {
		const own = processStartTime(process.pid);
		expect(own).toMatch(/^\d+$/);
		expect(processStartTime(process.pid)).toBe(own);
		const child = spawn("sleep", ["5"]);
		try {
			const pid = child.pid as number;
			expect(processAlive(pid)).toBe(true);
			expect(processStartTime(pid)).toMatch(/^\d+$/);
		} finally {
			child.kill("SIGKILL");
		}
		await new Promise((resolve) => child.on("exit", resolve));
		expect(processAlive(child.pid as number)).toBe(false);
		expect(processStartTime(child.pid as number)).toBeUndefined();
	});
});
