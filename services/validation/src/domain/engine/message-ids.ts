/**
 * The HL7 validator's message id of each engine message: what an issue carries in its
 * operationoutcome-message-id extension, so that suppression rules and categories written for
 * the HL7 validator or for HAPI (which embeds it) select the same issues here.
 *
 * The engine keeps its own keys (MESSAGES, messages.ts) and this table maps them; a key not listed
 * here is taken to be the HL7 id itself (new messages are added to MESSAGES under the HL7 id).
 * Three shapes:
 * - a string: the HL7 id (Messages.properties key, in HL7's own spelling: `Extension_EXT_Unknown_NotHere`);
 * - `byArg`: HL7 words a rule with one id per kind where ours has one message with the kind as an
 *   argument (`The integer 3 is not a valid option`, `The date … is not a valid option`): the id
 *   follows that argument, and `ours` covers a kind HL7 has no id for;
 * - `ours`: HL7 has no message for this rule (a limit of this service, a check HL7 words inside
 *   another message): the issue carries the engine key itself, which is never an HL7 id
 *   (hl7-message-ids.test checks both).
 * Which HL7 version declares each id we claim is in hl7-message-ids.json beside this file.
 */
import type { MessageId } from './messages.js';

export interface OursMessageId {
  /** Why HL7 has no id for this message. */
  readonly ours: string;
}

export interface ArgSelectedMessageId {
  /** The argument whose value names the kind. */
  readonly byArg: number;
  /** HL7 id per kind. */
  readonly ids: Readonly<Record<string, string>>;
  /** Kinds HL7 has no id for: the engine key is emitted (as for `ours`). */
  readonly ours: string;
}

export type MessageIdSource = string | OursMessageId | ArgSelectedMessageId;

const LIMIT = { ours: 'a limit or outcome of this service, not a validation rule of HL7' };
const OWN_RULE = { ours: 'a check HL7 words inside another message or does not make' };

