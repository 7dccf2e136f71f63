/**
 * A client of a running console over plain HTTP: it exchanges the printed URL's token for the
 * cookie, then reads the API and follows the live feed as Server-Sent Events. The benchmark uses it
 * to time the feed, and the tests to check what a browser would get.
 */
import { request } from "node:http";

export interface SseMessage {
	id?: string;
	event: string;
	data: string;
}

export interface SseStream {
	/** Ends the connection, as a browser tab closing would. */
	close(): void;
	/** Resolves when the server has answered (the feed is following from then on); rejects on a refusal. */
	opened: Promise<void>;
	/** Resolves when the server ends the stream or the connection fails. */
	closed: Promise<void>;
}

export class ConsoleClient {
	private constructor(
		readonly origin: string,
		readonly cookie: string,
	) {}

	/** Opens the URL `warden console` printed and keeps the cookie it sets. */
	static async login(url: string): Promise<ConsoleClient> {
		const target = new URL(url);
		const { status, headers } = await exchange(target, {});
		const set = headers["set-cookie"]?.[0];
		if (status !== 303 || set === undefined) throw new Error(`the console refused the token: HTTP ${status}`);
		return new ConsoleClient(target.origin, set.split(";")[0]!);
	}

	async get<T>(path: string): Promise<T> {
		const { status, body } = await exchange(new URL(path, this.origin), { cookie: this.cookie });
		if (status !== 200) throw new Error(`GET ${path}: HTTP ${status} ${body}`);
		return JSON.parse(body) as T;
	}

	/** Follows an SSE route; `lastEventId` resumes after that id, as a reconnecting EventSource does. */
	stream(path: string, onMessage: (message: SseMessage) => void, lastEventId?: string): SseStream {
		const url = new URL(path, this.origin);
		let done: () => void = () => {};
		const closed = new Promise<void>((resolve) => {
			done = resolve;
		});
		let open: (error?: Error) => void = () => {};
		const opened = new Promise<void>((resolve, reject) => {
			open = (error) => (error === undefined ? resolve() : reject(error));
		});
		// A stream closed before its answer came is not a refusal worth reporting.
		opened.catch(() => {});
		const req = request(url, { headers: { cookie: this.cookie, accept: "text/event-stream", ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) } }, (res) => {
			open(res.statusCode === 200 ? undefined : new Error(`GET ${path}: HTTP ${res.statusCode}`));
			res.setEncoding("utf8");
			let buffer = "";
			let message: SseMessage = { event: "message", data: "" };
			let hasData = false;
			res.on("data", (chunk: string) => {
				buffer += chunk;
				for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
					const line = buffer.slice(0, end).replace(/\r$/, "");
					buffer = buffer.slice(end + 1);
					if (line === "") {
						if (hasData) onMessage({ ...message, data: message.data.replace(/\n$/, "") });
						message = { event: "message", data: "" };
						hasData = false;
					} else if (!line.startsWith(":")) {
						const colon = line.indexOf(":");
						const field = colon < 0 ? line : line.slice(0, colon);
						const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
						if (field === "data") {
							message.data += `${value}\n`;
							hasData = true;
						} else if (field === "id") message.id = value;
						else if (field === "event") message.event = value;
					}
				}
			});
			res.on("end", done);
			res.on("close", done);
		});
		req.on("error", (error) => {
			open(error);
			done();
		});
		req.end();
		return { close: () => req.destroy(), opened, closed };
	}
}

function exchange(url: URL, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string[] | undefined>; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request(url, { headers }, (res) => {
			let body = "";
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				body += chunk;
			});
			res.on("end", () => {
				const set = res.headers["set-cookie"];
				resolve({ status: res.statusCode ?? 0, headers: { "set-cookie": set }, body });
			});
		});
		req.on("error", reject);
		req.end();
	});
}
