import { signingKeySettings } from './signing-keys/index.js';
import { tenantSchema } from './config.js';

/** Every setting the tenant service process reads: the service's own and the signing-key registry's. */
export const tenantServiceSchema = { ...tenantSchema, ...signingKeySettings() };