export const HL7_MESSAGE_IDS: Partial<Record<MessageId, MessageIdSource>> = {
  // JSON syntax and shape
  JSON_PARSE_ERROR: 'Error_parsing_JSON_',
  JSON_COMMA_EXTRA_ARRAY: 'JSON_COMMA_EXTRA',
  JSON_COMMA_EXTRA_OBJECT: 'JSON_COMMA_EXTRA',
  DUPLICATE_JSON_PROPERTY: 'DUPLICATE_JSON_PROPERTY_KEY',
  JSON_TOO_DEEP: LIMIT,
  // XML syntax: the Java XML parser's own text in HL7 (logged without a message id), and our limits
  XML_PARSE_ERROR: { ours: 'HL7 reports the XML parser\'s own message text, without a message id' },
  XML_TOO_DEEP: LIMIT,
  XML_TOO_LARGE: LIMIT,
  JSON_TOO_LARGE: LIMIT,
  PRIMITIVE_PROPERTY_INVALID: 'ILLEGAL_PROPERTY',
  UNRECOGNISED_PROPERTY: 'Unrecognised_property_',
  JSON_PROPERTY_NO_ARRAY: 'This_property_must_be_an_Array_not_',
  JSON_BASE_PROPERTY_NO_ARRAY: 'This_property_must_be_an_Array_not_',
  OBJECT_MUST_HAVE_SOME_CONTENT: 'Object_must_have_some_content',
  JSON_PROPERTY_VALUE_NOT_ARRAY: 'This_property_must_be__not_',
  JSON_PROPERTY_NOT_OBJECT: 'This_property_must_be_an_object_not_',
  JSON_PRIMITIVE_WRONG_TYPE: {
    byArg: 0,
    ids: {
      'a boolean': 'Error_parsing_JSON_the_primitive_value_must_be_a_boolean',
      'a number': 'Error_parsing_JSON_the_primitive_value_must_be_a_number',
      'a string': 'Error_parsing_JSON_the_primitive_value_must_be_a_string',
    },
    ours: 'no other JSON kinds are expected',
  },
  JSON_NULL_NOT_ALLOWED: 'ELEMENT_CANNOT_BE_NULL',
  RESOURCETYPE_MISSING: 'Unable_to_find_resourceType_property',
  RESOURCETYPE_UNKNOWN: 'This_does_not_appear_to_be_a_FHIR_resource_unknown_name_',
  RESOURCE_NOT_OBJECT: OWN_RULE,
  INTERNAL_ERROR: LIMIT,
  NESTING_TOO_DEEP: LIMIT,
  VALIDATION_MESSAGES_TRUNCATED: LIMIT,
  NO_EXPERIMENTAL_CONTENT: { ours: 'the HL7 id of its no-experimental-content check is not verified against Messages.properties; ours until it is' },
  VALIDATION_TIMEOUT: LIMIT,
  SUBMISSION_TIMEOUT: LIMIT,
  VALIDATION_OUT_OF_MEMORY: LIMIT,
  FHIRPATH_TOO_COSTLY: LIMIT,

  // cardinality and types
  CARDINALITY_MIN: 'Validation_VAL_Profile_Minimum',
  CARDINALITY_MAX: 'Validation_VAL_Profile_Maximum',
  CHOICE_TYPE_NOT_ALLOWED: 'Extension_PROF_Type',
  CHOICE_TYPE_UNKNOWN: 'Validation_VAL_Profile_NoType',
  CHOICE_MULTIPLE: OWN_RULE,
  ABSTRACT_TYPE: OWN_RULE,

  // primitives
  PRIMITIVE_NO_VALUE: 'Type_Specific_Checks_DT_Primitive_ValueExt',
  PRIMITIVE_EMPTY_STRING: 'Type_Specific_Checks_DT_Primitive_NotEmpty',
  PRIMITIVE_WHITESPACE_ONLY: 'Type_Specific_Checks_DT_Primitive_WS',
  URI_OID_PREFIX: 'Type_Specific_Checks_DT_URI_OID',
  URI_UUID_PREFIX: 'Type_Specific_Checks_DT_URI_UUID',
  STRING_WHITESPACE: 'Type_Specific_Checks_DT_String_WS',
  STRING_ALL_WHITESPACE: 'Type_Specific_Checks_DT_String_WS_ALL',
  STRING_TOO_LONG: 'Type_Specific_Checks_DT_Primitive_Length',
  STRING_EXCEEDS_SIZE: 'Type_Specific_Checks_DT_String_Length',
  STRING_HTML: 'SECURITY_STRING_CONTENT_ERROR',
  INTEGER_INVALID: 'Type_Specific_Checks_DT_Integer_Valid',
  INTEGER_RANGE_POS: 'Type_Specific_Checks_DT_Integer_LT1',
  INTEGER_RANGE_UNSIGNED: 'Type_Specific_Checks_DT_Integer_LT0',
  DECIMAL_INVALID: 'Type_Specific_Checks_DT_Decimal_Valid',
  DECIMAL_RANGE: 'Type_Specific_Checks_DT_Decimal_Range',
  DATE_INVALID: 'Type_Specific_Checks_DT_Date_Valid',
  DATETIME_INVALID: 'Type_Specific_Checks_DT_DateTime_Valid',
  DATETIME_NEEDS_TZ: 'Type_Specific_Checks_DT_DateTime_TZ',
  INSTANT_INVALID: 'Type_Specific_Checks_DT_Instant_Valid',
  TIME_INVALID: 'Type_Specific_Checks_DT_Time_Valid',
  BASE64_INVALID: 'Type_Specific_Checks_DT_Base64_Valid',
  BASE64_WHITESPACE: 'TYPE_SPECIFIC_CHECKS_DT_BASE64_NO_WS_WARNING',
  ID_TOO_LONG: 'Resource_RES_ID_Malformed_Length',
  ID_INVALID_CHARS: 'Resource_RES_ID_Malformed_Chars',
  ELEMENT_ID_INVALID: 'Type_Specific_Checks_DT_ID_Valid',
  CODE_WHITESPACE: 'Type_Specific_Checks_DT_Code_WS',
  URI_WHITESPACE: 'Type_Specific_Checks_DT_URI_WS',
  EXAMPLE_URL: 'TYPE_SPECIFIC_CHECKS_DT_URL_EXAMPLE',
  URL_NOT_ABSOLUTE: 'TYPE_SPECIFIC_CHECKS_CANONICAL_ABSOLUTE',
  OID_INVALID: 'Type_Specific_Checks_DT_OID_Valid',
  OID_START: 'Type_Specific_Checks_DT_OID_Start',
  UUID_START: 'Type_Specific_Checks_DT_UUID_Strat',
  UUID_INVALID: 'Type_Specific_Checks_DT_UUID_Valid',
  XHTML_INVALID: 'Error_parsing_XHTML_',
  XHTML_NAMESPACE: 'XHTML_XHTML_NS_InValid',
  XHTML_ELEMENT: 'XHTML_XHTML_Element_Illegal',
  XHTML_ATTRIBUTE: 'XHTML_XHTML_Attribute_Illegal',
  XHTML_ROOT: 'XHTML_XHTML_Name_Invalid',
  XHTML_DOCTYPE: 'XHTML_XHTML_DOCTYPE_ILLEGAL',
  XHTML_LINK_UNRESOLVED: 'Type_Specific_Checks_DT_XHTML_Resolve',
  PRIMITIVE_REGEX: 'Type_Specific_Checks_DT_Primitive_Regex',
  REGEX_EXCEPTION: 'TYPE_SPECIFIC_CHECKS_DT_PRIMITIVE_REGEX_EXCEPTION',
  MARKDOWN_HTML: 'TYPE_SPECIFIC_CHECKS_DT_MARKDOWN_HTML',

  // values
  FIXED_VALUE: '_DT_Fixed_Wrong',
  PATTERN_MISMATCH: OWN_RULE,
  FIXED_MISSING_ELEMENT: 'Profile_VAL_MissingElement',
  FIXED_NOT_ALLOWED: 'Profile_VAL_NotAllowed',
  FIXED_EXTENSIONS_BANNED: 'Extension_EXT_Fixed_Banned',
  FIXED_COUNT: {
    byArg: 2,
    ids: {
      line: 'Fixed_Type_Checks_DT_Address_Line',
      family: 'Fixed_Type_Checks_DT_Name_Family',
      given: 'Fixed_Type_Checks_DT_Name_Given',
      prefix: 'Fixed_Type_Checks_DT_Name_Prefix',
      suffix: 'Fixed_Type_Checks_DT_Name_Suffix',
      coding: 'Terminology_TX_Coding_Count',
    },
    ours: 'HL7 counts repeats only for the elements it names',
  },
  PATTERN_CODING_NOT_FOUND: 'TYPE_CHECKS_PATTERN_CC',
  PATTERN_VALUE: OWN_RULE,
  MIN_VALUE_UCUM: 'TYPE_SPECIFIC_CHECKS_DT_QTY_MIN_VALUE_WRONG_UCUM',
  MAX_VALUE_UCUM: 'TYPE_SPECIFIC_CHECKS_DT_QTY_MAX_VALUE_WRONG_UCUM',
  MIN_VALUE: 'TYPE_SPECIFIC_CHECKS_DT_QTY_MIN_VALUE_WRONG',
  MAX_VALUE: 'TYPE_SPECIFIC_CHECKS_DT_QTY_MAX_VALUE_WRONG',

  // slicing
  SLICE_UNMATCHED_CLOSED: 'Validation_VAL_Profile_NotSlice',
  SLICE_UNMATCHED_OPEN: 'This_element_does_not_match_any_known_slice_',
  SLICE_REQUIRED_OPEN: 'Validation_VAL_Profile_Minimum_SLICE',
  SLICE_REQUIRED_CLOSED: 'Validation_VAL_Profile_Minimum_SLICE',
  SLICE_ORDER: 'Validation_VAL_Profile_SliceOrder',
  SLICE_MATCH_MULTIPLE: 'Validation_VAL_Profile_MatchMultiple',

  // invariants
  INVARIANT_FAILED: 'INV_FAILED',
  INVARIANT_FAILED_BEST_PRACTICE: 'INV_FAILED',
  INVARIANT_BROKEN: OWN_RULE,

  // extensions
  EXTENSION_UNKNOWN: 'Extension_EXT_Unknown_NotHere',
  EXTENSION_UNKNOWN_ALLOWED: 'Extension_EXT_Unknown',
  EXTENSION_MODIFIER_UNKNOWN: 'Extension_EXT_Unknown_NotHere',
  EXTENSION_NO_URL: 'Extension_EXT_Url_NotFound',
  EXTENSION_URL_NOT_ABSOLUTE: 'Extension_EXT_URL_Absolute',
  EXTENSION_CONTEXT: 'Extension_EXTP_Context_Wrong',
  EXTENSION_IS_MODIFIER: 'Extension_EXT_Modifier_N',
  EXTENSION_NOT_MODIFIER: 'Extension_EXT_Modifier_Y',
  EXTENSION_VALUE_TYPE: 'Extension_EXT_Type',
  EXTENSION_EXTM_CONTEXT_WRONG: 'Extension_EXTM_Context_Wrong',
  EXTENSION_EXTP_CONTEXT_WRONG_VER: 'Extension_EXTP_Context_Wrong_VER',
  EXTENSION_EXTM_CONTEXT_WRONG_VER: 'Extension_EXTM_Context_Wrong_VER',
  PROFILE_EXT_NOT_HERE: 'Profile_EXT_Not_Here',
  EXTENSION_EXT_SIMPLE_WRONG: 'Extension_EXT_Simple_WRONG',
  EXTENSION_EXT_SIMPLE_ABSENT: 'Extension_EXT_Simple_ABSENT',
  EXTENSION_EXT_COMPLEX_VALUE: 'Extension_EXT_Type',
  EXTENSION_EXT_SUBEXTENSION_INVALID: 'Extension_EXT_SubExtension_Invalid',
  EXTENSION_EXT_VERSION_INVALID: 'Extension_EXT_Version_Invalid',
  EXTENSION_EXT_VERSION_INVALIDID: 'Extension_EXT_Version_InvalidId',

  // references
  REFERENCE_NO_DISPLAY: 'Reference_REF_NoDisplay',
  REFERENCE_BAD_TARGET: 'Reference_REF_BadTargetType2',
  REFERENCE_WRONG_TARGET: 'Reference_REF_BadTargetType',
  REFERENCE_CANT_RESOLVE: 'Reference_REF_CantResolve',
  REFERENCE_FORMAT: 'REFERENCE_REF_SUSPICIOUS',
  REFERENCE_MULTIPLE_MATCHES: 'Bundle_BUNDLE_MultipleMatches',
  REFERENCE_NOT_IN_BUNDLE: 'Bundle_BUNDLE_Entry_NotFound',
  CONTAINED_NO_ID: OWN_RULE,

  // bundles
  BUNDLE_FULLURL_ABSOLUTE: 'BUNDLE_ENTRY_URL_ABSOLUTE',
  BUNDLE_FULLURL_ID_MISMATCH: 'BUNDLE_ENTRY_URL_MATCHES_TYPE_ID',
  BUNDLE_DUPLICATE_ID: 'DUPLICATE_ID',
  BUNDLE_BUNDLE_ENTRY_MISMATCHIDURL: 'Bundle_BUNDLE_Entry_MismatchIdUrl',
  BUNDLE_BUNDLE_ENTRY_TYPE: 'Bundle_BUNDLE_Entry_Type',
  BUNDLE_BUNDLE_ENTRY_TYPE2: 'Bundle_BUNDLE_Entry_Type2',
  BUNDLE_BUNDLE_ENTRY_TYPE3: 'Bundle_BUNDLE_Entry_Type3',
  BUNDLE_BUNDLE_ENTRY_NOFIRST: 'Bundle_BUNDLE_Entry_NoFirst',
  BUNDLE_BUNDLE_ENTRY_NOFIRSTRESOURCE: 'Bundle_BUNDLE_Entry_NoFirstResource',
  BUNDLE_BUNDLE_ENTRY_DOCUMENT: 'Bundle_BUNDLE_Entry_Document',
  VALIDATION_BUNDLE_MESSAGE: 'Validation_BUNDLE_Message',
  BUNDLE_BUNDLE_ENTRY_NOTFOUND: 'Bundle_BUNDLE_Entry_NotFound',
  BUNDLE_BUNDLE_ENTRY_ORPHAN_DOCUMENT: 'Bundle_BUNDLE_Entry_Orphan_DOCUMENT',
  BUNDLE_BUNDLE_ENTRY_ORPHAN_MESSAGE: 'Bundle_BUNDLE_Entry_Orphan_MESSAGE',

  // QuestionnaireResponse and Questionnaire
  QR_QUESTIONNAIRE_NONE: 'Questionnaire_QR_Q_None',
  QR_CONTAINED_NOT_QUESTIONNAIRE: 'REFERENCE_REF_WRONGTARGET_LOAD',
  QR_QUESTIONNAIRE_NOT_FOUND: 'Questionnaire_QR_Q_NotFound',
  QR_AUTHORED_AFTER_END: 'QUESTIONNAIRE_QR_AUTHOR_END',
  QR_AUTHORED_BEFORE_START: 'QUESTIONNAIRE_QR_AUTHOR_START',
  QR_ITEM_NO_LINKID: 'Questionnaire_QR_Item_NoLinkId',
  QR_LINKID_NOT_FOUND: 'Questionnaire_QR_Item_NotFound',
  QR_ITEM_MISPLACED: OWN_RULE,
  QR_ITEM_ORDER: 'Questionnaire_QR_Item_Order',
  QR_ITEM_ONLY_ONE_ITEM: 'Questionnaire_QR_Item_OnlyOneI',
  QR_ITEM_ONLY_ONE: 'Questionnaire_QR_Item_OnlyOneA',
  QR_ITEM_NOT_ENABLED: 'Questionnaire_QR_Item_NotEnabled2',
  QR_ITEM_MISSING: 'Questionnaire_QR_Item_Missing',
  QR_ITEM_TEXT: 'Questionnaire_QR_Item_Text',
  QR_ITEM_NO_TYPE: 'Questionnaire_QR_Item_NoType',
  QR_DISPLAY_ITEMS: 'Questionnaire_QR_Item_Display',
  QR_ITEMS_OUTSIDE_ANSWERS: 'Questionnaire_QR_Item_GroupAnswer',
  QR_GROUP_REQUIRED: 'QUESTIONNAIRE_QR_ITEM_GROUP_REQUIRED',
  QR_NO_ANSWERS_ALLOWED: 'Questionnaire_QR_Item_Group',
  QR_DISPLAY_NO_ANSWERS: 'QUESTIONNAIRE_QR_ITEM_DISPLAY_NO_VALUE',
  QR_MAX_OCCURS: 'QUESTIONNAIRE_QR_ITEM_MAX_OCCURS',
  QR_MIN_OCCURS: 'QUESTIONNAIRE_QR_ITEM_MIN_OCCURS',
  QR_ANSWER_TYPE: 'Questionnaire_QR_Item_WrongType',
  QR_ANSWER_TYPES: 'Questionnaire_QR_Item_WrongType',
  QR_VALUE_BELOW_MIN: OWN_RULE,
  QR_VALUE_ABOVE_MAX: OWN_RULE,
  QR_VALUE_UNREADABLE: OWN_RULE,
  QR_TOO_SHORT: 'QUESTIONNAIRE_QR_ITEM_STRING_MIN_LENGTH',
  QR_TOO_LONG: 'QUESTIONNAIRE_QR_ITEM_STRING_MAX_LENGTH',
  QR_REGEX: 'QUESTIONNAIRE_QR_ITEM_STRING_REGEX_EF',
  QR_STRING_LINE_BREAKS: 'QUESTIONNAIRE_QR_ITEM_STRING_ILLEGAL_CHARS',
  QR_DECIMAL_PLACES: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_MAX_DECIMALS',
  QR_QTY_MIN_NO_UNITS: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_CANNOT_COMPARE_MIN_UNITS',
  QR_QTY_MAX_NO_UNITS: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_CANNOT_COMPARE_MAX_UNITS',
  QR_QTY_MIN_INCOMPATIBLE: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_CANNOT_COMPARE_MIN',
  QR_QTY_MAX_INCOMPATIBLE: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_CANNOT_COMPARE_MAX',
  QR_QTY_BELOW_MIN: 'QUESTIONNAIRE_QR_ITEM_QUANTITY_MIN',
  QR_QTY_ABOVE_MAX: 'QUESTIONNAIRE_QR_ITEM_QUANTITY_MAX',
  QR_UNIT_NOT_ALLOWED: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_INVALID_UNITS',
  QR_UNIT_VALUE_SET_NOT_FOUND: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_INVALID_UNIT_VS',
  QR_UNIT_NOT_IN_VALUE_SET: 'QUESTIONNAIRE_QR_ITEM_DECIMAL_UNIT_FAIL_VS',
  QR_ATTACHMENT_NO_CONTENT_TYPE: 'QUESTIONNAIRE_QR_ITEM_NOT_ATTACHMENT_MIMETYPE',
  QR_ATTACHMENT_CONTENT_TYPE: 'QUESTIONNAIRE_QR_ITEM_BAD_ATTACHMENT_MIMETYPE',
  QR_ATTACHMENT_SIZE: 'QUESTIONNAIRE_QR_ITEM_BAD_ATTACHMENT_LENGTH',
  QR_REFERENCE_TARGET: 'QUESTIONNAIRE_QR_ITEM_REF_INVALID',
  QR_REFERENCE_TARGET_UNKNOWN: 'QUESTIONNAIRE_QR_ITEM_REF_CANT',
  QR_VALUE_SET_NOT_FOUND: 'QUESTIONNAIRE_QR_ITEM_VS_BAD',
  QR_NOT_IN_VALUE_SET: 'QUESTIONNAIRE_QR_ITEM_VS_FAIL',
  QR_OPTION_NOT_IN_VALUE_SET: 'Questionnaire_QR_Item_BadOption',
  QR_OPTION_SYSTEM_UNCHECKED: 'QUESTIONNAIRE_QR_ITEM_BADOPTION_CS',
  QR_OPTION_CHECK_FAILED: 'Questionnaire_QR_Item_Coding',
  QR_NOT_AN_OPTION: {
    byArg: 0,
    ids: { integer: 'Questionnaire_QR_Item_NoInteger', date: 'Questionnaire_QR_Item_NoDate', time: 'Questionnaire_QR_Item_NoTime', string: 'Questionnaire_QR_Item_NoString' },
    ours: 'HL7 lists options of these four kinds only',
  },
  QR_CODING_NOT_AN_OPTION: 'Questionnaire_QR_Item_NoCoding',
  QR_NO_OPTIONS_OF_TYPE: {
    byArg: 0,
    ids: {
      integer: 'Questionnaire_QR_Item_NoOptionsInteger', date: 'Questionnaire_QR_Item_NoOptionsDate', time: 'Questionnaire_QR_Item_NoOptionsTime',
      string: 'Questionnaire_QR_Item_NoOptionsString', coding: 'Questionnaire_QR_Item_NoOptionsCoding',
    },
    ours: 'HL7 lists options of these five kinds only',
  },
  QR_NO_OPTION_LIST: {
    byArg: 0,
    ids: {
      integer: 'Questionnaire_QR_Item_IntNoOptions', date: 'Questionnaire_QR_Item_DateNoOptions', time: 'Questionnaire_QR_Item_TimeNoOptions',
      string: 'Questionnaire_QR_Item_StringNoOptions', coding: 'Questionnaire_QR_Item_CodingNoOptions',
    },
    ours: 'HL7 lists options of these five kinds only',
  },
  QR_NO_OPTIONS: 'Questionnaire_QR_Item_NoOptions',
  QR_OPTION_EXCLUSIVE: 'QUESTIONNAIRE_QR_ITEM_EXCLUSIVE',
  QR_STRING_MATCHES_OPTION: 'QUESTIONNAIRE_QR_ITEM_STRING_IN_CODING',
  Q_ENABLEWHEN_NO_QUESTION: 'Questionnaire_Q_EnableWhen_NoLink',
  Q_ENABLEWHEN_INNER: 'Questionnaire_Q_EnableWhen_IsInner',
  Q_ENABLEWHEN_NO_TARGET: 'Questionnaire_Q_EnableWhen_NoTarget',
  Q_ENABLEWHEN_SELF: 'Questionnaire_Q_EnableWhen_Self',
  Q_ENABLEWHEN_AFTER: 'Questionnaire_Q_EnableWhen_After',
  Q_DERIVATION_UNKNOWN: 'QUESTIONNAIRE_Q_UNKNOWN_DERIVATION',
  Q_DERIVATION_NO_TYPE: 'QUESTIONNAIRE_Q_NO_DERIVATION_TYPE',
  Q_DERIVATION_NO_TYPE_VALUE: 'QUESTIONNAIRE_Q_NO_DERIVATION_TYPE_VALUE',
  Q_DERIVATION_TYPE_IGNORED: 'QUESTIONNAIRE_Q_DERIVATION_TYPE_IGNORED',
  Q_DERIVATION_TYPE_UNKNOWN: 'QUESTIONNAIRE_Q_DERIVATION_TYPE_UNKNOWN',
  Q_DERIVED_ITEM_MISSING: 'QUESTIONNAIRE_Q_ITEM_NOT_DERIVED',
  Q_DERIVED_TYPE_CHANGED: 'QUESTIONNAIRE_Q_ITEM_DERIVED_NC_TYPE',
  Q_DERIVED_REPEATS_CHANGED: 'QUESTIONNAIRE_Q_ITEM_DERIVED_NC_REPEATS',
  Q_DERIVED_REQUIRED_CHANGED: 'QUESTIONNAIRE_Q_ITEM_DERIVED_NC_REQUIRED',
  Q_DERIVED_ANSWER_KIND_CHANGED: 'QUESTIONNAIRE_Q_ITEM_DERIVED_NC_ANSWER_TYPE',
  Q_DERIVED_NO_ANSWER_OPTIONS: 'QUESTIONNAIRE_Q_ITEM_DERIVED_ANSWER_OPTIONS',
  Q_DERIVED_NEW_ANSWER_OPTION: 'QUESTIONNAIRE_Q_ITEM_DERIVED_ANSWER_OPTIONS_NEW',
  Q_DERIVED_MAXLENGTH_CHANGED: 'QUESTIONNAIRE_Q_ITEM_DERIVED_NC_MAXLENGTH',

  CANONICAL_WRONG_TYPE: 'TYPE_SPECIFIC_CHECKS_DT_CANONICAL_TYPE',
  URL_NOT_RESOLVED: 'Type_Specific_Checks_DT_URL_Resolve',
  CANONICAL_NOT_RESOLVED: 'TYPE_SPECIFIC_CHECKS_DT_CANONICAL_RESOLVE',
  CANONICAL_NOT_LOADABLE: 'TYPE_SPECIFIC_CHECKS_DT_CANONICAL_RESOLVE_NC',
  REFERENCE_AGGREGATION: 'Reference_REF_Aggregation',
  REFERENCE_NOT_FOUND_BUNDLE: 'Reference_REF_NotFound_Bundle',
  // HL7 declares it as UNICODE_XML_BAD_CHARS_one / _other: one character or several
  UNICODE_XML_BAD_CHAR: 'UNICODE_XML_BAD_CHARS',
  MR_GROUP_NO_CODE: 'MEASURE_MR_GRP_NO_CODE',
  MR_GROUP_NO_MATCH: 'MEASURE_MR_GRP_UNK_CODE',
  MR_GROUP_DUPLICATE: 'MEASURE_MR_GRP_DUPL_CODE',
  MR_GROUP_NO_USABLE_CODE: 'MEASURE_MR_GRP_NO_USABLE_CODE',
  MR_GROUP_WRONG_CODE: 'MEASURE_MR_GRP_NO_WRONG_CODE',
  MR_GROUP_MISSING: 'MEASURE_MR_GRP_MISSING_BY_CODE',
  MR_POPULATION_NO_CODE: 'MEASURE_MR_GRP_POP_NO_CODE',
  MR_POPULATION_NO_MATCH: 'MEASURE_MR_GRP_POP_UNK_CODE',
  MR_POPULATION_DUPLICATE: 'MEASURE_MR_GRP_POP_DUPL_CODE',
  MR_POPULATION_COUNT_MISMATCH: 'MEASURE_MR_GRP_POP_COUNT_MISMATCH',
  MR_POPULATION_NO_SUBJECTS: 'MEASURE_MR_GRP_POP_NO_SUBJECTS',
  MEASURE_CQL_NO_LIBRARY: 'MEASURE_M_CRITERIA_CQL_NO_LIB',
  MEASURE_CQL_LIBRARY_NOT_FOUND: 'MEASURE_M_CRITERIA_CQL_LIB_NOT_FOUND',
  MEASURE_CQL_ONLY_ONE_LIBRARY: 'MEASURE_M_CRITERIA_CQL_ONLY_ONE_LIB',
  MEASURE_CQL_NOT_FOUND: 'MEASURE_M_CRITERIA_CQL_NOT_FOUND',
  SD_OBLIGATION_PROFILE_DERIVATION: 'SD_OBGLIGATION_PROFILE_DERIVATION',
  SD_OBLIGATION_PROFILE_UNMATCHED: 'SD_OBGLIGATION_PROFILE_UNMATCHED',
  SD_OBLIGATION_PROFILE_ILLEGAL: 'SD_OBGLIGATION_PROFILE_ILLEGAL',
  SD_OBLIGATION_PROFILE_ILLEGAL_BINDING: 'SD_OBGLIGATION_PROFILE_ILLEGAL_BINDING',
  SD_OBLIGATION_PROFILE_ILLEGAL_ON_BINDING: 'SD_OBGLIGATION_PROFILE_ILLEGAL_ON_BINDING',
  SD_OBLIGATION_PROFILE_INVALID_BINDING_CODE: 'SD_OBGLIGATION_PROFILE_INVALID_BINDING_CODE',
  SD_OBLIGATION_PROFILE_INVALID_BINDING_STRENGTH: 'SD_OBGLIGATION_PROFILE_INVALID_BINDING_STRENGTH',
  SD_OBLIGATION_PROFILE_PATH_WRONG: 'SD_OBGLIGATION_PROFILE_PATH_WRONG',
  SD_OBLIGATION_INHERITS_NO_TARGET: 'SD_OBGLIGATION_INHERITS_PROFILE_NO_TARGET',
  SD_OBLIGATION_INHERITS_NOT_FOUND: 'SD_OBGLIGATION_INHERITS_PROFILE_TARGET_NOT_FOUND',
  SD_OBLIGATION_INHERITS_NOT_OBLIGATION: 'SD_OBGLIGATION_INHERITS_PROFILE_NOT_RIGHT_TYPE',
  SD_OBLIGATION_INHERITS_WRONG_BASE: 'SD_OBGLIGATION_INHERITS_PROFILE_NOT_RIGHT_BASE',
  MEASURE_MR_SCORE_PROHIBITED_RT: 'MEASURE_MR_SCORE_PROHIBITED_RT',
  MEASURE_MR_SCORE_REQUIRED: 'MEASURE_MR_SCORE_REQUIRED',
  MEASURE_MR_SCORE_UNIT_PROHIBITED: 'MEASURE_MR_SCORE_UNIT_PROHIBITED',
  MEASURE_MR_SCORE_VALUE_REQUIRED: 'MEASURE_MR_SCORE_VALUE_REQUIRED',
  MEASURE_MR_SCORE_VALUE_INVALID_01: 'MEASURE_MR_SCORE_VALUE_INVALID_01',
  MEASURE_MR_SCORE_FIXED: 'MEASURE_MR_SCORE_FIXED',
  MEASURE_MR_SCORE_UNIT_REQUIRED: 'MEASURE_MR_SCORE_UNIT_REQUIRED',
  MR_STRATIFIER_NO_MATCH: 'MEASURE_MR_GRP_STRAT_NO_CODE',
  MR_STRATIFIER_MISSING: 'MEASURE_MR_GRP_STRAT_MISSING_BY_CODE',
  CAPABILITY_SEARCH_TYPE: 'CapabalityStatement_CS_SP_WrongType',
  SEARCH_EXPRESSION_TYPE: 'ED_SEARCH_EXPRESSION_ERROR',
  SEARCH_BASE_NOT_IN_PARENT: 'SEARCHPARAMETER_BASE_WRONG',
  OPDEF_PROFILE_CARDINALITY: 'OPDEF_PROFILE_NOT_VALUE_MISMATCH',
  OPDEF_PROFILE_TYPE_EXTRA: 'OPDEF_PROFILE_TYPE_NOT_IN_PARAMS',
  OPDEF_PROFILE_TYPE_MISSING: 'OPDEF_PROFILE_TYPE_NOT_IN_PROFILE',
  OPDEF_PROFILE_TARGET_EXTRA: 'OPDEF_PROFILE_PROFILE_NOT_IN_PARAMS',
  OPDEF_PROFILE_TARGET_MISSING: 'OPDEF_PROFILE_PROFILE_NOT_IN_PROFILE',
  MEASURE_COHORT_SCORE: 'MEASURE_MR_SCORE_PROHIBITED_MS',

  // StructureDefinitions
  SNAPSHOT_ERROR: 'ERROR_GENERATING_SNAPSHOT',
  SD_BASE_NOT_FOUND: 'Unable_to_find_base__for_',
    SD_ROOT_SLICING: 'SD_NO_SLICING_ON_ROOT',
  SD_NO_MATCH: OWN_RULE,
  SD_UNMATCHED_SUMMARY: OWN_RULE,
  SD_SLICING_REDEFINED: 'ATTEMPT_TO_CHANGE_SLICING',
  SD_DISCRIMINATOR_PATH: 'SD_PATH_NOT_VALID',
  SD_BINDING_NOT_CODED: 'SD_ILLEGAL_CHARACTERISTICS',

  // profiles and terminology
  PROFILE_NOT_FOUND: 'Validation_VAL_Profile_Unknown',
  VALIDATION_VAL_UNKNOWN_PROFILE: 'Validation_VAL_Unknown_Profile',
  PROFILE_NO_SNAPSHOT: 'Validation_VAL_Profile_NoSnapshot',
  VALIDATION_VAL_PROFILE_NOMATCH: 'Validation_VAL_Profile_NoMatch',
  VALIDATION_VAL_PROFILE_MULTIPLEMATCHES: 'Validation_VAL_Profile_MultipleMatches',
  PROFILE_WRONG_TYPE: 'Validation_VAL_Profile_WrongType',
  VALUE_SET_NOT_FOUND: 'Terminology_TX_ValueSet_NotFound',
  BINDING_REQUIRED_CODE: 'Terminology_TX_NoValid_16',
  BINDING_REQUIRED_CONCEPT: 'Terminology_TX_NoValid_1_CC',
  BINDING_ADDITIONAL_REQUIRED: 'Terminology_TX_NoValid_1_CC',
  BINDING_EXTENSIBLE_CONCEPT: 'Terminology_TX_NoValid_2_CC',
  BINDING_PREFERRED_CONCEPT: 'Terminology_TX_NoValid_3_CC',

  // terminology resources' own rules and Attachment (messages-type-rules.ts): the keys are HL7's ids, except
  TYPE_SPECIFIC_CHECKS_DT_ATT_DATA_INVALID: OWN_RULE,
  CODESYSTEM_CS_VS_INVALID: 'CodeSystem_CS_VS_Invalid',
  CODESYSTEM_CS_VS_WRONGSYSTEM: 'CodeSystem_CS_VS_WrongSystem',
  CODESYSTEM_CS_VS_INCLUDEDETAILS: 'CodeSystem_CS_VS_IncludeDetails',
  // rules HL7 has, whose message ids we have not read in a stored Messages.properties
  STRING_TOO_SHORT: OWN_RULE,
  SD_TYPE_NOT_LOCAL: OWN_RULE,
  SD_TYPE_NOT_MATCH_NS: OWN_RULE,
};

