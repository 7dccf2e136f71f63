/** The page's calls to its own server: same origin, the cookie the token was exchanged for, JSON. */
import type { ErrorBody } from "../../src/surfaces/console/console-types.js";

export class ApiError extends Error {}

async function read<T>(response: Response): Promise<T> {
	const body = (await response.json().catch(() => ({ error: `HTTP ${response.status}` }))) as T | ErrorBody;
	if (!response.ok) throw new ApiError((body as ErrorBody).error ?? `HTTP ${response.status}`);
	return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
	return read<T>(await fetch(path, { headers: { accept: "application/json" } }));
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
	return read<T>(await fetch(path, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) }));
}

/** A query string of the set fields only. */
export function query(fields: Record<string, string | number | undefined>): string {
	const params = new URLSearchParams();
	for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== "") params.set(name, String(value));
	const text = params.toString();
	return text === "" ? "" : `?${text}`;
}
