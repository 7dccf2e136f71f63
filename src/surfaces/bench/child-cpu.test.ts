import { describe, expect, it } from "vitest";
import { childrenTicks, cpuSince, cpuSnapshot, machineTicks } from "./child-cpu.js";

// Fields 1–17 of a /proc/<pid>/stat line: cutime is 31, cstime 9; the name holds a space and a ")".
const STAT = "4242 (node a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 57 12 31 9 20 0 11 0 123";
const PROC_STAT = "cpu  100 5 40 800 20 1 2 3 0 0\ncpu0 50 2 20 400 10 0 1 1 0 0\nintr 1 2 3\n";

describe("childrenTicks", () => {
	it("adds cutime and cstime, counted after the last ')' of the command name", () => {
		expect(childrenTicks(STAT)).toBe(40);
	});
	const bad: { name: string; stat: string }[] = [
		{ name: "no command name", stat: "4242 S 1" },
		{ name: "too few fields", stat: "4242 (node) S 1 2 3" },
	];
	for (const { name, stat } of bad) {
		it(`is undefined for ${name}`, () => {
			expect(childrenTicks(stat)).toBeUndefined();
		});
	}
});

describe("machineTicks", () => {
	it("counts idle and iowait as idle and the rest up to steal as busy, from the aggregate line", () => {
		expect(machineTicks(PROC_STAT)).toEqual({ busy: 100 + 5 + 40 + 1 + 2 + 3, idle: 800 + 20 });
	});
	it("is undefined without a whole aggregate line", () => {
		expect(machineTicks("cpu0 1 2 3\n")).toBeUndefined();
		expect(machineTicks("cpu  1 2 3\n")).toBeUndefined();
	});
});

describe("cpuSnapshot and cpuSince", () => {
	it("turns ticks into microseconds and says what the children spent and how busy the cores were in between", () => {
		const before = cpuSnapshot((path) => (path === "/proc/self/stat" ? STAT : PROC_STAT));
		expect(before).toEqual({ childrenUs: 400_000, machineBusyUs: 1_510_000, machineIdleUs: 8_200_000 });
		const after = { childrenUs: 1_400_000, machineBusyUs: 3_010_000, machineIdleUs: 8_700_000 };
		expect(cpuSince(before, after)).toEqual({ childrenUs: 1_000_000, machineBusyFraction: 0.75 });
	});
	it("is undefined where /proc cannot be read, and so is what is built on it", () => {
		const none = cpuSnapshot(() => {
			throw new Error("ENOENT");
		});
		expect(none).toBeUndefined();
		expect(cpuSince(none, none)).toBeUndefined();
	});
});
