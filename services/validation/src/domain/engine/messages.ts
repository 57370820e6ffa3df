/**
 * Message catalogue: the engine's message key → text template and the FHIR issue type. The text an
 * issue gets comes from the active wording's catalogue (wording.ts, wordings/*.json); `text` here is
 * the fallback for a message the catalogues do not have yet. The id an issue carries is the HL7
 * validator's (message-ids.ts maps each key; a new message keyed by its HL7 id needs no mapping).
 * Placeholders are {0}, {1}, ... The specification's own two shapes win where they differ
 * from the HL7 wording: `Can't find profile <url>` and `Can't find value set <url>`.
 */
import { TYPE_RULE_MESSAGES } from './messages-type-rules.js';
import { fillTemplate, wordedTemplate } from './wording.js';

export interface MessageDefinition {
  text: string;
  /** FHIR issue-type code. */
  code: string;
}

export const MESSAGES = {
  // JSON syntax and shape
  JSON_PARSE_ERROR: { text: 'Error parsing JSON: {0}', code: 'invalid' },
  JSON_COMMENTS_NOT_ALLOWED: { text: 'Comments are not allowed in JSON', code: 'invalid' },
  JSON_COMMA_MISSING: { text: 'A Comma is missing in the JSON', code: 'invalid' },
  JSON_COMMA_EXTRA_ARRAY: { text: 'There is an extra comma at the end of the Array in the JSON', code: 'invalid' },
  JSON_COMMA_EXTRA_OBJECT: { text: 'There is an extra comma at the end of the Object in the JSON', code: 'invalid' },
  DUPLICATE_JSON_PROPERTY: { text: 'The JSON property \'{0}\' is a duplicate and will be ignored', code: 'invalid' },
  JSON_TOO_DEEP: { text: '{0}', code: 'too-costly' },
  JSON_TOO_LARGE: { text: '{0}', code: 'too-costly' },
  // XML syntax and shape (HL7's XmlParser; ids are HL7's I18nConstants, texts its newest wording)
  XML_PARSE_ERROR: { text: '{0}', code: 'invalid' },
  XML_TOO_DEEP: { text: '{0}', code: 'too-costly' },
  XML_TOO_LARGE: { text: '{0}', code: 'too-costly' },
  Undefined_element_: { text: 'Undefined element \'{0}\' at {1}', code: 'structure' },
  Undefined_attribute__on__for_type__properties__: { text: 'Undefined attribute \'@{0}\' on {1} for type {2}', code: 'structure' },
  Wrong_namespace__expected_: { text: 'Wrong namespace - expected \'{0}\'', code: 'invalid' },
  Element_must_have_some_content: { text: 'Element must have some content', code: 'invalid' },
  Text_should_not_be_present: { text: 'Text should not be present (\'{0}\')', code: 'structure' },
  CDATA_is_not_allowed: { text: 'CDATA is not allowed', code: 'structure' },
  Node_type__is_not_allowed: { text: 'Node type {0} is not allowed', code: 'structure' },
  No_processing_instructions_allowed_in_resources: { text: 'No processing instructions allowed in resources', code: 'invalid' },
  xml_stated_encoding_invalid: { text: 'The XML encoding stated in the header is invalid (must be \'UTF-8\' if stated)', code: 'invalid' },
  This__cannot_be_parsed_as_a_FHIR_object_no_namespace: { text: 'This \'{0}\' cannot be parsed as a FHIR object (no namespace)', code: 'structure' },
  This_does_not_appear_to_be_a_FHIR_resource_unknown_namespacename_: { text: 'This does not appear to be a FHIR resource (unknown namespace/name \'{0}::{1}\')', code: 'structure' },
  This_does_not_appear_to_be_a_FHIR_resource_unknown_name_: { text: 'This does not appear to be a FHIR resource (unknown name \'{0}\')', code: 'structure' },
  Contained_resource_does_not_appear_to_be_a_FHIR_resource_unknown_name_: { text: 'Contained resource does not appear to be a FHIR resource (unknown name \'{0}\')', code: 'structure' },
  Validation_VAL_Profile_OutOfOrder: { text: 'As specified by profile {0}, Element \'{1}\' is out of order (found after {2})', code: 'invalid' },
  Type_Specific_Checks_DT_Boolean_Value: { text: 'boolean values must be \'true\' or \'false\'', code: 'invalid' },
  PRIMITIVE_PROPERTY_INVALID: { text: 'The property \'{0}\' is invalid', code: 'structure' },
  UNRECOGNISED_PROPERTY: { text: 'Unrecognized property \'{0}\'', code: 'structure' },
  JSON_PROPERTY_NO_ARRAY: { text: 'The property {0} must be a JSON Array, not {1} (at {2})', code: 'structure' },
  JSON_BASE_PROPERTY_NO_ARRAY: { text: 'The property {0} must be a JSON Array, not {1} (at {2})', code: 'structure' },
  OBJECT_MUST_HAVE_SOME_CONTENT: { text: 'Object must have some content', code: 'invalid' },
  JSON_PROPERTY_NO_QUOTES: { text: 'The JSON property \'{0}\' has no quotes around the name of the property', code: 'invalid' },
  JSON_PROPERTY_VALUE_NO_QUOTES: { text: 'The JSON property \'{0}\' has no quotes around the value of the property \'{1}\'', code: 'invalid' },
  JSON_PROPERTY_VALUE_NOT_ARRAY: { text: 'This property must be {0}, not an Array (at {1})', code: 'structure' },
  JSON_PROPERTY_NOT_OBJECT: { text: 'The property {0} must be an Object, not {1} (at {2})', code: 'structure' },
  JSON_PRIMITIVE_WRONG_TYPE: { text: 'Error parsing JSON: the primitive value must be {0} (at {1})', code: 'structure' },
  JSON_NULL_NOT_ALLOWED: { text: 'The property {0} cannot be null (at {1})', code: 'structure' },
  ARRAY_CANNOT_BE_EMPTY: { text: 'Array cannot be empty - the property should not be present if it has no values', code: 'structure' },
  RESOURCETYPE_MISSING: { text: 'Unable to find resourceType property', code: 'structure' },
  RESOURCETYPE_UNKNOWN: { text: 'Unknown resource type \'{0}\'', code: 'structure' },
  RESOURCE_NOT_OBJECT: { text: 'The content is not a JSON object, so it cannot be a FHIR resource', code: 'structure' },
  INTERNAL_ERROR: { text: 'Validation could not be completed: {0}', code: 'exception' },
  NESTING_TOO_DEEP: { text: 'The resource is nested too deeply (more than {0} levels)', code: 'too-costly' },
  // publication settings (rules/publication.ts), keyed by HL7's message ids
  NO_EXPERIMENTAL_CONTENT: { text: 'Experimental content is not allowed in this context', code: 'business-rule' },
  VALIDATION_HL7_WG_NEEDED: { text: 'When HL7 is publishing a resource, the owning committee must be stated using the {0} extension', code: 'business-rule' },
  VALIDATION_HL7_PUBLISHER_MULTIPLE_WGS: { text: 'This resource has more than one workgroup extension', code: 'business-rule' },
  // maxValidationMessages (validator-options.ts): what was dropped past the limit
  VALIDATION_MESSAGES_TRUNCATED: { text: 'Only the first {0} issues are reported; {1} more were found', code: 'too-costly' }, // (ours)
  // Deadlines: given by the worker pool when a validation passes its budget (the engine itself never times out).
  VALIDATION_TIMEOUT: { text: 'Validation of this resource did not finish within {0} ms', code: 'timeout' },
  SUBMISSION_TIMEOUT: { text: 'Validation of the submission did not finish within {0} ms, so this resource was not validated', code: 'timeout' },
  // Memory budget: given by the worker pool when a worker passes its heap limit validating this resource.
  FHIRPATH_TOO_COSTLY: { text: 'The FHIRPath expression \'{0}\' was not evaluated to its end: it produced more than {1} items', code: 'too-costly' },
  VALIDATION_OUT_OF_MEMORY: { text: 'Validation of this resource needed more than {0} MB of memory and was stopped', code: 'too-costly' },

  DUPLICATE_ID: { text: 'Duplicate id value \'{0}\'', code: 'invalid' },

  // cardinality and types
  CARDINALITY_MIN: { text: '{0}: minimum required = {1}, but only found {2} (from {3})', code: 'structure' },
  CARDINALITY_MAX: { text: '{0}: max allowed = {1}, but found {2} (from {3})', code: 'structure' },
  CHOICE_TYPE_NOT_ALLOWED: { text: 'The Profile \'{0}\' definition allows for the type {1} but found type {2}', code: 'structure' },
  CHOICE_TYPE_UNKNOWN: { text: 'The type of element {0} is not known - it could not be determined from the information available. Valid types at this point are {1}', code: 'structure' },
  CHOICE_MULTIPLE: { text: 'Only one of the choice properties {0} may be present, but found {1}', code: 'structure' },
  ABSTRACT_TYPE: { text: 'The type \'{0}\' is abstract and cannot be used here', code: 'structure' },

  // primitives
  PRIMITIVE_NO_VALUE: { text: 'Primitive types must have a value or must have child extensions', code: 'invalid' },
  PRIMITIVE_MUSTHAVEVALUE_MESSAGE: { text: 'The element definition ``{0}`` in the profile \'{1}\' requires that a value be present in this element', code: 'required' },
  PRIMITIVE_VALUE_ALTERNATIVES_MESSAGE: { text: 'The element definition ``{0}`` in the profile \'{1}\' requires that if a value is not present, the extension \'{2}\' must be present', code: 'required' },
  PRIMITIVE_EMPTY_STRING: { text: '@value cannot be empty', code: 'invalid' },
  PRIMITIVE_WHITESPACE_ONLY: { text: 'Primitive types should not only be whitespace', code: 'invalid' },
  URI_OID_PREFIX: { text: 'URI values cannot start with oid:', code: 'invalid' },
  URI_UUID_PREFIX: { text: 'URI values cannot start with uuid:', code: 'invalid' },
  STRING_WHITESPACE: { text: 'value should not start or finish with whitespace \'{0}\'', code: 'value' },
  STRING_ALL_WHITESPACE: { text: 'This value is all whitespace, which is not allowed (\'{0}\')', code: 'value' },
  STRING_TOO_LONG: { text: 'value is longer than permitted maximum length of {0}', code: 'value' },
  STRING_TOO_SHORT: { text: 'Value \'{0}\' is shorter than permitted minimum length of {1}', code: 'value' },
  STRING_EXCEEDS_SIZE: { text: 'The value is longer than the maximum allowed for a string in FHIR ({0} characters)', code: 'value' },
  STRING_HTML: { text: 'The string value contains text that looks like embedded HTML tags, which are not allowed for security reasons in this context', code: 'security' },
  INTEGER_INVALID: { text: 'The value \'{0}\' is not a valid integer', code: 'value' },
  INTEGER_RANGE_POS: { text: 'The value \'{0}\' must be greater than 0', code: 'value' },
  INTEGER_RANGE_UNSIGNED: { text: 'The value \'{0}\' must not be negative', code: 'value' },
  DECIMAL_INVALID: { text: 'The value \'{0}\' is not a valid decimal', code: 'value' },
  DECIMAL_RANGE: { text: 'The value \'{0}\' is outside the range of commonly/reasonably supported decimals', code: 'value' },
  DATE_INVALID: { text: 'Not a valid date format: \'{0}\'', code: 'invalid' },
  DATETIME_INVALID: { text: 'Not a valid date/time ({0})', code: 'invalid' },
  DATETIME_NEEDS_TZ: { text: 'If a date has a time, it must have a timezone', code: 'invalid' },
  INSTANT_INVALID: { text: 'Not a valid instant ({0})', code: 'invalid' },
  TIME_INVALID: { text: 'Not a valid time ({0})', code: 'invalid' },
  BASE64_INVALID: { text: 'The value \'{0}\' is not a valid Base64 value', code: 'invalid' },
  BASE64_WHITESPACE: { text: 'Base64 encoded values SHOULD not contain any whitespace (per RFC 4648). Note that non-validating readers are encouraged to accept whitespace anyway', code: 'invalid' },
  ID_TOO_LONG: { text: 'Invalid Resource id: Too long ({0} chars)', code: 'invalid' },
  ID_INVALID_CHARS: { text: 'Invalid Resource id: Invalid Characters (\'{0}\')', code: 'invalid' },
  ELEMENT_ID_INVALID: { text: 'Invalid id value: \'{0}\'', code: 'invalid' },
  CODE_WHITESPACE: { text: 'The code \'{0}\' is not valid (whitespace rules)', code: 'invalid' },
  URI_WHITESPACE: { text: 'URI values cannot have whitespace(\'{0}\')', code: 'invalid' },
  EXAMPLE_URL: { text: 'Example URLs are not allowed in this context ({0})', code: 'invalid' },
  URL_NOT_ABSOLUTE: { text: 'Canonical URLs must be absolute URLs if they are not fragment references ({0})', code: 'invalid' },
  OID_INVALID: { text: 'OIDs must be valid ({0})', code: 'invalid' },
  OID_START: { text: 'OIDs must start with urn:oid: ({0})', code: 'invalid' },
  UUID_START: { text: 'UUIDs must start with urn:uuid: ({0})', code: 'invalid' },
  UUID_INVALID: { text: 'UUIDs must be valid and lowercase ({0})', code: 'invalid' },
  XHTML_INVALID: { text: 'The XHTML is not well formed: {0}', code: 'invalid' },
  XHTML_XHTML_Entity_Illegal: { text: 'Illegal entity in the XHTML (\'{0}\')', code: 'invalid' },
  XHTML_NAMESPACE: { text: 'Wrong namespace on the XHTML (\'{0}\', should be \'http://www.w3.org/1999/xhtml\')', code: 'invalid' },
  XHTML_ELEMENT: { text: 'Invalid element name in the XHTML (\'{0}\')', code: 'invalid' },
  XHTML_ATTRIBUTE: { text: 'The element \'{0}\' has an attribute \'{1}\' that is not allowed in narrative', code: 'invalid' },
  XHTML_ROOT: { text: 'Wrong name on the XHTML (\'{0}\') - must start with div', code: 'invalid' },
  XHTML_DOCTYPE: { text: 'Malformed XHTML: Found a DocType declaration, and these are not allowed (XXE security vulnerability protection)', code: 'invalid' },
  XHTML_CONTROL_NO_LANGS: { text: 'The xhtml has some language sections ({0}), but language sections are prohibited in this context by the profile {1}', code: 'business-rule' },
  XHTML_CONTROL_LANGS_REQUIRED: { text: 'The xhtml has no language sections, but language sections are required in this context by the profile {1}', code: 'business-rule' },
  XHTML_CONTROL_LANGS_REQUIRED_LANG: { text: 'The profile {2} requires a section in the narrative for the language \'{0}\', but it was not found (found {1})', code: 'business-rule' },
  XHTML_URL_INVALID: { text: 'The URL is not valid because \'({1})\': {0}', code: 'invalid' },
  XHTML_LINK_UNRESOLVED: { text: 'Hyperlink \'{0}\' at \'{1}\' for \'{2}\' does not resolve', code: 'invalid' },
  Type_Specific_Checks_DT_XHTML_Resolve_Img: { text: 'Image source \'{0}\' at \'{1}\' does not resolve', code: 'invalid' },
  PRIMITIVE_REGEX: { text: 'Element value \'{0}\' does not meet regex \'{1}\'', code: 'value' },
  REGEX_EXCEPTION: { text: 'Exception evaluating regex \'{0}\' on type {1}: {2}', code: 'processing' },
  MARKDOWN_HTML: { text: 'The markdown contains content that appears to be an embedded HTML tag starting at \'{0}\'. This will (or SHOULD) be escaped by the presentation layer. The content should be checked to confirm that this is the desired behaviour', code: 'value' },

  // values
  FIXED_VALUE: { text: 'Value is \'{0}\' but must be \'{1}\'', code: 'value' },
  PATTERN_MISMATCH: { text: 'The value does not match the pattern required by the profile {1}: expected {0}', code: 'value' },
  // HL7 PROFILE_VAL_MISSINGELEMENT, PROFILE_VAL_NOTALLOWED, EXTENSION_EXT_FIXED_BANNED, TERMINOLOGY_TX_CODING_COUNT (and the
  // FIXED_TYPE_CHECKS_DT_* counts), TYPE_CHECKS_PATTERN_CC: differences inside a complex fixed/pattern value
  FIXED_MISSING_ELEMENT: { text: 'Missing element \'{0}\' - required by fixed value assigned in profile {1}', code: 'value' },
  FIXED_NOT_ALLOWED: { text: 'The element {0} is present in the instance but not allowed in the applicable {1} specified in profile', code: 'value' },
  FIXED_EXTENSIONS_BANNED: { text: 'No extensions allowed, as the specified fixed value doesn\'t contain any extensions', code: 'value' },
  FIXED_COUNT: { text: 'Expected {0} but found {1} {2} elements', code: 'value' },
  PATTERN_CODING_NOT_FOUND: { text: 'The pattern [system {0}, code {1}, and display "{2}"] defined in the profile {3} not found. Issues: [{4}]', code: 'value' },
  PATTERN_VALUE: { text: 'Value is \'{0}\' but is expected to be \'{1}\' (pattern in profile {2})', code: 'value' },
  TYPE_SPECIFIC_CHECKS_DT_QTY_NO_ANNOTATIONS: { text: 'UCUM Codes that contain human readable annotations like {0} can be misleading. Best Practice is not to use annotations in the UCUM code, and rather to make sure that Quantity.unit is correctly human readable', code: 'business-rule' },
  MIN_VALUE_UCUM: { text: 'The value in the instance ({0}) is less than the specified minValue ({1}) after UCUM conversion', code: 'value' },
  MAX_VALUE_UCUM: { text: 'The value in the instance ({0}) is greater than the specified maxValue ({1}) after UCUM conversion', code: 'value' },
  MIN_VALUE: { text: 'The value in the instance ({0}) is less than the specified minimum value ({1})', code: 'value' },
  MAX_VALUE: { text: 'The value in the instance ({0}) is greater than the specified maximum value ({1})', code: 'value' },

  // slicing
  SLICE_UNMATCHED_CLOSED: { text: 'This element does not match any known slice defined in the profile {0} and slicing is CLOSED: {1}', code: 'structure' },
  SLICE_UNMATCHED_OPEN: { text: 'This element does not match any known slice defined in the profile {0}', code: 'informational' },
  SLICE_REQUIRED_OPEN: { text: 'Slice \'{0}\': a matching slice is required, but not found (from {1}). Note that other slices are allowed in addition to this required slice', code: 'structure' },
  SLICE_REQUIRED_CLOSED: { text: 'Slice \'{0}\': a matching slice is required, but not found (from {1})', code: 'structure' },
  SLICE_ORDER: { text: 'As specified by profile {0}, Element \'{1}\' is out of order in ordered slice', code: 'structure' },
  // HL7 VALIDATION_VAL_PROFILE_MATCHMULTIPLE
  SLICE_MATCH_MULTIPLE: { text: 'Profile {0}, Element matches more than one slice - {1}, {2}', code: 'invalid' },

  // invariants
  INVARIANT_FAILED: { text: 'Rule {0}: \'{1}\' Failed', code: 'invariant' },
  INVARIANT_FAILED_BEST_PRACTICE: { text: 'Rule {0}: \'{1}\' Failed (Best Practice Recommendation)', code: 'invariant' },
  INVARIANT_BROKEN: { text: 'Problem evaluating the invariant {0} (\'{1}\'): {2}', code: 'informational' },
  Problem_processing_expression__in_profile__path__: { text: 'Problem processing expression \'{0}\' in profile \'{1}\' at path \'{2}\': {3}', code: 'invariant' },

  // extensions
  // HL7 EXTENSION_EXT_UNKNOWN_NOTHERE (the modifier form keeps a wording of its own, so that it can be told apart)
  EXTENSION_UNKNOWN: { text: 'The extension {0} could not be found so is not allowed here', code: 'structure' },
  EXTENSION_UNKNOWN_ALLOWED: { text: 'Unknown extension {0}', code: 'informational' },
  EXTENSION_MODIFIER_UNKNOWN: { text: 'The modifier extension {0} is unknown, and not allowed here', code: 'structure' },
  EXTENSION_NO_URL: { text: 'Extension.url is required', code: 'structure' },
  EXTENSION_URL_NOT_ABSOLUTE: { text: 'Extension.url must be an absolute URL', code: 'value' },
  EXTENSION_CONTEXT: { text: 'The extension {0} is not allowed to be used at this point (allowed = {1}; this element is [{2}])', code: 'structure' },
  EXTENSION_IS_MODIFIER: { text: 'Extension {0} is a modifier extension, and must be used in modifierExtension', code: 'structure' },
  EXTENSION_NOT_MODIFIER: { text: 'Extension {0} is not a modifier extension, and must not be used in modifierExtension', code: 'structure' },
  EXTENSION_VALUE_TYPE: { text: 'The Extension \'{0}\' definition allows for the types [{1}] but found type {2}', code: 'structure' },
  EXTENSION_EXTM_CONTEXT_WRONG: { text: 'The modifier extension {0} is not allowed to be used at this point (allowed = {1}; this element is [{2}])', code: 'structure' },
  EXTENSION_EXTP_CONTEXT_WRONG_VER: { text: 'The extension {0} is not allowed to be used at this point (allowed = {1}; this element is [{2}]) in FHIR version {3} ({4})', code: 'structure' },
  EXTENSION_EXTM_CONTEXT_WRONG_VER: { text: 'The modifier extension {0} is not allowed to be used at this point (allowed = {1}; this element is [{2}]) in FHIR version {3} ({4})', code: 'structure' },
  EXTENSION_FHIR_VERSION_EARLIEST: { text: 'The extension {0} is only allowed to be used with FHIR version {1} ({2}) or later, but this is FHIR version {3} ({4})', code: 'business-rule' },
  EXTENSION_FHIR_VERSION_LATEST: { text: 'The extension {0} is only allowed to be used with FHIR version {1} ({2}) or earlier, but this is FHIR version {3} ({4})', code: 'business-rule' },
  PROFILE_EXT_NOT_HERE: { text: 'The extension {0} is not allowed to be used at this point (based on context invariant \'{1}\')', code: 'structure' },
  EXTENSION_EXT_SIMPLE_WRONG: { text: 'The Extension \'{0}\' definition is for a simple extension, so it must contain a value, not extensions', code: 'structure' },
  EXTENSION_EXT_SIMPLE_ABSENT: { text: 'The Extension \'{0}\' definition is for a simple extension, so it must contain a value', code: 'structure' },
  // HL7's text, with what the definition allows said after it (HL7 shows an empty type list: docs/message-wording.md)
  EXTENSION_EXT_COMPLEX_VALUE: { text: 'The Extension \'{0}\' definition allows for the types [] but found type {1} (the definition is a complex extension: it takes sub-extensions, not a value)', code: 'structure' },
  EXTENSION_EXT_SUBEXTENSION_INVALID: { text: 'Sub-extension url \'{0}\' is not defined by the Extension {1}', code: 'invalid' },
  EXT_VER_URL_NO_MATCH: { text: 'Extension URLs cannot contain a version, and no extension with this url and version is known', code: 'invalid' },
  EXT_VER_URL_IGNORE: { text: 'Extension URLs cannot contain a version; the extension was found by its url and version, but the version must be left out', code: 'invalid' },
  EXT_VER_URL_NOT_ALLOWED: { text: 'Extension URLs cannot contain a version', code: 'invalid' },
  EXT_VER_URL_REVERSION: { text: 'Extension URLs cannot contain a version, and the version given is not that of the extension found ({0})', code: 'invalid' },
  EXTENSION_EXT_VERSION_INVALID: { text: 'Extension url \'{0}\' is not valid (invalid Version \'{1}\')', code: 'business-rule' },
  EXTENSION_EXT_VERSION_INVALIDID: { text: 'Extension url \'{0}\' is not valid (invalid Element id \'{1}\')', code: 'business-rule' },

  // references
  REFERENCE_NO_DISPLAY: { text: 'A Reference without an actual reference or identifier should have a display', code: 'structure' },
  Reference_REF_ResourceType: { text: 'Matching reference for reference {0} has resourceType {1}', code: 'structure' },
  REFERENCE_BAD_TARGET: { text: 'The type \'{0}\' implied by the reference URL {1} is not a valid Target for this element (must be one of {2})', code: 'structure' },
  REFERENCE_WRONG_TARGET: { text: 'Invalid Resource target type. Found {0}, but expected one of ({1})', code: 'structure' },
  REFERENCE_CANT_RESOLVE: { text: 'Unable to resolve resource with reference \'{0}\'', code: 'structure' },
  // the reference policy's answers (rules/references.ts), keyed by HL7's message ids
  REFERENCE_RESOLUTION_FAILED: { text: 'Resolving the reference \'{0}\' failed: {1}', code: 'informational' },
  Reference_REF_CantMatchChoice: { text: 'Unable to find a match for profile {0} among choices: {1}', code: 'structure' },
  REFERENCE_FORMAT: { text: 'The syntax of the reference \'{0}\' looks incorrect, and it should be checked', code: 'structure' },
  REFERENCE_MULTIPLE_MATCHES: { text: 'Multiple matches in bundle for reference {0}', code: 'structure' },
  REFERENCE_NOT_IN_BUNDLE: { text: 'Can\'t find \'{0}\' in the bundle', code: 'not-found' },
  CONTAINED_NO_ID: { text: 'Contained resources SHALL have an id', code: 'structure' },

  // bundles
  BUNDLE_FULLURL_ABSOLUTE: { text: 'The fullUrl must be an absolute URL (not \'{0}\')', code: 'invalid' },
  BUNDLE_FULLURL_ID_MISMATCH: { text: 'The fullUrl \'{0}\' looks like a RESTful server URL, so it must end with the correct type and id (/{1}/{2})', code: 'invalid' },
  BUNDLE_DUPLICATE_ID: { text: 'Duplicate id value \'{0}\'', code: 'invalid' },
  BUNDLE_ENTRY_URL_MATCHES_NO_ID: { text: 'The fullUrl \'{0}\' looks like a RESTful server URL, but the resource has no id', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_MISMATCHIDURL: { text: 'The canonical URL ({0}) cannot match the fullUrl ({1}) unless the resource id ({2}) also matches', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_FULLURL_REQUIRED: { text: 'Except for transactions and batches, each entry in a Bundle must have a fullUrl which is the identity of the resource in the entry', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_TYPE: { text: 'The type \'{0}\' is not valid - no resources allowed here (allowed = {1})', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_TYPE2: { text: 'The type \'{0}\' is not valid - must be {1}', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_TYPE3: { text: 'The type \'{0}\' is not valid - must be one of {1}', code: 'invalid' },
  // Bundle.signature (resource-types/bundle-signature.ts), keyed by HL7's ids; HL7's wording, its `}` included
  BUNDLE_SIGNATURE_SIG_FAIL_CERT: { text: 'The signature did not verify against the provided certificate', code: 'value' },
  BUNDLE_SIGNATURE_PAYLOAD_MISMATCH: { text: 'The signature cannot be valid because the content to sign ({0} bytes} is not the same as the signed content ({1} bytes)', code: 'value' },
  BUNDLE_SIGNATURE_HEADER_WHEN_MISMATCH: { text: 'The signature time in the JWS header ({0}) is not the same as Signature.when ({1})', code: 'business-rule' },
  BUNDLE_SIGNATURE_NO_WHEN: { text: 'The signature has no time (Signature.when) to compare with the signing time the signature states', code: 'not-found' },
  BUNDLE_SIGNATURE_DIGSIG_WHEN_MISMATCH: { text: 'The signing time in the XML signature ({0}) is not the same as Signature.when ({1})', code: 'business-rule' },
  BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH: { text: 'The digest of the content to sign ({0}) is not the digest in the signature ({1})', code: 'value' },
  BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH_XADES: { text: 'The digest of the signed properties ({0}) is not the digest in the signature ({1})', code: 'value' },
  BUNDLE_SIGNATURE_DIGSIG_SIGNED_MISMATCH: { text: 'The signature cannot be valid because the content to sign ({0} bytes} is not the same as the signed content ({1} bytes)', code: 'value' },
  BUNDLE_SIGNATURE_CHECKED_DATA_B64: { text: 'The signature data is not base64 encoded; it has been read as the JWS itself', code: 'invalid' },
  BUNDLE_SIGNATURE_NOT_CHECKED_DATA_B64: { text: 'The signature data is not base64 encoded, so the signature has not been checked', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_NOFIRST: { text: 'Documents or Messages must contain at least one entry', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_NOFIRSTRESOURCE: { text: 'No resource on first entry', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_DOCUMENT: { text: 'The first entry in a document must be a composition', code: 'invalid' },
  VALIDATION_BUNDLE_MESSAGE: { text: 'The first entry in a message must be a MessageHeader', code: 'invalid' },
  BUNDLE_BUNDLE_ENTRY_NOTFOUND: { text: 'Can\'t find \'{0}\' in the bundle ({1})', code: 'not-found' },
  BUNDLE_BUNDLE_ENTRY_NOTFOUND_APPARENT: { text: 'Can\'t find \'{0}\' in the bundle ({1}). Note that there are {2} resources in the bundle with the same type and id, but they do not match because of the fullUrl based rules around matching relative references (must be \'{3}\', but found these: {4})', code: 'not-found' },
  BUNDLE_BUNDLE_ENTRY_FOUND_MULTIPLE: { text: 'Found {0} matches for \'{1}\' in the bundle ({2})', code: 'not-found' },
  BUNDLE_BUNDLE_ENTRY_ORPHAN_DOCUMENT: { text: 'Entry {0} isn\'t reachable by traversing links (forward or backward) from the Composition', code: 'informational' },
  BUNDLE_BUNDLE_ENTRY_ORPHAN_MESSAGE: { text: 'Entry {0} isn\'t reachable by traversing links (forward or backward) from the MessageHeader, so should be reviewed to see if it belongs in the message', code: 'informational' },
  BUNDLE_BUNDLE_ENTRY_REVERSE_R4: { text: 'Entry {0} isn\'t reachable by traversing forwards from the Composition. Only Provenance is allowed to do this in R4 or R4B', code: 'invalid' },
  BUNDLE_LINK_SEARCH_PROHIBITED: { text: 'The link relationship type \'{0}\' is only allowed on search set and history Bundles', code: 'invalid' },
  BUNDLE_LINK_SEARCH_NO_DUPLICATES: { text: 'Duplicate link relation \'{0}\': there can only be one', code: 'invalid' },
  BUNDLE_LINK_STYELSHEET_EXTERNAL: { text: 'External Stylesheets other than https://hl7.org/fhir/fhir.css SHOULD not be used', code: 'business-rule' },
  BUNDLE_LINK_STYELSHEET_INSECURE: { text: 'The stylesheet reference is not secure', code: 'business-rule' },
  BUNDLE_LINK_STYELSHEET_LINKABLE: { text: 'The stylesheet reference is not a resolvable link', code: 'business-rule' },
  BUNDLE_LINK_STYELSHEET_NOT_FOUND: { text: 'The stylesheet reference could not be resolved in this bundle', code: 'not-found' },
  BUNDLE_SEARCH_NOSELF: { text: 'SearchSet Bundles should have a self link that specifies what the search was', code: 'invalid' },
  BUNDLE_SEARCH_SELF_NOT_UNDERSTOOD: { text: 'No types could be determined from the search string, so the types can\'t be checked', code: 'invalid' },
  BUNDLE_SEARCH_NO_MODE: { text: 'SearchSet bundles should have search modes on the entries', code: 'invalid' },
  BUNDLE_SEARCH_ENTRY_NO_RESOURCE: { text: 'SearchSet Bundle Entries must have resources', code: 'invalid' },
  BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID: { text: 'Search results must have ids', code: 'invalid' },
  BUNDLE_SEARCH_ENTRY_TYPE_NOT_SURE: { text: 'Unable to determine if this resource is a valid resource type for this search', code: 'invalid' },
  BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_MODE: { text: 'This is not a matching resource type for the specified search ({0} expecting {1})', code: 'invalid' },
  BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_OUTCOME: { text: 'This is not an OperationOutcome ({0})', code: 'invalid' },
  BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_NO_MODE: { text: 'This is not a matching resource type for the specified search (is a search mode needed?) ({0} expecting {1})', code: 'invalid' },

  // QuestionnaireResponse against its Questionnaire (resource-types/questionnaire/). The HL7
  // validator's message id is named where ours differs; texts marked "(ours)" word a rule whose
  // HL7 text we do not have, keeping the HL7 arguments.
  QR_QUESTIONNAIRE_NONE: { text: 'No questionnaire is identified, so no validation can be performed against the base questionnaire', code: 'required' }, // QUESTIONNAIRE_QR_Q_NONE
  QR_CONTAINED_NOT_QUESTIONNAIRE: { text: 'The contained resource \'{0}\' was expected to be a {1}, but it is a {2}', code: 'invalid' }, // REFERENCE_REF_WRONGTARGET_LOAD
  QR_QUESTIONNAIRE_NOT_FOUND: { text: 'The questionnaire \'{0}\' could not be resolved, so no validation can be performed against the base questionnaire', code: 'not-found' }, // QUESTIONNAIRE_QR_Q_NOTFOUND
  QR_AUTHORED_AFTER_END: { text: 'The response was authored ({0}) after the end of the questionnaire\'s effective period ({1})', code: 'business-rule' }, // QUESTIONNAIRE_QR_AUTHOR_END (ours)
  QR_AUTHORED_BEFORE_START: { text: 'The response was authored ({0}) before the start of the questionnaire\'s effective period ({1})', code: 'business-rule' }, // QUESTIONNAIRE_QR_AUTHOR_START (ours)
  QR_ITEM_NO_LINKID: { text: 'No LinkId, so can\'t be validated', code: 'required' }, // QUESTIONNAIRE_QR_ITEM_NOLINKID
  QR_LINKID_NOT_FOUND: { text: 'LinkId \'{0}\' not found in questionnaire', code: 'not-found' }, // QUESTIONNAIRE_QR_ITEM_NOTFOUND
  QR_ITEM_MISPLACED: { text: 'Structural Error: item with linkid {0} is in the wrong place', code: 'structure' },
  QR_ITEM_ORDER: { text: 'Structural Error: items are out of order', code: 'structure' }, // QUESTIONNAIRE_QR_ITEM_ORDER
  QR_ITEM_ONLY_ONE_ITEM: { text: 'Only one response item with this linkId allowed - {0}', code: 'invalid' }, // QUESTIONNAIRE_QR_ITEM_ONLYONEI
  QR_ITEM_ONLY_ONE: { text: 'Only one response answer item with this linkId allowed', code: 'invalid' }, // QUESTIONNAIRE_QR_ITEM_ONLYONEA
  QR_ITEM_NOT_ENABLED: { text: 'Item has answer, even though it is not enabled (item id = \'{0}\')', code: 'invalid' }, // QUESTIONNAIRE_QR_ITEM_NOTENABLED2
  QR_ITEM_MISSING: { text: 'No response answer found for required item \'{0}\'', code: 'required' }, // QUESTIONNAIRE_QR_ITEM_MISSING
  QR_ITEM_TEXT: { text: 'If text exists, it must match the questionnaire definition for linkId {0}', code: 'invalid' }, // QUESTIONNAIRE_QR_ITEM_TEXT
  QR_ITEM_NO_TYPE: { text: 'Definition for item {0} does not contain a type', code: 'required' }, // QUESTIONNAIRE_QR_ITEM_NOTYPE
  QR_DISPLAY_ITEMS: { text: 'Items not of type DISPLAY should not have items - linkId {0}', code: 'structure' }, // QUESTIONNAIRE_QR_ITEM_DISPLAY
  QR_ITEMS_OUTSIDE_ANSWERS: { text: 'Items not of type group should not have items outside answers (use answer.item not .item)', code: 'structure' }, // QUESTIONNAIRE_QR_ITEM_GROUP_ANSWER
  QR_GROUP_REQUIRED: { text: 'This group is required, so it must contain at least one item', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_GROUP_REQUIRED (ours)
  QR_NO_ANSWERS_ALLOWED: { text: 'Items of type {0} should not have answers', code: 'structure' }, // QUESTIONNAIRE_QR_ITEM_GROUP
  QR_DISPLAY_NO_ANSWERS: { text: 'Items of type display should not have answers', code: 'structure' }, // QUESTIONNAIRE_QR_ITEM_DISPLAY_NO_VALUE (ours)
  QR_MAX_OCCURS: { text: 'The maximum number of answers is {0} but this has {1} answers', code: 'invalid' }, // QUESTIONNAIRE_QR_ITEM_MAX_OCCURS
  QR_MIN_OCCURS: { text: 'The minimum number of answers is {0} but this has {1} answers', code: 'invalid' }, // QUESTIONNAIRE_QR_ITEM_MIN_OCCURS
  QR_ANSWER_TYPE: { text: 'Answer value must be of the type {0} not {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_WRONGTYPE (one type)
  QR_ANSWER_TYPES: { text: 'Answer value must be one of the types {0} not {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_WRONGTYPE (several)
  QR_VALUE_BELOW_MIN: { text: 'The value {0} is less than the allowed minimum of {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_{INTEGER,DECIMAL,DATE,TIME}_MIN
  QR_VALUE_ABOVE_MAX: { text: 'The value {0} is greater than the allowed maximum of {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_{INTEGER,DECIMAL,DATE,TIME}_MAX
  QR_VALUE_UNREADABLE: { text: 'The value could not be compared to the limits in the questionnaire: {0}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_*_VALUE_EXCEPTION (ours)
  QR_TOO_SHORT: { text: 'The answer \'{0}\' is shorter then the required minimum length of {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_STRING_MIN_LENGTH
  QR_TOO_LONG: { text: 'The answer \'{0}\' is longer then the allowed maximum length of {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_STRING_MAX_LENGTH
  QR_REGEX: { text: 'The answer \'{0}\' does not conform to the expected format \'{2}\' (regex \'{1}\')', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_STRING_REGEX(_EF): an empty format when the item gives none
  QR_STRING_LINE_BREAKS: { text: 'The answer \'{0}\' contains line breaks, which a string answer should not (use an item of type text)', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_STRING_ILLEGAL_CHARS (ours)
  QR_DECIMAL_PLACES: { text: 'The value {0} has too many decimal places (limit = {1})', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_DECIMAL_MAX_DECIMALS
  QR_QTY_MIN_NO_UNITS: { text: 'The quantity {0} cannot be compared to the allowed minimum of {1} because no formal units are specified', code: 'invariant' },
  QR_QTY_MAX_NO_UNITS: { text: 'The quantity {0} cannot be compared to the allowed maximum of {1} because no formal units are specified', code: 'invariant' },
  QR_QTY_MIN_INCOMPATIBLE: { text: 'The quantity {0} cannot be compared to the allowed minimum of {1}', code: 'invariant' },
  QR_QTY_MAX_INCOMPATIBLE: { text: 'The quantity {0} cannot be compared to the allowed maximum of {1}', code: 'invariant' },
  QR_QTY_BELOW_MIN: { text: 'The quantity {0} is less than the allowed minimum of {1}', code: 'invariant' },
  QR_QTY_ABOVE_MAX: { text: 'The quantity {0} is greater than the allowed maximum of {1}', code: 'invariant' },
  QR_UNIT_NOT_ALLOWED: { text: 'The value {0} has a unit that is not valid (allowed = {1})', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_DECIMAL_INVALID_UNITS
  QR_UNIT_VALUE_SET_NOT_FOUND: { text: 'The unit value set {0} could not be found, so the unit cannot be checked', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_DECIMAL_INVALID_UNIT_VS (ours)
  QR_UNIT_NOT_IN_VALUE_SET: { text: 'The unit of the quantity {0} is not in the unit value set {1}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_DECIMAL_UNIT_FAIL_VS (ours)
  QR_ATTACHMENT_NO_CONTENT_TYPE: { text: 'The attachment has no contentType, but the questionnaire restricts the types allowed', code: 'required' }, // QUESTIONNAIRE_QR_ITEM_NOT_ATTACHMENT_MIMETYPE (ours)
  QR_ATTACHMENT_CONTENT_TYPE: { text: 'The attachment content type \'{0}\' is not allowed (allowed = {1})', code: 'required' }, // QUESTIONNAIRE_QR_ITEM_BAD_ATTACHMENT_MIMETYPE (ours)
  QR_ATTACHMENT_SIZE: { text: 'The attachment is too large: the limit is {0} bytes, but it has {1}', code: 'required' }, // QUESTIONNAIRE_QR_ITEM_BAD_ATTACHMENT_LENGTH (ours)
  QR_REFERENCE_TARGET: { text: 'The reference \'{1}\' is to a {0}, which is not one of the allowed resource types ({2})', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_REF_INVALID (ours)
  QR_REFERENCE_TARGET_UNKNOWN: { text: 'The resource type of the reference \'{0}\' cannot be determined, so it cannot be checked against the allowed resource types', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_REF_CANT (ours)
  QR_VALUE_SET_NOT_FOUND: { text: 'The value set {0} could not be found, so the answer cannot be checked', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_VS_BAD (ours)
  QR_NOT_IN_VALUE_SET: { text: 'The value \'{0}\' is not in the list of allowed values (value set \'{1}\')', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_VS_FAIL
  QR_OPTION_NOT_IN_VALUE_SET: { text: 'The value provided ({0}::{1}) is not in the options value set ({2}) in the questionnaire: {3}', code: 'code-invalid' }, // QUESTIONNAIRE_QR_ITEM_BADOPTION
  QR_OPTION_SYSTEM_UNCHECKED: { text: 'The value provided ({0}::{1}) could not be checked against the options value set ({2}) in the questionnaire, because its code system is not available', code: 'code-invalid' }, // QUESTIONNAIRE_QR_ITEM_BADOPTION_CS (ours)
  QR_OPTION_CHECK_FAILED: { text: 'Error {0} validating Coding against Questionnaire Options', code: 'code-invalid' }, // QUESTIONNAIRE_QR_ITEM_CODING
  QR_NOT_AN_OPTION: { text: 'The {0} {1} is not a valid option', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_NO{INTEGER,DATE,TIME,STRING,DECIMAL}
  QR_CODING_NOT_AN_OPTION: { text: 'The code {0}::{1} is not a valid option', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_NOCODING
  QR_NO_OPTIONS_OF_TYPE: { text: 'Option list has no option values of type {0}', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_NOOPTIONS{INTEGER,DATE,TIME,STRING,CODING,DECIMAL}
  QR_NO_OPTION_LIST: { text: 'Cannot validate {0} answer option because no option list is provided', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_{INT,DATE,TIME,STRING}NOOPTIONS
  QR_NO_OPTIONS: { text: 'Cannot validate options because no option or options are provided', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_NOOPTIONS
  QR_OPTION_EXCLUSIVE: { text: 'The option {0} is exclusive, so it must be the only answer', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_EXCLUSIVE (ours)
  QR_STRING_MATCHES_OPTION: { text: 'The string answer \'{0}\' matches a coded option: the Coding should be used instead', code: 'invariant' }, // QUESTIONNAIRE_QR_ITEM_STRING_IN_CODING (ours)

  // Questionnaire (its own rules)
  Q_ENABLEWHEN_NO_QUESTION: { text: 'Questions with an enableWhen must have a value for the question link', code: 'business-rule' }, // QUESTIONNAIRE_Q_ENABLEWHEN_NOLINK
  Q_ENABLEWHEN_INNER: { text: 'Questions with an enableWhen cannot refer to an inner question for it\'s enableWhen condition', code: 'business-rule' }, // QUESTIONNAIRE_Q_ENABLEWHEN_ISINNER
  Q_ENABLEWHEN_NO_TARGET: { text: 'Unable to find an item with the linkId \'{0}\' which is referenced in the enableWhen for \'{1}\'', code: 'business-rule' }, // QUESTIONNAIRE_Q_ENABLEWHEN_NOTARGET
  Q_ENABLEWHEN_SELF: { text: 'Target for this question enableWhen can\'t reference itself', code: 'business-rule' }, // QUESTIONNAIRE_Q_ENABLEWHEN_SELF
  Q_ENABLEWHEN_AFTER: { text: 'The target of this enableWhen rule ({0}) comes after the question itself', code: 'business-rule' }, // QUESTIONNAIRE_Q_ENABLEWHEN_AFTER
  Q_DERIVATION_UNKNOWN: { text: 'The questionnaire {0} this one is derived from could not be found, so the derivation cannot be checked', code: 'business-rule' }, // QUESTIONNAIRE_Q_UNKNOWN_DERIVATION (ours)
  Q_DERIVATION_NO_TYPE: { text: 'The derivation from {0} has no derivationType extension, so it cannot be checked', code: 'business-rule' }, // QUESTIONNAIRE_Q_NO_DERIVATION_TYPE (ours)
  Q_DERIVATION_NO_TYPE_VALUE: { text: 'The derivationType extension has no value', code: 'business-rule' }, // QUESTIONNAIRE_Q_NO_DERIVATION_TYPE_VALUE (ours)
  Q_DERIVATION_TYPE_IGNORED: { text: 'The derivation type {0} is not checked', code: 'business-rule' }, // QUESTIONNAIRE_Q_DERIVATION_TYPE_IGNORED (ours)
  Q_DERIVATION_TYPE_UNKNOWN: { text: 'The derivation type {0} is not known, so the derivation cannot be checked', code: 'business-rule' }, // QUESTIONNAIRE_Q_DERIVATION_TYPE_UNKNOWN (ours)
  Q_DERIVED_ITEM_MISSING: { text: 'The item \'{1}\' is not in the questionnaire {0} this one extends', code: 'not-found' }, // QUESTIONNAIRE_Q_ITEM_NOT_DERIVED (ours)
  Q_DERIVED_TYPE_CHANGED: { text: 'The item \'{1}\' has the type {3}, but the questionnaire {0} it derives from says {2}', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_NC_TYPE (ours)
  Q_DERIVED_REPEATS_CHANGED: { text: 'The item \'{1}\' repeats, but it does not in the questionnaire {0} it derives from', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_NC_REPEATS (ours)
  Q_DERIVED_REQUIRED_CHANGED: { text: 'The item \'{1}\' is not required, but it is in the questionnaire {0} it derives from', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_NC_REQUIRED (ours)
  Q_DERIVED_ANSWER_KIND_CHANGED: { text: 'The item \'{1}\' takes its answers from an answer{3}, but the questionnaire {0} it derives from uses an answer{2}', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_NC_ANSWER_TYPE (ours)
  Q_DERIVED_NO_ANSWER_OPTIONS: { text: 'The item \'{1}\' has no answerOptions, but the questionnaire {0} it derives from has {2}', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_ANSWER_OPTIONS (ours)
  Q_DERIVED_NEW_ANSWER_OPTION: { text: 'This answerOption of the item \'{1}\' is not one of the options in the questionnaire {0} it derives from', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_ANSWER_OPTIONS_NEW (ours)
  Q_DERIVED_MAXLENGTH_CHANGED: { text: 'The item \'{1}\' allows a longer answer than the maxLength {2} of the questionnaire {0} it derives from', code: 'business-rule' }, // QUESTIONNAIRE_Q_ITEM_DERIVED_{NC_,}MAXLENGTH (ours)

  CANONICAL_WRONG_TYPE: { text: 'Canonical URL \'{0}\' refers to a resource that has the wrong type. Found {1} expecting one of [{2}]', code: 'structure' },
  URL_NOT_RESOLVED: { text: 'URL value \'{0}\' does not resolve', code: 'invalid' },
  CANONICAL_NOT_RESOLVED: { text: 'Canonical URL \'{0}\' does not resolve', code: 'invalid' },
  CANONICAL_NOT_LOADABLE: { text: 'Canonical URL \'{0}\' exists, but can\'t be loaded, so it can\'t be checked for validity', code: 'invalid' },
  REFERENCE_AGGREGATION: { text: 'Reference is {0} which isn\'t supported by the specified aggregation mode(s) for the reference ({1})', code: 'structure' },
  REFERENCE_NOT_FOUND_BUNDLE: { text: 'Bundled or contained reference not found within the bundle/resource {0}', code: 'required' },
  TERMINOLOGY_TX_SYSTEM_NO_CODE: { text: 'A code with no system has no defined meaning, and it cannot be validated. A system should be provided', code: 'code-invalid' },
  Terminology_TX_System_Relative: { text: 'Coding.system must be an absolute reference, not a local reference', code: 'code-invalid' },
  Terminology_TX_System_ValueSet2: { text: 'The Coding references a value set, not a code system (\'{0}\')', code: 'code-invalid' },
  TERMINOLOGY_TX_SYSTEM_WRONG_BUILD: { text: 'The code system reference {0} is wrong - the code system reference cannot be a reference to build.fhir.org. This may be the correct reference: {1}', code: 'code-invalid' },
  TERMINOLOGY_TX_SYSTEM_WRONG_HTML: { text: 'The code system reference {0} is wrong - the code system reference cannot be to an HTML page. This may be the correct reference: {1}', code: 'code-invalid' },
  Terminology_TX_System_Invalid: { text: 'Invalid System URI: {0}', code: 'code-invalid' },
  TERMINOLOGY_TX_SYSTEM_HTTPS: { text: 'The system URL \'{0}\' wrongly starts with https: not http:', code: 'code-invalid' },
  Type_Specific_Checks_DT_Identifier_System: { text: 'Identifier.system must be an absolute reference, not a local reference', code: 'code-invalid' },
  TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_VALUE: { text: 'if identifier.system is \'urn:ietf:rfc:3986\', then the identifier.value must be a full URI (e.g. start with a scheme), not \'{0}\'', code: 'code-invalid' },
  TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_WRONG_1: { text: 'The URL \'https://tools.ietf.org/html/rfc4122\' is not correct for the identifier \'{0}\'', code: 'code-invalid' },
  TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_WRONG_2: { text: 'The URL \'https://tools.ietf.org/html/rfc4122\' should not be used with the UUID \'{0}\'. Prefix the value with \'urn:uuid:\' and use the system value \'urn:ietf:rfc:3986\' instead', code: 'code-invalid' },
  TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_WRONG_3: { text: 'The URL \'https://tools.ietf.org/html/rfc4122\' should not be used with the UUID \'{0}\'. Use the system value \'urn:ietf:rfc:3986\' instead', code: 'code-invalid' },
  Meta_RES_Security_Duplicate: { text: 'Duplicate Security Label {0}', code: 'business-rule' },
  XHTML_XHTML_ELEMENT_ILLEGAL_IN_PARA: { text: 'Invalid element name inside a paragraph in the XHTML (\'{0}\')', code: 'invalid' },
  TYPE_SPECIFIC_CHECKS_CANONICAL_CONTAINED: { text: 'Canonical URLs in contained resources must be absolute URLs if present ({0})', code: 'invalid' },
  UNICODE_XML_BAD_CHAR: { text: 'This content includes the character {1} (hex value). This character is illegal in the XML version of FHIR, and there is generally no valid use for such characters', code: 'invalid' },
  UNICODE_XML_BAD_CHARS: { text: 'This content includes the characters {1} (hex values). These characters are illegal in the XML version of FHIR, and there is generally no valid use for such characters', code: 'invalid' },
  Type_Specific_Checks_DT_Integer_GT: { text: 'integer value is greater than permitted maximum value of {0}', code: 'value' },
  Type_Specific_Checks_DT_Integer_LT: { text: 'integer value is less than permitted minimum value of {0}', code: 'value' },
  Type_Specific_Checks_DT_Decimal_GT: { text: 'decimal value is greater than permitted maximum value of {0}', code: 'value' },
  Type_Specific_Checks_DT_Decimal_LT: { text: 'decimal value is less than permitted minimum value of {0}', code: 'value' },
  MR_GROUP_NO_CODE: { text: 'Group should have a code that matches the group definition in the measure', code: 'business-rule' },
  MR_GROUP_NO_MATCH: { text: 'The code \'{0}\' for this group has no match in the measure definition', code: 'business-rule' },
  MR_GROUP_DUPLICATE: { text: 'The linkId or code for this group is duplicated with another group', code: 'business-rule' },
  MR_GROUP_NO_USABLE_CODE: { text: 'None of the codes provided are usable for comparison - need both system and code on at least one code', code: 'business-rule' },
  MR_GROUP_WRONG_CODE: { text: 'The code provided ({0}) does not match the code specified in the measure report ({1})', code: 'business-rule' },
  MR_GROUP_MISSING: { text: 'The MeasureReport does not include a group for the group with code \'{0}\'', code: 'business-rule' },
  MR_POPULATION_NO_CODE: { text: 'Group should have a code that matches the group population definition in the measure', code: 'business-rule' },
  MR_POPULATION_NO_MATCH: { text: 'The code for this group population has no match in the measure definition', code: 'business-rule' },
  MR_POPULATION_DUPLICATE: { text: 'The linkId or code for this group population is duplicated with another population', code: 'business-rule' },
  MR_POPULATION_COUNT_MISMATCH: { text: 'Mismatch between count {0} and number of subjects {1}', code: 'business-rule' },
  MR_POPULATION_NO_SUBJECTS: { text: 'Reports where type is not \'subject-list\' don\'t have subjects listed', code: 'business-rule' },
  MEASURE_CQL_NO_LIBRARY: { text: 'No CQL Libraries found on this Measure', code: 'invalid' },
  MEASURE_CQL_LIBRARY_NOT_FOUND: { text: 'No matching Library found for the namespace {0}', code: 'invalid' },
  MEASURE_CQL_ONLY_ONE_LIBRARY: { text: 'If the CQL expression does not include a namespace, there can only be one Library for the measure', code: 'invalid' },
  MEASURE_CQL_NOT_FOUND: { text: 'The function {1} does not exist in the library {0}', code: 'invalid' },
  SD_OBLIGATION_PROFILE_DERIVATION: { text: 'Only profiles that constrain another profile can be marked as an obligation profile', code: 'invalid' },
  SD_OBLIGATION_PROFILE_UNMATCHED: { text: 'The element \'{0}\' has no equivalent in the profile \'{1}\' on which this Obligation Profile is based', code: 'invalid' },
  SD_OBLIGATION_PROFILE_ILLEGAL: { text: 'The element \'{0}\' has a property \'{1}\' which is not allowed in Obligation profiles', code: 'invalid' },
  SD_OBLIGATION_PROFILE_ILLEGAL_BINDING: { text: 'The element \'{0}\' has a binding when the base element does not, and this is not allowed in Obligation profiles', code: 'invalid' },
  SD_OBLIGATION_PROFILE_ILLEGAL_ON_BINDING: { text: 'The element \'{0}\' has a binding property \'{1}\' which is not allowed in Obligation profiles', code: 'invalid' },
  SD_OBLIGATION_PROFILE_INVALID_BINDING_CODE: { text: 'The element \'{0}\' has an additional binding purpose of \'{1}\' which is not allowed in Obligation profiles', code: 'invalid' },
  SD_OBLIGATION_PROFILE_INVALID_BINDING_STRENGTH: { text: 'The element \'{0}\' has a different binding strength (\'{1}\') from the base (\'{2}\') which is not allowed in Obligation profiles', code: 'invalid' },
  SD_OBLIGATION_PROFILE_PATH_WRONG: { text: 'The element \'{0}\' path value of \'{1}\' doesn\'t match the base path \'{2}\'', code: 'invalid' },
  SD_OBLIGATION_INHERITS_NO_TARGET: { text: 'Unable to read a value from this extension', code: 'invalid' },
  SD_OBLIGATION_INHERITS_NOT_FOUND: { text: 'The profile \'{0}\' could not be found', code: 'invalid' },
  SD_OBLIGATION_INHERITS_NOT_OBLIGATION: { text: 'The profile \'{0}\' is not marked as an obligation profile', code: 'invalid' },
  SD_OBLIGATION_INHERITS_WRONG_BASE: { text: 'The profile \'{0}\' has a different base \'{1}\' from that expected \'{2}\'', code: 'invalid' },
  Measure_MR_M_None: { text: 'No Measure is identified, so no validation can be performed against the Measure', code: 'required' },
  Measure_MR_M_NotFound: { text: 'The Measure \'{0}\' could not be resolved, so no validation can be performed against the Measure', code: 'required' },
  MEASURE_MR_M_SCORING_UNK: { text: 'The scoring system in this measure is unknown, so the measureScore values cannot be checked', code: 'business-rule' },
  MEASURE_MR_SCORE_PROHIBITED_RT: { text: 'No measureScore when the type of the report is \'data-collection\'', code: 'business-rule' },
  MEASURE_MR_SCORE_REQUIRED: { text: 'A measureScore is required when the Measure.scoring={0}', code: 'required' },
  MEASURE_MR_SCORE_UNIT_PROHIBITED: { text: 'A measureScore for this Measure Scoring ({0}) should not have units', code: 'business-rule' },
  MEASURE_MR_SCORE_VALUE_REQUIRED: { text: 'A value is required when the Measure.scoring = {0}', code: 'required' },
  MEASURE_MR_SCORE_VALUE_INVALID_01: { text: 'The value is invalid - it must be between 0 and 1', code: 'required' },
  MEASURE_MR_SCORE_FIXED: { text: 'This value is fixed by the Measure to \'{0}\'', code: 'code-invalid' },
  MEASURE_MR_SCORE_UNIT_REQUIRED: { text: 'A unit should be present when the scoring type is {0}', code: 'not-found' },
  MR_STRATIFIER_NO_MATCH: { text: 'Group should have a code that matches the group stratifier definition in the measure', code: 'business-rule' },
  MR_STRATIFIER_MISSING: { text: 'The MeasureReport does not include a stratifier for the stratifier with code \'{0}\' (id = \'{1}\')', code: 'business-rule' },
  CAPABILITY_SEARCH_TYPE: { text: 'Type mismatch - SearchParameter \'{0}\' type is {1}, but type here is {2}', code: 'business-rule' },
  SEARCH_EXPRESSION_TYPE: { text: 'Error in search expression \'{0}\': Error evaluating FHIRPath expression: The name \'{1}\' is not valid for any of the possible types: [{2}]', code: 'business-rule' },
  SEARCHPARAMETER_NOTFOUND: { text: 'Unable to find the base Search Parameter {0} so can\'t check that this SearchParameter is a proper derivation from it', code: 'business-rule' },
  SEARCHPARAMETER_TYPE_WRONG: { text: 'The type {1} is different to the type {0} in the derivedFrom SearchParameter', code: 'business-rule' },
  SEARCHPARAMETER_EXP_WRONG: { text: 'The expression \'{2}\' is not compatible with the expression \'{1}\' in the derivedFrom SearchParameter {0}, and this likely indicates that the derivation relationship is not valid', code: 'business-rule' },
  SEARCHPARAMETER_MISSING_COMPONENTS: { text: 'When the SearchParameter has a type of \'composite\', then the SearchParameter must define two or more components', code: 'business-rule' },
  SEARCH_BASE_NOT_IN_PARENT: { text: 'The resource type {0} is not listed as a base in the SearchParameter this is derived from ({1})', code: 'business-rule' },
  OPDEF_PROFILE_NOT_FOUND: { text: 'The \'{0}\' profile {1} could not be found (ours)', code: 'not-found' },
  OPDEF_PROFILE_NOT_PARAMETERS: { text: 'The \'{0}\' profile {1} is not a profile on Parameters (ours)', code: 'invalid' },
  OPDEF_PROFILE_NOT_IN_PARAM: { text: 'The \'{0}\' profile defines a parameter \'{1}\' that the operation definition does not have (ours)', code: 'business-rule' },
  OPDEF_PROFILE_NOT_IN_PROFILE: { text: 'The \'{0}\' parameter \'{1}\' is not defined in the profile (ours)', code: 'business-rule' },
  OPDEF_PROFILE_CARDINALITY: { text: 'The parameter \'{0}\' has a value for \'{1}\' of \'{2}\' in the \'{3}\' profile {4} that is different to \'{5}\' which is the value in the parameter definition in the operation definition', code: 'business-rule' },
  OPDEF_PROFILE_TYPE_EXTRA: { text: 'The type \'{0}\' is allowed for the parameter \'{1}\' in the \'{2}\' profile {3} but is not in the list of allowed types for the parameter in the operation definition', code: 'business-rule' },
  OPDEF_PROFILE_TYPE_MISSING: { text: 'The type \'{0}\' is not allowed for the parameter \'{1}\' in the \'{2}\' profile {3} but is in the list of allowed types for the parameter in the operation definition', code: 'business-rule' },
  OPDEF_PROFILE_TARGET_EXTRA: { text: 'The target profile \'{0}\' is allowed for the parameter \'{1}\' in the \'{2}\' profile {3} but is not in the list of target profiles for the parameter in the operation definition', code: 'business-rule' },
  OPDEF_PROFILE_TARGET_MISSING: { text: 'The target profile \'{0}\' is not allowed for the parameter \'{1}\' in the \'{2}\' profile {3} but is in the list of target profiles for the parameter in the operation definition', code: 'business-rule' },
  MEASURE_COHORT_SCORE: { text: 'No measureScore when the scoring of the message is \'{0}\'', code: 'value' },

  // StructureDefinitions (differential against base)
  SNAPSHOT_ERROR: { text: 'Error generating Snapshot: {0}', code: 'processing' },
  SD_BASE_NOT_FOUND: { text: 'Unable to find base {0} for {1}', code: 'not-found' }, // Unable_to_find_base__for_
  SD_MUST_HAVE_DERIVATION: { text: 'StructureDefinition {0} must have a derivation, since it has a baseDefinition', code: 'not-found' },
  SD_CONSTRAINED_KIND_NO_MATCH: { text: 'The kind {0} must be the same as the kind {1} in the base structure {3} (base type = {2})', code: 'not-found' },
  SD_CONSTRAINED_TYPE_NO_MATCH: { text: 'The type {0} must be the same as the type in the base structure {1} that is being constrained', code: 'not-found' },
  SD_SPECIALIZED_TYPE_MATCHES: { text: 'The type {0} must not be the same as the type in the base structure {1} that is being specialised', code: 'not-found' },
  SD_TYPE_NOT_LOCAL: { text: 'The type {0} is not legal because it is not defined in the FHIR specification. Other types must have a namespace on them', code: 'invalid' },
  SD_TYPE_NOT_MATCH_NS: { text: 'The type namespace {0} SHOULD match the url namespace {1} for the definition of the type', code: 'invalid' },
  SD_DERIVATION_KIND_MISMATCH: { text: 'The structure definition constrains a kind of {0}, but has a different kind ({1})', code: 'not-found' },
  SD_BASE_EXPERIMENTAL: { text: 'The base definition {0} is experimental, so this one should be experimental too (ours)', code: 'business-rule' },
  SD_ELEMENT_FIXED_WRONG_TYPE: { text: 'The base element has a fixed type of \'{0}\', so this element must have a fixed value of the same type, not \'{1}\'', code: 'invalid' },
  SD_ELEMENT_PATTERN_NO_FIXED: { text: 'The base element has a pattern type of \'{0}\', so this element must have a fixed value but it doesn\'t', code: 'invalid' },
  SD_EXTENSION_URL_MISSING: { text: 'The value of Extension.url is not fixed to the extension URL {0}', code: 'invalid' },
  SD_EXTENSION_URL_MISMATCH: { text: 'The fixed value for the extension URL is {1} which doesn\'t match the canonical URL {0}', code: 'invalid' },
  SD_NO_CONTEXT_WHEN_NOT_EXTENSION: { text: 'The type is {0} so an extension context should not be specified', code: 'invalid' },
  SD_NO_CONTEXT_INV_WHEN_NOT_EXTENSION: { text: 'The type is {0} so an extension context invariants should not be specified', code: 'invalid' },
  SD_CONTEXT_SHOULD_NOT_BE_ELEMENT: { text: 'Review the extension type for {1}: extensions should not have a context of {0} unless it\'s really intended that they can be used anywhere', code: 'business-rule' },
  SD_CONTEXT_SHOULD_NOT_BE_FHIRPATH: { text: 'Review the extension type for {1}: the context of {0} appears to be a simple element, so the context type should be \'element\' not \'fhirpath\'', code: 'business-rule' },
  SD_CONTEXT_SHOULD_ELEMENT_NOT_FOUND: { text: 'The extension context \'{0}\' does not name an element that exists (ours)', code: 'invalid' },
  SD_PATH_TYPE_MISMATCH: { text: 'The path {1} must start with the type of the structure {0}', code: 'not-found' },
  SD_PATH_NO_SLICING: { text: 'The element {0} cannot be sliced: it does not repeat in its base definition (ours)', code: 'not-found' },
  ED_INVARIANT_NO_KEY: { text: 'The constraint has no key, so the content cannot be validated', code: 'informational' },
  ED_INVARIANT_NO_EXPRESSION: { text: 'The constraint \'{0}\' has no computable expression, so validators will not be able to check it', code: 'informational' },
  ED_INVARIANT_EXPRESSION_CONFLICT: { text: 'The constraint \'{0}\' has an expression \'{1}\', which differs from the earlier expression provided of \'{2}\' (invariants are allowed to repeat, but cannot differ)', code: 'invalid' },
  ED_INVARIANT_DIFF_NO_SOURCE: { text: 'The invariant {0} defined in the differential must have no source, or the source must be the same as the profile', code: 'invalid' },
  ED_INVARIANT_KEY_ALREADY_USED: { text: 'The constraint key \'{0}\' already exists in the base profile \'{1}\'', code: 'invalid' },
  SD_ILLEGAL_CHARACTERISTICS: { text: 'This element has a {0} but the types {1} do not make this kind of constraint relevant', code: 'business-rule' },
  SD_ED_BIND_NO_BINDABLE: { text: 'The element {0} has a binding, but no bindable types are present {1}', code: 'business-rule' },
  SD_ED_BIND_NOT_VS: { text: 'The valueSet reference {1} on element {0} points to something that is not a value set ({2})', code: 'business-rule' },
  SD_NO_TYPES_OR_CONTENTREF: { text: 'The element {0} has no assigned types, and no content reference', code: 'exception' },
  SD_ROOT_SLICING: { text: 'Slicing is not allowed at the root of a profile', code: 'structure' },
  SD_NO_MATCH: { text: 'No match found for {0} in the generated snapshot: check that the path and definitions are legal in the differential (including order)', code: 'structure' },
  SD_UNMATCHED_SUMMARY: { text: 'The profile {0} has {1} element(s) in the differential (id: {2}) that don\'t have a matching element in the snapshot: check that the path and definitions are legal in the differential (including order)', code: 'structure' },
  SD_SLICING_REDEFINED: { text: 'The element at {0} defines the slicing {1} but then an element in the slicing {2} tries to redefine the slicing to {3}', code: 'structure' },
  SD_DISCRIMINATOR_PATH: { text: 'The discriminator path \'{0}\' does not appear to be valid for the element that is being sliced \'{1}\'', code: 'structure' },
  SD_BINDING_NOT_CODED: { text: 'This element has a Binding but the types [{0}] do not make this kind of constraint relevant', code: 'structure' },

  // profiles and terminology
  PROFILE_NOT_FOUND: { text: 'Can\'t find profile {0}', code: 'not-found' },
  VALIDATION_VAL_UNKNOWN_PROFILE: { text: 'Unknown profile {0}', code: 'structure' },
  PROFILE_NO_SNAPSHOT: { text: 'The profile {0} has no snapshot, so it cannot be used for validation', code: 'not-found' },
  VALIDATION_VAL_PROFILE_NOMATCH: { text: 'Unable to find a match for the specified profile among choices: {0}', code: 'structure' },
  VALIDATION_VAL_PROFILE_MULTIPLEMATCHES: { text: 'Found multiple matching profiles among choices: {0}', code: 'structure' },
  PROFILE_WRONG_TYPE: { text: 'The profile {0} is for {1}, so it cannot be used to validate a {2}', code: 'structure' },
  VALIDATION_VAL_PROFILE_DEPENDS_NOT_RESOLVED: { text: 'Profile {1} identifies {0} as a dependency (using the extension http://hl7.org/fhir/StructureDefinition/structuredefinition-dependencies), but this profile could not be found', code: 'business-rule' },
  VALIDATION_VAL_GLOBAL_PROFILE_UNKNOWN: { text: 'Global Profile reference \'{0}\' from IG {1} could not be resolved, so has not been checked', code: 'not-found' },
  // meta.profile naming a version-specific url (http://hl7.org/fhir/4.0/StructureDefinition/...)
  VALIDATION_VAL_PROFILE_OTHER_VERSION: { text: 'Profile is for a different version of FHIR ({0}) so has been ignored', code: 'structure' },
  VALIDATION_VAL_PROFILE_THIS_VERSION_OK: { text: 'Profile for this version of FHIR - all OK', code: 'structure' },
  VALIDATION_VAL_PROFILE_THIS_VERSION_OTHER: { text: 'Profile is for this version of FHIR, but is an invalid type {0}', code: 'structure' },
  // produced by the terminology side (listed so the id is known here too)
  VALUE_SET_NOT_FOUND: { text: 'Can\'t find value set {0}', code: 'not-found' },
  BINDING_REQUIRED_CODE: { text: 'The value provided (\'{0}\') was not found in the value set \'{1}\' ({2}), and a code is required from this value set', code: 'code-invalid' },
  BINDING_REQUIRED_CONCEPT: { text: 'None of the codings provided are in the value set \'{0}\' ({1}), and a coding from this value set is required) (codes = {2})', code: 'code-invalid' },
  BINDING_ADDITIONAL_REQUIRED: { text: 'None of the codings provided are in the value set \'{0}\' ({1}) specified in an additional binding, and a coding from this value set is required (codes = {2})', code: 'code-invalid' },
  BINDING_EXTENSIBLE_CONCEPT: { text: 'None of the codings provided are in the value set \'{0}\' ({1}), and a coding should come from this value set unless it has no suitable code (note that the validator cannot judge what is suitable) (codes = {2})', code: 'code-invalid' },
  // the terminology resources' own rules and Attachment (messages-type-rules.ts)
  ...TYPE_RULE_MESSAGES,
  BINDING_PREFERRED_CONCEPT: { text: 'None of the codings provided are in the value set \'{0}\' ({1}), and a coding is recommended to come from this value set (codes = {2})', code: 'code-invalid' },
} as const satisfies Record<string, MessageDefinition>;

export type MessageId = keyof typeof MESSAGES;

/**
 * The message's text in the active wording (wording.ts): its template from that wording's catalogue,
 * else `text` above (a message added since the catalogues were derived), with the {n} filled.
 */
export function formatMessage(id: MessageId, args: readonly unknown[]): string {
  return fillTemplate(wordedTemplate(id) ?? MESSAGES[id].text, args);
}
