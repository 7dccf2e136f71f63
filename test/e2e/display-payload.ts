/**
 * Text a model could put in front of a person to act on their terminal or hide what runs: a window
 * title (OSC 0), a clipboard write (OSC 52), concealed text (SGR 8), backspaces and an erase-line
 * that draw over a command, a bidi override, a zero-width space, a C1 CSI, and an
 * OSC left open to swallow what follows. (A carriage return in a command is refused by the shell
 * parser before anything is asked, so the command carries none; the unit and property tests cover it.)
 */
export const HIDDEN_TOUCH = "touch hidden-by-escape";
export const PAYLOAD = `echo greeting\u001b]0;owned-title\u0007\u001b]52;c;dG91Y2ggb3duZWQ=\u0007\u001b[8m; ${HIDDEN_TOUCH}\u001b[0m\b\b\b\b\u001b[2KX\u202etxt.exe\u200b\u009b2J\u001b]2;open`;

/** Every character of the payload a surface must not pass through raw. */
export const RAW_HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202e]/u;

/** How the payload's pieces look once spelled by the display rule. */
export const SPELLED = ["\\x1b]0;owned-title\\x07", "\\x1b]52;c;", "\\x1b[8m", "\\x08\\x08\\x08\\x08\\x1b[2KX", "\\u{202e}txt.exe\\u{200b}", "\\x9b2J", HIDDEN_TOUCH];
