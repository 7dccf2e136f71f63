/**
 * Whether an elicitation's accepted content is what the server asked for: checked against its
 * requested schema before anything is handed to the server, so a surface that sends a wrong type or
 * leaves out a required field is told in one line and the ask stays open for a right answer.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";

function describe(err: ErrorObject): string {
	const at = err.instancePath === "" ? "" : `${err.instancePath.slice(1)} `;
	if (err.keyword === "required") return `${String(err.params.missingProperty)} is required`;
	if (err.keyword === "additionalProperties") return `${String(err.params.additionalProperty)} is not a field it asked for`;
	return `${at}${err.message ?? "is invalid"}`.trim();
}

/** Why `content` does not fit `schema`, in one line; undefined when it does. */
export function elicitContentProblem(schema: Record<string, unknown>, content: unknown): string | undefined {
	if (typeof content !== "object" || content === null || Array.isArray(content)) return "the content must be a JSON object of the fields asked for";
	// A fresh validator each time: a server's schema is its own (its `$id`s and keywords), and this runs once per answer.
	// Not strict: servers add keywords of their own (`enumNames`); formats are the server's to check.
	const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, logger: false });
	let validate: ReturnType<Ajv2020["compile"]>;
	try {
		validate = ajv.compile(schema);
	} catch (err) {
		return `the server's schema cannot be checked: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`;
	}
	if (validate(content)) return undefined;
	const first = validate.errors?.[0];
	return first ? `the content does not fit what the server asked for: ${describe(first)}` : "the content does not fit what the server asked for";
}
