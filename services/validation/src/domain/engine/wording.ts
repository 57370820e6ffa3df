/**
 * Which wording the engine's messages are written in: the texts of the HAPI validator that Link Cloud
 * embeds (`hapi`, the default: the wording its exported categories match) or the newest HL7
 * validator's (`hl7`). Each wording is a catalogue of templates (wordings/*.json: message → template,
 * derived from the two validators' Messages.properties, docs/message-wording.md); the message id an
 * issue carries (message-ids.ts) is the same in both, so a rule that selects by id does not depend
 * on the wording.
 *
 * The wording is a setting of the whole process, as the HL7 validator's locale is: it is chosen once
 * at start-up (service configuration, CLI flag, each worker thread from its setup) and read by every
 * message formatted afterwards, terminology answers included, which are worded far from any
 * per-call options.
 */
import hapi from './wordings/hapi.json' with { type: 'json' };
import hl7 from './wordings/hl7.json' with { type: 'json' };

export const MESSAGE_WORDINGS = ['hapi', 'hl7'] as const;
export type MessageWording = (typeof MESSAGE_WORDINGS)[number];
export const DEFAULT_MESSAGE_WORDING: MessageWording = 'hapi';

const CATALOGUES: Readonly<Record<MessageWording, Readonly<Record<string, string>>>> = { hapi, hl7 };

let active: MessageWording = DEFAULT_MESSAGE_WORDING;

export function isMessageWording(value: unknown): value is MessageWording {
  return typeof value === 'string' && MESSAGE_WORDINGS.some((w) => w === value);
}

/** Sets the wording of every message formatted from now on in this thread. */
export function setMessageWording(wording: MessageWording): void {
  active = wording;
}

export function messageWording(): MessageWording {
  return active;
}

/** The template of a message in a wording (the active one by default); undefined when the catalogue lacks it. */
export function wordedTemplate(message: string, wording: MessageWording = active): string | undefined {
  return Object.hasOwn(CATALOGUES[wording], message) ? CATALOGUES[wording][message] : undefined;
}

/** Fills a template's {n} placeholders; a missing argument leaves the placeholder. */
export function fillTemplate(template: string, args: readonly unknown[]): string {
  if (args.length === 0) return template;
  // linear: '{', digits, '}' (on our own templates)
  return template.replace(/\{(\d+)\}/g, (m, n: string) => {
    const i = Number(n);
    return i < args.length ? String(args[i]) : m;
  });
}
