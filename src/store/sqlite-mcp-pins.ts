/** The `mcp_pins` (schema version 9) and `mcp_refusals` (12) tables in SQLite: each write one short IMMEDIATE transaction. */
import type { Statement } from "better-sqlite3";
import type { McpPinFilter, McpPinRow, McpPinStore, McpRefusalRow, NewMcpPin, NewMcpRefusal } from "./mcp-pins.js";

export interface SqliteAccess {
	sql(source: string): Statement<unknown[]>;
	immediate<T>(body: () => T): T;
	/** Throws when the store was opened read-only. */
	writable(): void;
}

const WHERE = `(@workspace IS NULL OR workspace = @workspace) AND (@server IS NULL OR server = @server)
	AND (@tool IS NULL OR tool = @tool) AND (@all = 1 OR revoked_at IS NULL)`;

function params(filter: McpPinFilter) {
	return { workspace: filter.workspace ?? null, server: filter.server ?? null, tool: filter.tool ?? null, all: filter.includeRevoked ? 1 : 0 };
}

export class SqliteMcpPins implements McpPinStore {
	constructor(private readonly db: SqliteAccess) {}

	async put(pin: NewMcpPin): Promise<McpPinRow> {
		this.db.writable();
		return this.db.immediate(() => {
			this.db
				.sql("UPDATE mcp_pins SET revoked_at = @approved_at, revoked_by = @approved_by WHERE workspace = @workspace AND server = @server AND tool = @tool AND revoked_at IS NULL")
				.run(pin);
			// An approval lifts a refusal of the same definition.
			this.db.sql("DELETE FROM mcp_refusals WHERE workspace = @workspace AND server = @server AND tool = @tool AND digest = @digest").run(pin);
			return this.db
				.sql(
					`INSERT INTO mcp_pins (workspace, server, tool, digest, definition, flags, approved_at, approved_by)
					 VALUES (@workspace, @server, @tool, @digest, @definition, @flags, @approved_at, @approved_by) RETURNING *`,
				)
				.get(pin) as McpPinRow;
		});
	}

	async list(filter: McpPinFilter = {}): Promise<McpPinRow[]> {
		return this.db.sql(`SELECT * FROM mcp_pins WHERE ${WHERE} ORDER BY id`).all(params(filter)) as McpPinRow[];
	}

	async revoke(filter: McpPinFilter & { workspace: string; server: string }, at: string, by: string): Promise<McpPinRow[]> {
		this.db.writable();
		return this.db.immediate(
			() =>
				this.db
					.sql(`UPDATE mcp_pins SET revoked_at = @at, revoked_by = @by WHERE ${WHERE} RETURNING *`)
					.all({ ...params({ ...filter, includeRevoked: false }), at, by }) as McpPinRow[],
		);
	}

	async refuse(refusal: NewMcpRefusal): Promise<McpRefusalRow> {
		this.db.writable();
		return this.db.immediate(() => {
			this.db
				.sql(
					`INSERT INTO mcp_refusals (workspace, server, tool, digest, refused_at, refused_by)
					 VALUES (@workspace, @server, @tool, @digest, @refused_at, @refused_by) ON CONFLICT (workspace, server, tool, digest) DO NOTHING`,
				)
				.run(refusal);
			return this.db
				.sql("SELECT * FROM mcp_refusals WHERE workspace = @workspace AND server = @server AND tool = @tool AND digest = @digest")
				.get(refusal) as McpRefusalRow;
		});
	}

	async refusals(filter: { workspace: string; server?: string }): Promise<McpRefusalRow[]> {
		return this.db
			.sql("SELECT * FROM mcp_refusals WHERE workspace = @workspace AND (@server IS NULL OR server = @server) ORDER BY id")
			.all({ workspace: filter.workspace, server: filter.server ?? null }) as McpRefusalRow[];
	}
}
