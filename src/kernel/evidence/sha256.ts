/**
 * sha256 hex of text (as UTF-8) or bytes, in one call. Every governed call hashes a dozen small
 * things (each audit record's link, the file read, the request's fresh messages, the manifest):
 * Node's one-shot crypto.hash (Node 20.12 and later) skips the Hash object createHash builds for
 * each, about half the cost at these sizes. An older Node takes the Hash object; the digest is the same.
 */
import * as crypto from "node:crypto";

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: "hex") => string;

const oneShot = (crypto as { hash?: OneShot }).hash;

export const sha256Hex: (data: string | Uint8Array) => string =
	typeof oneShot === "function" ? (data) => oneShot("sha256", data, "hex") : (data) => crypto.createHash("sha256").update(data).digest("hex");
