/**
 * sha256 as lowercase hex, one call per text. Node's one-shot crypto.hash (20.12 on) skips the Hash
 * object createHash builds, a third of the cost of hashing a few hundred bytes; older Node 20s,
 * which the engines field still admits, get the same digest the long way.
 */
import * as crypto from "node:crypto";

export const sha256Hex: (text: string) => string =
	typeof crypto.hash === "function"
		? (text) => crypto.hash("sha256", text)
		: (text) => crypto.createHash("sha256").update(text).digest("hex");
