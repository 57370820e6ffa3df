import { byteSizeSetting, httpSettings, intSetting, loggingSettings, shutdownSettings, urlSetting } from '#adapters/config/index.js';
import { authSettings } from '#adapters/auth/index.js';

/** Configuration of the admin gateway (see docs/configuration.md). */
export const gatewaySchema = {
  ...httpSettings({ port: 8080 }),
  ...loggingSettings(),
  ...shutdownSettings(),
  ...authSettings(),
  validationUrl: urlSetting('gateway.validation-url', 'Base URL of the validation service').default('http://127.0.0.1:8081'),
  tenantUrl: urlSetting('gateway.tenant-url', 'Base URL of the tenant service').default('http://127.0.0.1:8082'),
  // The services' own largest bodies are validate.body-limit and http.raw-limit (50 MiB each).
  maxBodyBytes: byteSizeSetting('gateway.body-limit', 'Largest request body passed on to a service (streamed, never held whole); a larger one gets 413').default(50 * 1024 ** 2),
  upstreamTimeoutMs: intSetting('gateway.upstream-timeout-ms', 'Time an upstream service has to start answering', { min: 100, max: 600_000 }).default(60_000),
};
