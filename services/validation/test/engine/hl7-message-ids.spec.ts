import { expect } from 'chai';
import { canonicalMessageId, HL7_MESSAGE_IDS, possibleMessageIds } from '#validation/domain/engine/message-ids.js';
import { MESSAGES, type MessageId } from '#validation/domain/engine/messages.js';
import declared from '#validation/domain/engine/wordings/hl7-message-ids.json' with { type: 'json' };
import { MESSAGE_WORDINGS, wordedTemplate } from '#validation/domain/engine/wording.js';
import { TERMINOLOGY_MESSAGES } from '#validation/domain/terminology/terminology-messages.js';

/** Ids the HL7 validator's Messages.properties declare, with the versions read (wordings/hl7-message-ids.json). */
const HL7_IDS = declared.ids as Record<string, string[]>;
const engineKeys = Object.keys(MESSAGES) as MessageId[];
const oursKeys = engineKeys.filter((key) => { const s = HL7_MESSAGE_IDS[key]; return s !== undefined && typeof s !== 'string' && !('byArg' in s); });

describe('engine: HL7 message ids on issues', () => {
  it('every id an engine message can carry is one HL7 declares, or the engine key of a message marked ours', () => {
    const unclaimed: string[] = [];
    for (const key of engineKeys) {
      for (const id of possibleMessageIds(key)) {
        const ours = id === key && HL7_MESSAGE_IDS[key] !== undefined && typeof HL7_MESSAGE_IDS[key] !== 'string';
        if (!ours && !Object.hasOwn(HL7_IDS, id)) unclaimed.push(`${key} -> ${id}`);
      }
    }
    expect(unclaimed).to.deep.equal([]);
  });

  it('every id a terminology message carries is one HL7 declares', () => {
    expect(Object.keys(TERMINOLOGY_MESSAGES).map((key) => canonicalMessageId(key).replace(/_(one|other)$/, '')).filter((id) => !Object.hasOwn(HL7_IDS, id))).to.deep.equal([]);
  });

  it('an id marked ours is never one HL7 declares (it would be passed off as HL7\'s)', () => {
    expect(oursKeys.length).to.be.greaterThan(0);
    expect(oursKeys.filter((key) => Object.hasOwn(HL7_IDS, key))).to.deep.equal([]);
  });

  it('every claimed id names the HL7 versions that declare it', () => {
    const versions = Object.keys(declared.versions).filter((v) => v !== 'plural');
    expect(Object.entries(HL7_IDS).filter(([, v]) => v.length === 0 || v.some((x) => !versions.includes(x)))).to.deep.equal([]);
  });

  it('each wording has a template for every message, with the same placeholders as the other wording uses at most', () => {
    for (const key of [...engineKeys, ...Object.keys(TERMINOLOGY_MESSAGES)]) {
      for (const wording of MESSAGE_WORDINGS) expect(wordedTemplate(key, wording), `${wording} ${key}`).to.be.a('string');
    }
    // a template that uses an argument the engine does not pass would print a bare {n}
    const arity = (t: string) => Math.max(-1, ...[...t.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1])));
    const wider = engineKeys.filter((key) => MESSAGE_WORDINGS.some((w) => arity(wordedTemplate(key, w)!) > Math.max(arity(MESSAGES[key].text), ...MESSAGE_WORDINGS.map((x) => (x === w ? -1 : arity(wordedTemplate(key, x)!))))));
    expect(wider).to.deep.equal([]);
  });

  it('reads an engine key stored before issues carried HL7 ids as the HL7 id, and leaves other ids alone', () => {
    expect(canonicalMessageId('EXTENSION_UNKNOWN')).to.equal('Extension_EXT_Unknown_NotHere');
    expect(canonicalMessageId('Extension_EXT_Unknown_NotHere')).to.equal('Extension_EXT_Unknown_NotHere');
    expect(canonicalMessageId('Terminology_TX_System_NotKnown')).to.equal('UNKNOWN_CODESYSTEM');
    expect(canonicalMessageId('VALIDATION_TIMEOUT')).to.equal('VALIDATION_TIMEOUT');
    expect(canonicalMessageId('toString')).to.equal('toString');
  });
});
