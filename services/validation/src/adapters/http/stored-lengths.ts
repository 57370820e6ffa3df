/**
 * Lengths of the stored ids the routes take in their paths, as their columns have them: 255 for
 * facility, report, patient and category ids and artifact names (the specification's record
 * tables), 128 for validation-configuration names (this service's own table). A longer value is
 * refused with 400 naming the parameter (limitParamLengths), never sent to the database.
 */
export const STORED_ID_LENGTH = 255;
export const CONFIGURATION_NAME_LENGTH = 128;
