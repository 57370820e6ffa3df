/**
 * QuestionnaireResponse against its Questionnaire, and the rules on a Questionnaire itself, as
 * the HL7 validator's QuestionnaireValidator applies them: message ids, severities and
 * locations. Fixtures are hand-written; each response carries its Questionnaire as `#q` unless
 * the test is about finding it.
 */
import { expect } from 'chai';
import type { Issue, ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import type { TerminologyPort, ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, engineKeyOf } from './support/helpers.js';

type Obj = Record<string, unknown>;
const SD = 'http://hl7.org/fhir/StructureDefinition/';
const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const ext = (name: string, value: Obj) => ({ url: name.startsWith('http') ? name : SD + name, ...value });

const idOf = (i: Issue) => engineKeyOf(i) ?? '';
/** The questionnaire rules' issues as `severity id expression`, sorted. */
function found(o: ValidationOutcome): string[] {
  return o.issue.filter((i) => /^(QR_|Q_|VALUE_SET_NOT_FOUND|CANONICAL_WRONG_TYPE)/.test(idOf(i))).map((i) => `${i.severity} ${idOf(i)} ${i.expression?.[0] ?? ''}`).sort();
}

/** A response to the contained Questionnaire `#q` with these items. */
function response(items: Obj[], qItems: Obj[], extra: Obj = {}): Obj {
  return {
    resourceType: 'QuestionnaireResponse', text: narrative, status: 'completed', questionnaire: '#q',
    contained: [{ resourceType: 'Questionnaire', id: 'q', status: 'active', item: qItems }],
    item: items, ...extra,
  };
}

const valueSet = { resourceType: 'ValueSet', url: 'http://example.org/fhir/ValueSet/colours', status: 'active', name: 'Colours', compose: { include: [{ system: 'http://example.org/colour' }] } };
const library = { resourceType: 'Questionnaire', url: 'http://forms.example.net/Questionnaire/lib', version: '2', status: 'active', item: [{ linkId: 'a', type: 'string' }] };

/** Terminology behind the port: code `red` is in every value set, `mauve` cannot be checked, anything else is not in. */
const terminology: TerminologyPort = {
  validateCode: (request): ValidateCodeResult => {
    const code = request.coding?.code;
    return code === 'red' ? { valid: true, issues: [], source: 'local' } : code === 'mauve' ? { valid: undefined, issues: [], source: 'none' } : { valid: false, issues: [], source: 'local' };
  },
};

describe('engine: QuestionnaireResponse against its Questionnaire', function () {
  this.timeout(60_000);
  let v: Validator;
  let rest: Validator;
  before(async () => {
    const source = await sourceWith([valueSet, library]);
    v = new Validator(source, terminology);
    rest = new Validator(source, terminology, { assumeValidRestReferences: true });
  });
  const check = (qr: Obj, validator = v) => {
    const o = validator.validate(qr);
    return { o, f: found(o) };
  };

  describe('finding the Questionnaire', () => {
    it('contained (#id) and loaded by canonical, with or without a version', () => {
      expect(check(response([{ linkId: 'a', answer: [{ valueString: 'x' }] }], [{ linkId: 'a', type: 'string' }])).f).to.deep.equal([]);
      for (const url of ['http://forms.example.net/Questionnaire/lib', 'http://forms.example.net/Questionnaire/lib|2']) {
        const { f } = check({ resourceType: 'QuestionnaireResponse', text: narrative, status: 'completed', questionnaire: url, item: [{ linkId: 'nope' }] });
        expect(f).to.deep.equal(['error QR_LINKID_NOT_FOUND QuestionnaireResponse']);
      }
    });

    it('none named is information; not found a warning at the response (information on example.org); another kind of resource an error', () => {
      const bare = { resourceType: 'QuestionnaireResponse', text: narrative, status: 'completed' };
      expect(check(bare).f).to.deep.equal(['information QR_QUESTIONNAIRE_NONE QuestionnaireResponse']);
      expect(check({ ...bare, questionnaire: 'http://forms.example.net/Questionnaire/none' }).f).to.deep.equal(['warning QR_QUESTIONNAIRE_NOT_FOUND QuestionnaireResponse']);
      expect(check({ ...bare, questionnaire: 'http://example.org/Questionnaire/none' }).f).to.deep.equal(['information QR_QUESTIONNAIRE_NOT_FOUND QuestionnaireResponse']);
      expect(check({ ...bare, questionnaire: valueSet.url }).f).to.deep.equal(['error CANONICAL_WRONG_TYPE QuestionnaireResponse.questionnaire', 'information QR_QUESTIONNAIRE_NOT_FOUND QuestionnaireResponse']);
    });

    it('#id is looked for among the response\'s own contained resources: one of another type is an error, then not found', () => {
      const qr = response([{ linkId: 'a' }], []);
      (qr.contained as [Obj])[0] = { resourceType: 'Basic', id: 'q', code: { text: 'x' } };
      expect(check(qr).f).to.deep.equal(['error QR_CONTAINED_NOT_QUESTIONNAIRE QuestionnaireResponse', 'warning QR_QUESTIONNAIRE_NOT_FOUND QuestionnaireResponse']);
      expect(check({ ...qr, questionnaire: '#other' }).f).to.deep.equal(['warning QR_QUESTIONNAIRE_NOT_FOUND QuestionnaireResponse']);
    });

    it('a response authored outside the effective period is warned about', () => {
      const qr = response([], [], { authored: '2019-05-01' });
      (qr.contained as [Obj])[0].effectivePeriod = { start: '2020-01-01', end: '2021-01-01' };
      expect(check(qr).f).to.deep.equal(['warning QR_AUTHORED_BEFORE_START QuestionnaireResponse.authored']);
      expect(check({ ...qr, authored: '2020-06-01' }).f).to.deep.equal([]);
    });
  });

  describe('answer types', () => {
    const cases: Array<[string, Obj, string | undefined]> = [
      ['boolean', { valueString: 'yes' }, 'QR_ANSWER_TYPE .value.ofType(string)'],
      ['text', { valueString: 'long' }, undefined],
      ['text', { valueInteger: 1 }, 'QR_ANSWER_TYPE .value.ofType(integer)'],
      ['url', { valueUri: 'http://x.org' }, undefined],
      ['url', { valueString: 'http://x.org' }, 'QR_ANSWER_TYPE .value.ofType(string)'],
      ['attachment', { valueCoding: { code: 'x' } }, 'QR_ANSWER_TYPE .value.ofType(Coding)'],
      ['reference', { valueString: 'Patient/1' }, 'QR_ANSWER_TYPE .value.ofType(string)'],
      ['quantity', { valueDecimal: 1 }, 'QR_ANSWER_TYPE .value.ofType(decimal)'],
      ['choice', { valueBoolean: true }, 'QR_ANSWER_TYPES .value.ofType(boolean)'],
      ['open-choice', { valueString: 'free text' }, undefined],
    ];
    for (const [type, answer, expected] of cases) {
      it(`${type} item, ${Object.keys(answer)[0]} answer: ${expected ?? 'accepted'}`, () => {
        const { o, f } = check(response([{ linkId: 'a', answer: [answer] }], [{ linkId: 'a', type, answerOption: type.includes('choice') ? [{ valueString: 'free text' }] : undefined }]));
        const [id, at] = (expected ?? '').split(' ');
        expect(f, describe_(o)).to.deep.equal(expected ? [`error ${id} QuestionnaireResponse.item[0].answer[0]${at}`] : []);
      });
    }

    it('an answer of the wrong type still meets the rules that read any value: string limits, dates read from text, attachment types', () => {
      const q = [
        { linkId: 's', type: 'string', maxLength: 3 },
        { linkId: 'd', type: 'date', repeats: true },
        { linkId: 'f', type: 'attachment', extension: [ext('mimeType', { valueCode: 'image/png' })] },
        { linkId: 'n', type: 'integer', extension: [ext('maxValue', { valueInteger: 1 })] },
      ];
      const { f } = check(response([
        { linkId: 's', answer: [{ valueInteger: 12345 }] },
        { linkId: 'd', answer: [{ valueString: 'yesterday' }, { valueInteger: 2020 }] },
        { linkId: 'f', answer: [{ valueString: 'picture' }] },
        { linkId: 'n', answer: [{ valueDecimal: 7.5 }] },
      ], q));
      expect(f).to.deep.equal([
        'error QR_ANSWER_TYPE QuestionnaireResponse.item[0].answer[0].value.ofType(integer)',
        'error QR_ANSWER_TYPE QuestionnaireResponse.item[1].answer[0].value.ofType(string)',
        'error QR_ANSWER_TYPE QuestionnaireResponse.item[1].answer[1].value.ofType(integer)',
        'error QR_ANSWER_TYPE QuestionnaireResponse.item[2].answer[0].value.ofType(string)',
        'error QR_ANSWER_TYPE QuestionnaireResponse.item[3].answer[0].value.ofType(decimal)',
        'error QR_ATTACHMENT_NO_CONTENT_TYPE QuestionnaireResponse.item[2].answer[0]',
        'error QR_TOO_LONG QuestionnaireResponse.item[0].answer[0].value.ofType(integer)',
        'error QR_VALUE_UNREADABLE QuestionnaireResponse.item[1].answer[0].value.ofType(string)',
      ]);
      // a date out of range is no date either (HAPI's parser refuses it)
      expect(check(response([{ linkId: 'd', answer: [{ valueDate: '2020-13-01' }, { valueDate: '2021-02-29' }, { valueDate: '2020-02-29' }] }], q)).f).to.deep.equal([
        'error QR_VALUE_UNREADABLE QuestionnaireResponse.item[0].answer[0].value.ofType(date)',
        'error QR_VALUE_UNREADABLE QuestionnaireResponse.item[0].answer[1].value.ofType(date)',
      ]);
    });

    it('a type name that is an Object.prototype key is no answer type (the lookup is a Map)', () => {
      for (const type of ['constructor', '__proto__', 'toString']) {
        expect(check(response([{ linkId: 'a', answer: [{ valueString: 'x' }] }], [{ linkId: 'a', type }])).f.filter((s) => s.includes('QR_ANSWER_TYPE'))).to.deep.equal([]);
      }
    });
  });

  describe('answerOption and answerValueSet', () => {
    const colour = { system: 'http://example.org/colour', code: 'red' };
    const options = [{ valueCoding: colour }, { valueCoding: { system: 'http://example.org/colour', code: 'none' }, extension: [ext('questionnaire-optionExclusive', { valueBoolean: true })] }];

    it('a Coding must be one of the options (system and code); an exclusive option must be alone; reported at the answer', () => {
      const q = [{ linkId: 'c', type: 'choice', repeats: true, answerOption: options }];
      expect(check(response([{ linkId: 'c', answer: [{ valueCoding: colour }] }], q)).f).to.deep.equal([]);
      expect(check(response([{ linkId: 'c', answer: [{ valueCoding: { ...colour, system: 'http://other' } }] }], q)).f).to.deep.equal(['error QR_CODING_NOT_AN_OPTION QuestionnaireResponse.item[0].answer[0]']);
      expect(check(response([{ linkId: 'c', answer: [{ valueCoding: colour }, { valueCoding: options[1]?.valueCoding }] }], q)).f).to.deep.equal(['error QR_OPTION_EXCLUSIVE QuestionnaireResponse.item[0].answer[1]']);
    });

    it('choice: an integer or string answer needs options of its type; open-choice takes free text but warns when it spells an option', () => {
      const q = (type: string) => [{ linkId: 'c', type, answerOption: [{ valueCoding: { ...colour, display: 'Red' } }, { valueInteger: 3 }] }];
      expect(check(response([{ linkId: 'c', answer: [{ valueInteger: 4 }] }], q('choice'))).f).to.deep.equal(['error QR_NOT_AN_OPTION QuestionnaireResponse.item[0].answer[0]']);
      expect(check(response([{ linkId: 'c', answer: [{ valueInteger: 3 }] }], q('choice'))).f).to.deep.equal([]);
      expect(check(response([{ linkId: 'c', answer: [{ valueString: 'blue' }] }], q('choice'))).f).to.deep.equal(['error QR_NO_OPTIONS_OF_TYPE QuestionnaireResponse.item[0].answer[0]']);
      expect(check(response([{ linkId: 'c', answer: [{ valueString: 'blue' }] }], q('open-choice'))).f).to.deep.equal([]);
      expect(check(response([{ linkId: 'c', answer: [{ valueString: 'red' }] }], q('open-choice'))).f).to.deep.equal(['warning QR_STRING_MATCHES_OPTION QuestionnaireResponse.item[0].answer[0]']);
    });

    it('typed items with options: the answer must be an option, reported at the value', () => {
      const q = [{ linkId: 'n', type: 'integer', answerOption: [{ valueInteger: 1 }, { valueInteger: 2 }] }];
      expect(check(response([{ linkId: 'n', answer: [{ valueInteger: 5 }] }], q)).f).to.deep.equal(['error QR_NOT_AN_OPTION QuestionnaireResponse.item[0].answer[0].value.ofType(integer)']);
      expect(check(response([{ linkId: 'n', answer: [{ valueInteger: 2 }] }], q)).f).to.deep.equal([]);
    });

    it('a Coding against the answerValueSet: not in it is an error, cannot be checked a warning, an unknown value set a warning', () => {
      const q = (answerValueSet: string) => [{ linkId: 'c', type: 'choice', answerValueSet }];
      const answer = (code: string) => [{ linkId: 'c', answer: [{ valueCoding: { system: 'http://example.org/colour', code } }] }];
      expect(check(response(answer('red'), q(valueSet.url))).f).to.deep.equal([]);
      expect(check(response(answer('green'), q(valueSet.url))).f).to.deep.equal(['error QR_OPTION_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[0]']);
      expect(check(response(answer('mauve'), q(valueSet.url))).f).to.deep.equal(['warning QR_OPTION_SYSTEM_UNCHECKED QuestionnaireResponse.item[0].answer[0]']);
      expect(check(response(answer('red'), q('http://example.org/fhir/ValueSet/unknown'))).f).to.deep.equal(['warning VALUE_SET_NOT_FOUND QuestionnaireResponse.item[0].answer[0]']);
    });

    it('an answer terminology gives later (a remote server) is judged when validateAsync finishes', async () => {
      const remote: TerminologyPort = { validateCode: async (request) => terminology.validateCode(request) };
      const asyncValidator = new Validator(await sourceWith([valueSet]), remote);
      const qr = response([{ linkId: 'c', answer: [{ valueCoding: { system: 'http://example.org/colour', code: 'green' } }] }], [{ linkId: 'c', type: 'choice', answerValueSet: valueSet.url }]);
      expect(found(await asyncValidator.validateAsync(qr))).to.deep.equal(['error QR_OPTION_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[0]']);
    });

    it('a contained answerValueSet with enumerated concepts is decided locally; open-choice checks a Coding as choice does', () => {
      const qr = response([{ linkId: 'c', answer: [{ valueCoding: { system: 'http://s', code: 'b' } }] }], [{ linkId: 'c', type: 'choice', answerValueSet: '#vs' }]);
      (qr.contained as Obj[]).push({ resourceType: 'ValueSet', id: 'vs', status: 'active', compose: { include: [{ system: 'http://s', concept: [{ code: 'a' }] }] } });
      expect(check(qr).f).to.deep.equal(['error QR_OPTION_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[0]']);
      const open = structuredClone(qr);
      ((open.contained as [Obj])[0].item as [Obj])[0].type = 'open-choice';
      // HL7 reads open-choice as an R5 coding item: a display-only Coding is no code of the value set (free text goes in valueString)
      (open.item as Obj[])[0] = { linkId: 'c', answer: [{ valueCoding: { display: 'something else' } }] };
      expect(check(open).f).to.deep.equal(['error QR_OPTION_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[0]']);
      (open.item as Obj[])[0] = { linkId: 'c', answer: [{ valueCoding: { system: 'http://s', code: 'a' } }, { valueString: 'something else' }] };
      ((open.contained as [Obj])[0].item as [Obj])[0].repeats = true;
      expect(check(open).f).to.deep.equal(['information QR_NO_OPTION_LIST QuestionnaireResponse.item[0].answer[1]']);
    });

    it('open-choice: a Coding answer needs Coding options as for choice; a date answer is never one of the date options (HL7 compares a Date with text)', () => {
      const q = (type: string, answerOption: Obj[]) => [{ linkId: 'c', type, answerOption }];
      expect(check(response([{ linkId: 'c', answer: [{ valueCoding: colour }] }], q('open-choice', [{ valueString: 'red' }]))).f).to.deep.equal(['error QR_NO_OPTIONS_OF_TYPE QuestionnaireResponse.item[0].answer[0]']);
      expect(check(response([{ linkId: 'c', answer: [{ valueCoding: colour }] }], q('open-choice', [{ valueCoding: colour }]))).f).to.deep.equal([]);
      const dates = [{ valueDate: '2020-01-01' }];
      for (const type of ['choice', 'open-choice']) {
        expect(check(response([{ linkId: 'c', answer: [{ valueDate: '2020-01-01' }] }], q(type, dates))).f, type).to.deep.equal(['error QR_NOT_AN_OPTION QuestionnaireResponse.item[0].answer[0]']);
      }
      expect(check(response([{ linkId: 'c', answer: [{ valueTime: '10:00:00' }] }], q('choice', [{ valueTime: '10:00:00' }]))).f).to.deep.equal([]);
    });

    it('number items with options compare the answer as written (1.50 is not the option 1.5)', () => {
      const q = [{ linkId: 'n', type: 'decimal', answerOption: [{ valueDecimal: 1.5 }, { valueInteger: 2 }] }];
      const text = (answer: string) => JSON.stringify(response([{ linkId: 'n', answer: [{ valueDecimal: 0 }] }], q)).replace('"valueDecimal":0', `"valueDecimal":${answer}`);
      expect(found(v.validate(text('1.5')))).to.deep.equal([]);
      expect(found(v.validate(text('2')))).to.deep.equal([]);
      expect(found(v.validate(text('1.50')))).to.deep.equal(['error QR_NOT_AN_OPTION QuestionnaireResponse.item[0].answer[0].value.ofType(decimal)']);
    });

    it('a string item with an answerValueSet: the string must be a code in it, reported at the value', () => {
      const q = [{ linkId: 's', type: 'string', answerValueSet: valueSet.url }];
      expect(check(response([{ linkId: 's', answer: [{ valueString: 'red' }] }], q)).f).to.deep.equal([]);
      expect(check(response([{ linkId: 's', answer: [{ valueString: 'Crimson' }] }], q)).f).to.deep.equal(['error QR_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[0].value.ofType(string)']);
      // a contained value set is not found for string items (HL7 looks it up by url only)
      const contained = response([{ linkId: 's', answer: [{ valueString: 'Crimson' }] }], [{ linkId: 's', type: 'string', answerValueSet: '#vs' }]);
      (contained.contained as Obj[]).push({ resourceType: 'ValueSet', id: 'vs', status: 'active', compose: { include: [{ system: 'http://s', concept: [{ code: 'a' }] }] } });
      expect(check(contained).f).to.deep.equal(['warning QR_VALUE_SET_NOT_FOUND QuestionnaireResponse.item[0].answer[0].value.ofType(string)']);
    });
  });

  describe('required items, repeats and occurrences', () => {
    const q = [
      { linkId: 'name', type: 'string', required: true },
      { linkId: 'g', type: 'group', repeats: true, item: [{ linkId: 'g.a', type: 'integer', required: true }, { linkId: 'g.b', type: 'string' }] },
    ];

    it('a required item missing is an error at its level while completed or amended, a warning otherwise', () => {
      expect(check(response([], q)).f).to.deep.equal(['error QR_ITEM_MISSING QuestionnaireResponse']);
      expect(check(response([], q, { status: 'amended' })).f).to.deep.equal(['error QR_ITEM_MISSING QuestionnaireResponse']);
      for (const status of ['in-progress', 'stopped']) expect(check(response([], q, { status })).f).to.deep.equal(['warning QR_ITEM_MISSING QuestionnaireResponse']);
    });

    it('a required item present without answers is reported at the item; inside each instance of a repeating group', () => {
      const items = [{ linkId: 'name' }, { linkId: 'g', item: [{ linkId: 'g.a', answer: [{ valueInteger: 1 }] }] }, { linkId: 'g', item: [{ linkId: 'g.b', answer: [{ valueString: 'x' }] }] }];
      expect(check(response(items, q)).f).to.deep.equal(['error QR_ITEM_MISSING QuestionnaireResponse.item[0]', 'error QR_ITEM_MISSING QuestionnaireResponse.item[2]']);
    });

    it('a required group needs items; a required group missing is a missing item', () => {
      const groupQ = [{ linkId: 'g', type: 'group', required: true, item: [{ linkId: 'g.a', type: 'string' }] }];
      expect(check(response([{ linkId: 'g' }], groupQ)).f).to.deep.equal(['error QR_GROUP_REQUIRED QuestionnaireResponse.item[0]']);
      expect(check(response([], groupQ)).f).to.deep.equal(['error QR_ITEM_MISSING QuestionnaireResponse']);
    });

    it('one answer and one item unless the item repeats; questionnaire-minOccurs and -maxOccurs count the answers', () => {
      const once = [{ linkId: 'a', type: 'string' }];
      expect(check(response([{ linkId: 'a', answer: [{ valueString: 'x' }, { valueString: 'y' }] }], once)).f).to.deep.equal(['error QR_ITEM_ONLY_ONE QuestionnaireResponse.item[0]']);
      expect(check(response([{ linkId: 'a', answer: [{ valueString: 'x' }] }, { linkId: 'a', answer: [{ valueString: 'y' }] }], once)).f).to.deep.equal(['error QR_ITEM_ONLY_ONE_ITEM QuestionnaireResponse']);
      // the limits are allowed counts (exactly minOccurs or maxOccurs answers is fine)
      const counted = [{ linkId: 'a', type: 'string', repeats: true, extension: [ext('questionnaire-minOccurs', { valueInteger: 2 }), ext('questionnaire-maxOccurs', { valueInteger: 4 })] }];
      const answers = (n: number) => [{ linkId: 'a', answer: Array.from({ length: n }, (_, i) => ({ valueString: `v${i}` })) }];
      expect(check(response(answers(1), counted)).f).to.deep.equal(['error QR_MIN_OCCURS QuestionnaireResponse.item[0]']);
      expect(check(response(answers(2), counted)).f).to.deep.equal([]);
      expect(check(response(answers(3), counted)).f).to.deep.equal([]);
      expect(check(response(answers(4), counted)).f).to.deep.equal([]);
      expect(check(response(answers(5), counted)).f).to.deep.equal(['error QR_MAX_OCCURS QuestionnaireResponse.item[0]']);
      // a limit that is no number is no limit, a decimal one is truncated; an item not in the response is not counted
      const odd = [{ linkId: 'a', type: 'string', repeats: true, extension: [ext('questionnaire-maxOccurs', { valueString: '1' })] }, { linkId: 'b', type: 'string', extension: [ext('questionnaire-minOccurs', { valueInteger: 1 })] }];
      expect(check(response(answers(3), odd)).f).to.deep.equal([]);
      const decimal = [{ linkId: 'a', type: 'string', repeats: true, extension: [ext('questionnaire-maxOccurs', { valueDecimal: 3.9 })] }];
      expect(check(response(answers(4), decimal)).f).to.deep.equal(['error QR_MAX_OCCURS QuestionnaireResponse.item[0]']);
      expect(check(response(answers(3), decimal)).f).to.deep.equal([]);
    });
  });

  describe('enableWhen and enableBehavior', () => {
    const yes = { system: 'http://example.org/yn', code: 'Y' };
    const q = (conditions: Obj[], behavior?: string) => [
      { linkId: 'smoker', type: 'choice', answerOption: [{ valueCoding: yes }, { valueCoding: { system: 'http://example.org/yn', code: 'N' } }] },
      { linkId: 'packs', type: 'integer' },
      { linkId: 'detail', type: 'string', required: true, enableWhen: conditions, enableBehavior: behavior },
    ];
    const answers = (smoker: string | undefined, packs: number | undefined, detail?: string) => [
      ...(smoker ? [{ linkId: 'smoker', answer: [{ valueCoding: { ...yes, code: smoker } }] }] : []),
      ...(packs !== undefined ? [{ linkId: 'packs', answer: [{ valueInteger: packs }] }] : []),
      ...(detail ? [{ linkId: 'detail', answer: [{ valueString: detail }] }] : []),
    ];
    const missing = ['error QR_ITEM_MISSING QuestionnaireResponse'];
    const notEnabled = ['error QR_ITEM_NOT_ENABLED QuestionnaireResponse.item[2]'];

    it('= and != on Codings, an enabled required item must be answered, a disabled one must not', () => {
      const eq = q([{ question: 'smoker', operator: '=', answerCoding: yes }]);
      expect(check(response(answers('Y', 1), eq)).f).to.deep.equal(missing);
      expect(check(response(answers('N', 1), eq)).f).to.deep.equal([]);
      expect(check(response(answers('N', 1, 'x'), eq)).f).to.deep.equal(notEnabled);
      expect(check(response(answers('N', 1), q([{ question: 'smoker', operator: '!=', answerCoding: yes }]))).f).to.deep.equal(missing);
    });

    it('ordering operators on numbers, exists true and false', () => {
      for (const [operator, packs, enabled] of [['>', 3, true], ['>', 2, false], ['>=', 2, true], ['<', 1, true], ['<=', 3, false]] as const) {
        expect(check(response(answers(undefined, packs), q([{ question: 'packs', operator, answerInteger: 2 }]))).f, `${operator} ${packs}`).to.deep.equal(enabled ? missing : []);
      }
      expect(check(response(answers(undefined, 1), q([{ question: 'packs', operator: 'exists', answerBoolean: true }]))).f).to.deep.equal(missing);
      expect(check(response(answers(undefined, undefined), q([{ question: 'packs', operator: 'exists', answerBoolean: true }]))).f).to.deep.equal([]);
      expect(check(response(answers(undefined, undefined), q([{ question: 'packs', operator: 'exists', answerBoolean: false }]))).f).to.deep.equal(missing);
    });

    it('exists counts an answer that holds only nested items', () => {
      const nested = [
        { linkId: 'p', type: 'string', item: [{ linkId: 'p.note', type: 'string' }] },
        { linkId: 'detail', type: 'string', required: true, enableWhen: [{ question: 'p', operator: 'exists', answerBoolean: true }] },
      ];
      expect(check(response([{ linkId: 'p', answer: [{ item: [{ linkId: 'p.note', answer: [{ valueString: 'x' }] }] }] }], nested)).f).to.deep.equal(missing);
      expect(check(response([{ linkId: 'p' }], nested)).f).to.deep.equal([]);
    });

    it('an sdc enableWhenExpression is evaluated on the response; one that cannot be evaluated leaves the item enabled', () => {
      const expr = (expression: string) => [
        { linkId: 'has', type: 'boolean' },
        { linkId: 'what', type: 'string', extension: [ext('http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-enableWhenExpression', { valueExpression: { language: 'text/fhirpath', expression } })] },
      ];
      const items = (has: boolean) => [{ linkId: 'has', answer: [{ valueBoolean: has }] }, { linkId: 'what', answer: [{ valueString: 'x' }] }];
      const enabledWhenHas = "%resource.item.where(linkId = 'has').answer.value = true";
      expect(check(response(items(true), expr(enabledWhenHas))).f).to.deep.equal([]);
      expect(check(response(items(false), expr(enabledWhenHas))).f).to.deep.equal(['error QR_ITEM_NOT_ENABLED QuestionnaireResponse.item[1]']);
      // empty is false, as HL7's evaluateToBoolean has it
      expect(check(response(items(true), expr("item.where(linkId = 'none').answer.value"))).f).to.deep.equal(['error QR_ITEM_NOT_ENABLED QuestionnaireResponse.item[1]']);
      expect(check(response(items(false), expr('%patient.gender = \'male\''))).f).to.deep.equal([]);
      expect(check(response(items(false), expr('item.where(('))).f).to.deep.equal([]);
      // sdc variables of the Questionnaire and of the enclosing items are in scope, later ones seeing earlier ones
      const variable = (name: string, expression: string) => ext('variable', { valueExpression: { name, language: 'text/fhirpath', expression } });
      const withVars = (items: Obj[]) => {
        const qr = response(items, [{ linkId: 'g', type: 'group', extension: [variable('yes', '%answer = true')], item: [{ linkId: 'has', type: 'boolean' }, { linkId: 'what', type: 'string', extension: [ext('http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-enableWhenExpression', { valueExpression: { language: 'text/fhirpath', expression: '%yes' } })] }] }]);
        ((qr.contained as [Obj])[0]).extension = [variable('answer', "%resource.item.item.where(linkId = 'has').answer.value")];
        return qr;
      };
      expect(check(withVars([{ linkId: 'g', item: items(true) }])).f).to.deep.equal([]);
      expect(check(withVars([{ linkId: 'g', item: items(false) }])).f).to.deep.equal(['error QR_ITEM_NOT_ENABLED QuestionnaireResponse.item[0].item[1]']);
      const finnish = [{ linkId: 'has', type: 'boolean' }, { linkId: 'what', type: 'string', extension: [ext('http://phr.kanta.fi/StructureDefinition/fiphr-ext-questionnaire-enablewhen', { valueString: enabledWhenHas })] }];
      expect(check(response(items(false), finnish)).f).to.deep.equal(['error QR_ITEM_NOT_ENABLED QuestionnaireResponse.item[1]']);
      expect(check(response(items(true), finnish)).f).to.deep.equal([]);
    });

    it('enableBehavior all and any; several conditions without it leave the item enabled', () => {
      const conditions = [{ question: 'smoker', operator: '=', answerCoding: yes }, { question: 'packs', operator: '>', answerInteger: 5 }];
      expect(check(response(answers('Y', 1), q(conditions, 'all'))).f).to.deep.equal([]);
      expect(check(response(answers('Y', 1), q(conditions, 'any'))).f).to.deep.equal(missing);
      expect(check(response(answers('N', 1), q(conditions))).f).to.deep.equal(missing);
    });

    it('inside a repeating group, the condition looks at the answers of the same group instance', () => {
      const grouped = [{ linkId: 'g', type: 'group', repeats: true, item: [{ linkId: 'has', type: 'boolean' }, { linkId: 'what', type: 'string', enableWhen: [{ question: 'has', operator: '=', answerBoolean: true }] }] }];
      const instance = (has: boolean, what?: string) => ({ linkId: 'g', item: [{ linkId: 'has', answer: [{ valueBoolean: has }] }, ...(what ? [{ linkId: 'what', answer: [{ valueString: what }] }] : [])] });
      expect(check(response([instance(true, 'x'), instance(false, 'y')], grouped)).f).to.deep.equal(['error QR_ITEM_NOT_ENABLED QuestionnaireResponse.item[1].item[1]']);
    });
  });

  describe('structure of the response', () => {
    const q = [
      { linkId: 'a', type: 'string', text: 'First' },
      { linkId: 'g', type: 'group', item: [{ linkId: 'g.a', type: 'string' }] },
      { linkId: 'q', type: 'boolean', item: [{ linkId: 'q.sub', type: 'string' }] },
      { linkId: 'd', type: 'display' },
    ];

    it('unknown, misplaced, unlinked and out-of-order items are reported at their level', () => {
      expect(check(response([{ linkId: 'zz' }, { answer: [] }], q)).f).to.deep.equal(['error QR_ITEM_NO_LINKID QuestionnaireResponse', 'error QR_LINKID_NOT_FOUND QuestionnaireResponse']);
      expect(check(response([{ linkId: 'g.a', answer: [{ valueString: 'x' }] }], q)).f).to.deep.equal(['error QR_ITEM_MISPLACED QuestionnaireResponse']);
      expect(check(response([{ linkId: 'g', item: [] }, { linkId: 'a', answer: [{ valueString: 'x' }] }], q)).f).to.include('error QR_ITEM_ORDER QuestionnaireResponse');
    });

    it('text must match the Questionnaire; groups and display items carry no answers; items go under answers (groups excepted)', () => {
      expect(check(response([{ linkId: 'a', text: 'Other', answer: [{ valueString: 'x' }] }], q)).f).to.deep.equal(['error QR_ITEM_TEXT QuestionnaireResponse.item[0]']);
      const { o, f } = check(response([{ linkId: 'g', answer: [{ valueString: 'x' }] }, { linkId: 'd', answer: [{ valueString: 'x' }] }], q));
      expect(f).to.deep.equal(['error QR_DISPLAY_NO_ANSWERS QuestionnaireResponse.item[1]', 'error QR_NO_ANSWERS_ALLOWED QuestionnaireResponse.item[0]']);
      expect(describe_(o)).to.include('Items of type group should not have answers');
      expect(check(response([{ linkId: 'q', answer: [{ valueBoolean: true }], item: [{ linkId: 'q.sub' }] }], q)).f).to.deep.equal(['error QR_ITEMS_OUTSIDE_ANSWERS QuestionnaireResponse.item[0]']);
      expect(check(response([{ linkId: 'd', item: [{ linkId: 'x' }] }], q)).f).to.deep.equal(['error QR_DISPLAY_ITEMS QuestionnaireResponse.item[0]']);
    });

    it('items inside answers are checked, and named after the item holding the answer (as the HL7 validator names them)', () => {
      const { f } = check(response([{ linkId: 'q', answer: [{ valueBoolean: true, item: [{ linkId: 'q.sub', answer: [{ valueInteger: 1 }] }] }] }], q));
      expect(f).to.deep.equal(['error QR_ANSWER_TYPE QuestionnaireResponse.item[0].item[0].answer[0].value.ofType(integer)']);
    });
  });

  describe('limits on answer values', () => {
    it('string length, format (RE2) and line breaks; text items are not length-checked', () => {
      const q: [Obj, Obj] = [
        { linkId: 's', type: 'string', maxLength: 3, extension: [ext('minLength', { valueInteger: 2 }), ext('regex', { valueString: '[a-z]+' })] },
        { linkId: 't', type: 'text', maxLength: 3 },
      ];
      const { f } = check(response([{ linkId: 's', answer: [{ valueString: 'abcd' }, { valueString: 'A' }, { valueString: 'ab\ncd' }] }, { linkId: 't', answer: [{ valueString: 'long text' }] }], [{ ...q[0], repeats: true }, q[1]]));
      expect(f).to.deep.equal([
        'error QR_REGEX QuestionnaireResponse.item[0].answer[1].value.ofType(string)',
        'error QR_REGEX QuestionnaireResponse.item[0].answer[2].value.ofType(string)',
        'error QR_TOO_LONG QuestionnaireResponse.item[0].answer[0].value.ofType(string)',
        'error QR_TOO_LONG QuestionnaireResponse.item[0].answer[2].value.ofType(string)',
        'error QR_TOO_SHORT QuestionnaireResponse.item[0].answer[1].value.ofType(string)',
        'warning QR_STRING_LINE_BREAKS QuestionnaireResponse.item[0].answer[2].value.ofType(string)',
      ]);
    });

    it('dates compare by their first instant, times as written, decimals by value and places', () => {
      const q = [
        { linkId: 'd', type: 'date', repeats: true, extension: [ext('minValue', { valueDate: '2020' }), ext('maxValue', { valueDate: '2022-06' })] },
        { linkId: 't', type: 'time', extension: [ext('maxValue', { valueTime: '17:00:00' })] },
        { linkId: 'n', type: 'decimal', extension: [ext('minValue', { valueDecimal: 1.5 }), ext('maxDecimalPlaces', { valueInteger: 1 })] },
      ];
      const { f } = check(response([
        { linkId: 'd', answer: [{ valueDate: '2020-01-01' }, { valueDate: '2022-06' }, { valueDate: '2022-06-30' }, { valueDate: '2019-12-31' }] },
        { linkId: 't', answer: [{ valueTime: '18:00:00' }] },
        { linkId: 'n', answer: [{ valueDecimal: 1.25 }] },
      ], q));
      expect(f).to.deep.equal([
        'error QR_DECIMAL_PLACES QuestionnaireResponse.item[2].answer[0].value.ofType(decimal)',
        'error QR_VALUE_ABOVE_MAX QuestionnaireResponse.item[0].answer[2].value.ofType(date)',
        'error QR_VALUE_ABOVE_MAX QuestionnaireResponse.item[1].answer[0].value.ofType(time)',
        'error QR_VALUE_BELOW_MIN QuestionnaireResponse.item[0].answer[3].value.ofType(date)',
        'error QR_VALUE_BELOW_MIN QuestionnaireResponse.item[2].answer[0].value.ofType(decimal)',
      ]);
    });

    it('quantities: unit options match system, code and the display against the unit', () => {
      const q = [{ linkId: 'w', type: 'quantity', extension: [ext('questionnaire-unitOption', { valueCoding: { system: 'http://unitsofmeasure.org', code: 'kg', display: 'kg' } })] }];
      const kg = { value: 70, unit: 'kg', system: 'http://unitsofmeasure.org', code: 'kg' };
      expect(check(response([{ linkId: 'w', answer: [{ valueQuantity: kg }] }], q)).f).to.deep.equal([]);
      expect(check(response([{ linkId: 'w', answer: [{ valueQuantity: { ...kg, unit: 'kilo' } }] }], q)).f).to.deep.equal(['error QR_UNIT_NOT_ALLOWED QuestionnaireResponse.item[0].answer[0].value.ofType(Quantity)']);
    });

    it('quantities: a minimum is a minimum, in the same units and after UCUM conversion', () => {
      const min = (value: number, code: string) => [{ linkId: 'w', type: 'quantity', extension: [ext('http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-minQuantity', { valueQuantity: { value, system: 'http://unitsofmeasure.org', code } })] }];
      const answer = (value: number, code: string) => [{ linkId: 'w', answer: [{ valueQuantity: { value, system: 'http://unitsofmeasure.org', code } }] }];
      const below = ['error QR_QTY_BELOW_MIN QuestionnaireResponse.item[0].answer[0].value.ofType(Quantity)'];
      expect(check(response(answer(40, 'kg'), min(50, 'kg'))).f).to.deep.equal(below);
      expect(check(response(answer(70, 'kg'), min(50, 'kg'))).f).to.deep.equal([]);
      expect(check(response(answer(50, 'kg'), min(50, 'kg'))).f).to.deep.equal([]);
      expect(check(response(answer(40, 'kg'), min(50000, 'g'))).f).to.deep.equal(below);
      expect(check(response(answer(70, 'kg'), min(50000, 'g'))).f).to.deep.equal([]);
    });

    it('quantities: an answer with a comparator is an error and its limits are not compared (HL7 cannot read the comparator)', () => {
      const q = [{ linkId: 'w', type: 'quantity', extension: [ext('http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-maxQuantity', { valueQuantity: { value: 5, system: 'http://unitsofmeasure.org', code: 'kg' } })] }];
      const answer = (extra: Obj) => [{ linkId: 'w', answer: [{ valueQuantity: { value: 70, system: 'http://unitsofmeasure.org', code: 'kg', ...extra } }] }];
      expect(check(response(answer({}), q)).f).to.deep.equal(['error QR_QTY_ABOVE_MAX QuestionnaireResponse.item[0].answer[0].value.ofType(Quantity)']);
      expect(check(response(answer({ comparator: '<' }), q)).f).to.deep.equal(['error QR_VALUE_UNREADABLE QuestionnaireResponse.item[0].answer[0].value.ofType(Quantity)']);
    });

    it('number limits are read as the item type (an integer item cannot read 5.5); the first unreadable one ends the comparisons', () => {
      const q = (type: string, min: Obj, max: Obj) => [{ linkId: 'n', type, extension: [ext('minValue', min), ext('maxValue', max), ext('maxDecimalPlaces', { valueInteger: 0 })] }];
      const at = (t: string) => `QuestionnaireResponse.item[0].answer[0].value.ofType(${t})`;
      expect(check(response([{ linkId: 'n', answer: [{ valueInteger: 50 }] }], q('integer', { valueDecimal: 5.5 }, { valueInteger: 10 }))).f).to.deep.equal([`error QR_VALUE_UNREADABLE ${at('integer')}`]);
      expect(check(response([{ linkId: 'n', answer: [{ valueInteger: 50 }] }], q('integer', { valueString: '5' }, { valueString: '10' }))).f).to.deep.equal([`error QR_VALUE_ABOVE_MAX ${at('integer')}`]);
      expect(check(response([{ linkId: 'n', answer: [{ valueDecimal: 0.5 }] }], q('decimal', { valueString: 'low' }, { valueDecimal: 0.1 }))).f).to.deep.equal([`error QR_VALUE_UNREADABLE ${at('decimal')}`]);
      expect(check(response([{ linkId: 'n', answer: [{ valueDecimal: 0.5 }] }], q('decimal', { valueInteger: 1 }, { valueDecimal: 0.1 }))).f).to.deep.equal([`error QR_DECIMAL_PLACES ${at('decimal')}`, `error QR_VALUE_ABOVE_MAX ${at('decimal')}`, `error QR_VALUE_BELOW_MIN ${at('decimal')}`]);
    });

    it('quantities: the unit must be in the unit value set', () => {
      const q = [{ linkId: 'w', type: 'quantity', repeats: true, extension: [ext('questionnaire-unitValueSet', { valueCanonical: valueSet.url })] }];
      const { f } = check(response([{ linkId: 'w', answer: [{ valueQuantity: { value: 1, system: 'http://example.org/colour', code: 'red' } }, { valueQuantity: { value: 2, system: 'http://example.org/colour', code: 'blue' } }, { valueQuantity: { value: 3, unit: 'red' } }] }], q));
      expect(f).to.deep.equal(['error QR_UNIT_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[1].value.ofType(Quantity)', 'error QR_UNIT_NOT_IN_VALUE_SET QuestionnaireResponse.item[0].answer[2].value.ofType(Quantity)']);
    });

    it('attachments: content type by prefix and size, reported at the answer', () => {
      // maxSize is the largest allowed size: AAAA is 3 bytes (the limit itself is allowed), AAAAAA== 4 (one too many)
      const q = [{ linkId: 'f', type: 'attachment', repeats: true, extension: [ext('mimeType', { valueCode: 'image/' }), ext('maxSize', { valueDecimal: 3 })] }];
      const { f } = check(response([{ linkId: 'f', answer: [{ valueAttachment: { contentType: 'image/png', data: 'AAAA' } }, { valueAttachment: { contentType: 'text/plain' } }, { valueAttachment: { data: 'AAAAAA==' } }] }], q));
      expect(f).to.deep.equal([
        'error QR_ATTACHMENT_CONTENT_TYPE QuestionnaireResponse.item[0].answer[1]',
        'error QR_ATTACHMENT_NO_CONTENT_TYPE QuestionnaireResponse.item[0].answer[2]',
        'error QR_ATTACHMENT_SIZE QuestionnaireResponse.item[0].answer[2]',
      ]);
    });

    it('reference target types (questionnaire-referenceResource) when RESTful references are assumed valid', () => {
      const q = [{ linkId: 'r', type: 'reference', repeats: true, extension: [ext('questionnaire-referenceResource', { valueCode: 'Patient' })] }];
      const qr = response([{ linkId: 'r', answer: [{ valueReference: { reference: 'Patient/1' } }, { valueReference: { reference: 'http://h.example.net/fhir/Observation/2' } }, { valueReference: { reference: 'urn:uuid:0d9c3a3e-2a2f-4c59-a1c5-6f2b0e1b8c11' } }] }], q);
      expect(check(qr, rest).f).to.deep.equal([
        'error QR_REFERENCE_TARGET QuestionnaireResponse.item[0].answer[1].value.ofType(Reference)',
        'error QR_REFERENCE_TARGET_UNKNOWN QuestionnaireResponse.item[0].answer[2].value.ofType(Reference)',
      ]);
      expect(check(qr).f).to.deep.equal([]);
    });
  });
});

describe('engine: a Questionnaire itself', function () {
  this.timeout(60_000);
  let v: Validator;
  const base = {
    resourceType: 'Questionnaire', url: 'http://forms.example.net/Questionnaire/base', status: 'active',
    item: [
      { linkId: 'a', type: 'string', required: true, maxLength: 10 }, { linkId: 'b', type: 'integer' },
      { linkId: 'o', type: 'choice', answerOption: [{ valueCoding: { system: 'http://s', code: '1' } }, { valueCoding: { system: 'http://s', code: '2' } }] },
      { linkId: 'v', type: 'choice', answerValueSet: 'http://forms.example.net/ValueSet/v' },
    ],
  };
  before(async () => {
    v = new Validator(await sourceWith([base]));
  });
  const questionnaire = (items: Obj[], extra: Obj = {}) => ({ resourceType: 'Questionnaire', text: narrative, status: 'active', item: items, ...extra });

  it('enableWhen names an existing question that is not the item, not inside it, and preferably before it', () => {
    const { f } = { f: found(v.validate(questionnaire([
      { linkId: '1', type: 'boolean', enableWhen: [{ question: '2', operator: 'exists', answerBoolean: true }] },
      { linkId: '2', type: 'boolean', enableWhen: [{ question: 'nope', operator: 'exists', answerBoolean: true }, { question: '2', operator: 'exists', answerBoolean: true }] },
      { linkId: '3', type: 'group', enableWhen: [{ question: '3.1', operator: 'exists', answerBoolean: true }], item: [{ linkId: '3.1', type: 'boolean', enableWhen: [{ question: '1', operator: 'exists', answerBoolean: true }] }] },
    ]))) };
    expect(f).to.deep.equal([
      'error Q_ENABLEWHEN_INNER Questionnaire.item[2]',
      'error Q_ENABLEWHEN_NO_TARGET Questionnaire.item[1]',
      'error Q_ENABLEWHEN_SELF Questionnaire.item[1]',
      'warning Q_ENABLEWHEN_AFTER Questionnaire.item[0]',
    ]);
  });

  it('item extensions are allowed on nested items too (Questionnaire.item.item reuses Questionnaire.item)', () => {
    const nested = questionnaire([{ linkId: 'g', type: 'group', item: [{ linkId: 'g.1', type: 'integer', extension: [ext('minValue', { valueInteger: 0 }), ext('questionnaire-unit', { valueCoding: { system: 'http://unitsofmeasure.org', code: 'kg' } })] }] }]);
    const o = v.validate(nested);
    expect(o.issue.filter((i) => idOf(i) === 'EXTENSION_CONTEXT'), describe_(o)).to.deep.equal([]);
    const misplaced = v.validate(questionnaire([{ linkId: 'g', type: 'group', item: [{ linkId: 'g.1', type: 'integer' }], code: [{ system: 'http://s', code: 'c', extension: [ext('minValue', { valueInteger: 0 })] }] }]));
    expect(misplaced.issue.filter((i) => idOf(i) === 'EXTENSION_CONTEXT').map((i) => i.expression?.[0])).to.deep.equal(['Questionnaire.item[0].code[0]']);
  });

  it("que-7: an exists condition takes answerBoolean (a FHIR boolean is a Boolean, as the HL7 validator's FHIRPath has it)", () => {
    const q = (answer: Obj) => questionnaire([{ linkId: '1', type: 'boolean' }, { linkId: '2', type: 'string', enableWhen: [{ question: '1', operator: 'exists', ...answer }] }]);
    const que7 = (o: ValidationOutcome) => o.issue.filter((i) => i.details.text.startsWith('Rule que-7')).map((i) => `${i.severity} ${i.expression?.[0]}`);
    expect(que7(v.validate(q({ answerBoolean: true })))).to.deep.equal([]);
    expect(que7(v.validate(q({ answerString: 'yes' })))).to.deep.equal(['error Questionnaire.item[1].enableWhen[0]']);
  });

  it('que-13: two initial values need repeats (an absent repeats is false, as the HL7 engine evaluates it)', () => {
    const que13 = (item: Obj) => v.validate(questionnaire([item])).issue.filter((i) => i.details.text.startsWith('Rule que-13')).map((i) => `${i.severity} ${i.expression?.[0]}`);
    const initial = [{ valueString: 'a' }, { valueString: 'b' }];
    expect(que13({ linkId: 's', type: 'string', initial })).to.deep.equal(['error Questionnaire.item[0]']);
    expect(que13({ linkId: 's', type: 'string', repeats: false, initial })).to.deep.equal(['error Questionnaire.item[0]']);
    expect(que13({ linkId: 's', type: 'string', repeats: true, initial })).to.deep.equal([]);
    expect(que13({ linkId: 's', type: 'string', initial: [initial[0]] })).to.deep.equal([]);
  });

  it('derivedFrom: unknown or untyped derivations are warned about; compliesWith keeps items, types, repeats, required and maxLength', () => {
    expect(found(v.validate(questionnaire([], { derivedFrom: ['http://forms.example.net/Questionnaire/none'] })))).to.deep.equal(['warning Q_DERIVATION_UNKNOWN Questionnaire.derivedFrom[0]']);
    expect(found(v.validate(questionnaire([], { derivedFrom: [base.url] })))).to.deep.equal(['warning Q_DERIVATION_NO_TYPE Questionnaire.derivedFrom[0]']);
    const complies = (code: string) => ({ derivedFrom: [base.url], _derivedFrom: [{ extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-derivationType', valueCoding: { system: 'http://hl7.org/fhir/questionnaire-derivationType', code } }] }] });
    const items = [{ linkId: 'a', type: 'text', required: false, maxLength: 20 }, { linkId: 'b', type: 'integer', repeats: true }, { linkId: 'c', type: 'string' }];
    expect(found(v.validate(questionnaire(items, complies('compliesWith'))))).to.deep.equal([
      'error Q_DERIVED_ITEM_MISSING Questionnaire.item[2]',
      'error Q_DERIVED_MAXLENGTH_CHANGED Questionnaire.item[0].maxLength',
      'error Q_DERIVED_REPEATS_CHANGED Questionnaire.item[1].repeats',
      'error Q_DERIVED_REQUIRED_CHANGED Questionnaire.item[0].required',
      'error Q_DERIVED_TYPE_CHANGED Questionnaire.item[0].type',
    ]);
    // an extension may add items
    expect(found(v.validate(questionnaire([{ linkId: 'c', type: 'string' }], complies('extends'))))).to.deep.equal([]);
    const optionItems = [
      { linkId: 'o', type: 'choice', answerOption: [{ valueCoding: { system: 'http://s', code: '2' } }, { valueCoding: { system: 'http://s', code: '3' } }] },
      { linkId: 'v', type: 'choice', answerOption: [{ valueCoding: { system: 'http://s', code: '1' } }] },
    ];
    expect(found(v.validate(questionnaire(optionItems, complies('extends'))))).to.deep.equal([
      'error Q_DERIVED_ANSWER_KIND_CHANGED Questionnaire.item[1]',
      'error Q_DERIVED_NEW_ANSWER_OPTION Questionnaire.item[0].answerOption[1]',
    ]);
  });
});
