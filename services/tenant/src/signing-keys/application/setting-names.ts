/**
 * Names of the master-key settings: the application names them in its errors (so an operator knows
 * what to configure); adapters/config.ts reads them.
 */
/** Name of the legacy single master-key setting. */
export const MASTER_KEY_SETTING = 'signing-keys.master-key';
/** The keyring: `kid:base64key` items separated by commas. */
export const MASTER_KEYS_SETTING = 'signing-keys.master-keys';
export const MASTER_KEYS_FILE_SETTING = 'signing-keys.master-keys-file';
export const CURRENT_MASTER_KEY_SETTING = 'signing-keys.current-master-key';