/**
 * Terminology catalogue keys (domain/terminology/terminology-messages.ts) that are not HL7's own ids:
 * the HL7 id of the same message. The other keys of that catalogue are HL7's.
 */
export const TERMINOLOGY_HL7_IDS: Readonly<Record<string, string>> = {
  // HL7 6.x reports an unknown code system as UNKNOWN_CODESYSTEM (earlier: `Code System URI … is unknown`)
  Terminology_TX_System_NotKnown: 'UNKNOWN_CODESYSTEM',
  Unable_to_resolve_system__value_set_has_no_matches: 'UNABLE_TO_INFER_CODESYSTEM',
};

/** The id an issue of this message carries: HL7's, or (marked `ours` above) the engine key itself. */
export function messageIdOf(key: MessageId, args: readonly unknown[]): string {
  const source = HL7_MESSAGE_IDS[key];
  if (source === undefined) return key;
  if (typeof source === 'string') return source;
  if ('byArg' in source) return source.ids[String(args[source.byArg])] ?? key;
  return key;
}

/** Every id a message can carry (the HL7 ids it maps to, and the engine key where ours). */
export function possibleMessageIds(key: MessageId): string[] {
  const source = HL7_MESSAGE_IDS[key];
  if (source === undefined || typeof source === 'string') return [source ?? key];
  if ('byArg' in source) return [...Object.values(source.ids), key];
  return [key];
}

/** HL7_MESSAGE_IDS by any text (canonicalMessageId is asked about ids that are not engine keys too). */
const HL7_SOURCE_BY_KEY = new Map<string, MessageIdSource | undefined>(Object.entries(HL7_MESSAGE_IDS));

/**
 * The HL7 id of a message id as stored: outcomes validated before issues carried HL7 ids hold the
 * engine key (`EXTENSION_UNKNOWN`); a rule written against HL7 ids should select them too. An id
 * that is not an engine key (HL7's, or another validator's) is returned unchanged.
 */
export function canonicalMessageId(id: string): string {
  const terminology = Object.hasOwn(TERMINOLOGY_HL7_IDS, id) ? TERMINOLOGY_HL7_IDS[id] : undefined;
  if (terminology !== undefined) return terminology;
  const source = HL7_SOURCE_BY_KEY.get(id);
  return typeof source === 'string' ? source : id;
}
