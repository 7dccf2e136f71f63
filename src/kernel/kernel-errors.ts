/**
 * Failures of a kernel primitive that the model caused or can act on (a missing file, a binary
 * file, a file too large). Each carries one line naming the workspace-relative path, never the
 * host's absolute path.
 */
import { WorkspaceEscapeError } from "./primitives.js";

/** A filesystem primitive failed on a path inside the workspace. */
export class FsPrimitiveError extends Error {
	override name = "FsPrimitiveError";
}

/** fs.read refused a file that contains a NUL byte. */
export class BinaryFileError extends FsPrimitiveError {
	override name = "BinaryFileError";
}

/** fs.read refused a file larger than the limit. */
export class FileTooLargeError extends FsPrimitiveError {
	override name = "FileTooLargeError";
}

/** A path that is empty or contains a NUL byte: refused before it can reach the filesystem. */
export class InvalidPathError extends WorkspaceEscapeError {
	override name = "InvalidPathError";
}

/** The call was cancelled before the primitive touched anything. */
export class PrimitiveCancelledError extends Error {
	override name = "PrimitiveCancelledError";
}
