import {
  booleanSetting, cacheSettings, databaseSettings, httpSettings, intSetting, loggingSettings, natsSettings,
  shutdownSettings, stringSetting, type ConfigOf,
} from '#adapters/config/index.js';
import { authSettings } from '#adapters/auth/index.js';

/**
 * Configuration of the tenant service (docs/configuration.md). Environment variables follow
 * adapters/config: upper-case, `.`/`-` → `_` (`scheduler.poll-interval-ms` → `SCHEDULER_POLL_INTERVAL_MS`);
 * the specification's `MeasureConfig__CheckIfMeasureExists` is also read under exactly that name.
 * The cache group is declared only because the shared runtime's config type expects it; the tenant
 * service creates no cache.
 */
export const tenantSchema = {
  ...httpSettings({ port: 8082 }),
  ...databaseSettings({ name: 'tenant' }),
  ...natsSettings(),
  ...cacheSettings(),
  ...loggingSettings(),
  ...shutdownSettings(),
  ...authSettings(),
  checkIfMeasureExists: booleanSetting('MeasureConfig__CheckIfMeasureExists',
    'When true, every measure a facility schedules (scheduledReports) and the measure mapping a reporting plan refers to must exist among the measure mappings (by measure name or dQM id); otherwise the write is refused with 400 naming the measure. When false, not checked.')
    .default(true),
  schedulerEnabled: booleanSetting('scheduler.enabled', 'Run the ReportScheduled scheduler in this instance (every instance may; they cooperate through the job store)').default(true),
  schedulerPollIntervalMs: intSetting('scheduler.poll-interval-ms', 'How often the scheduler looks for due firings (plus up to 50 % jitter); bounds the delay after a period boundary', { min: 50, max: 60_000 }).default(1_000),
  schedulerBatchSize: intSetting('scheduler.batch-size', 'Due firings claimed per transaction', { min: 1, max: 10_000 }).default(500),
  schedulerInstanceId: stringSetting('scheduler.instance-id', 'Name of this instance in the job store\'s claimed_by column (default: host name and process id)').optional(),
  serviceName: stringSetting('service.name', 'Service name answered by GetServiceInfo and /api/service-info').default('Link Tenant Service'),
  serviceVersion: stringSetting('service.version', 'Service version answered by GetServiceInfo and /api/service-info').default('1.0.0'),
};

export type TenantConfig = ConfigOf<typeof tenantSchema>;
