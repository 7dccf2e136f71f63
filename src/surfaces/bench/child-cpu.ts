/**
 * CPU time of reaped child processes and of the whole machine, from Linux's /proc: a benchmark
 * that spawns processes reads both before and after, and the differences say how much CPU its
 * children spent and how busy all cores were meanwhile (its own children's and anyone else's).
 * Off Linux (no /proc) both read as undefined, and the figures built on them are left out.
 */
import { readFileSync } from "node:fs";

/** Linux reports both files in USER_HZ ticks, fixed at 100 a second for user space. */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
	/** User + system CPU of this process's children that have been waited for (cutime + cstime), in µs. */
	childrenUs: number;
	/** Busy and idle time summed over all cores (the `cpu` line of /proc/stat), in µs. */
	machineBusyUs: number;
	machineIdleUs: number;
}

export function cpuSnapshot(readText: (path: string) => string = (path) => readFileSync(path, "utf8")): CpuSnapshot | undefined {
	let stat: string;
	let machine: string;
	try {
		stat = readText("/proc/self/stat");
		machine = readText("/proc/stat");
	} catch {
		return undefined;
	}
	const children = childrenTicks(stat);
	const cores = machineTicks(machine);
	if (children === undefined || cores === undefined) return undefined;
	const us = (ticks: number) => (ticks * 1e6) / TICKS_PER_SECOND;
	return { childrenUs: us(children), machineBusyUs: us(cores.busy), machineIdleUs: us(cores.idle) };
}

/** cutime + cstime: fields 16 and 17 of /proc/<pid>/stat, counted after the ")" that ends the command name (which may hold spaces). */
export function childrenTicks(stat: string): number | undefined {
	const close = stat.lastIndexOf(")");
	if (close < 0) return undefined;
	// After ")" come field 3 (state) onwards: field n is at index n - 3.
	const fields = stat.slice(close + 1).trim().split(/\s+/);
	const cutime = Number(fields[16 - 3]);
	const cstime = Number(fields[17 - 3]);
	return Number.isFinite(cutime) && Number.isFinite(cstime) ? cutime + cstime : undefined;
}

/** The aggregate `cpu` line: idle + iowait are idle, the rest up to steal is busy (guest time is already inside user). */
export function machineTicks(procStat: string): { busy: number; idle: number } | undefined {
	const line = procStat.split("\n").find((l) => l.startsWith("cpu "));
	if (!line) return undefined;
	const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number);
	const values = [user, nice, system, idle, iowait, irq, softirq, steal];
	if (values.some((v) => v === undefined || !Number.isFinite(v))) return undefined;
	return { busy: user! + nice! + system! + irq! + softirq! + steal!, idle: idle! + iowait! };
}

/** What changed between two snapshots. */
export function cpuSince(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined): { childrenUs: number; machineBusyFraction: number } | undefined {
	if (!before || !after) return undefined;
	const busy = after.machineBusyUs - before.machineBusyUs;
	const all = busy + after.machineIdleUs - before.machineIdleUs;
	return { childrenUs: after.childrenUs - before.childrenUs, machineBusyFraction: all > 0 ? busy / all : 0 };
}
