/** The message of something thrown: an Error's message, else the value as text (JSON.parse and the stream libraries throw Errors; a caller's callback may throw anything). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
