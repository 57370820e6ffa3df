import { expect } from 'chai';
import {
  ConfigError, booleanSetting, checkDeploymentEnv, byteSizeSetting, cacheSettings, databaseSettings, describeConfig, durationSetting,
  enumSetting, envVarName, httpSettings, databaseAddress, cacheServerAddress, intSetting, listSetting, loadConfig, natsSettings, secondsSetting,
  shutdownSettings, stringSetting, toMarkdownTable, urlSetting, loggingSettings, type ConfigSchema,
} from '../index.js';

function problemOf(schema: ConfigSchema, env: Record<string, string>): string {
  try {
    loadConfig(schema, env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('adapters/config', () => {
  describe('envVarName', () => {
    it('upper-cases and replaces dots and hyphens with underscores', () => {
      expect(envVarName('svc.fhir-terminology-service-url')).to.equal('SVC_FHIR_TERMINOLOGY_SERVICE_URL');
      expect(envVarName('data.cache-server.host')).to.equal('DATA_CACHE_SERVER_HOST');
      expect(envVarName('MeasureConfig__CheckIfMeasureExists')).to.equal('MEASURECONFIG__CHECKIFMEASUREEXISTS');
      expect(envVarName('cache.validate-code.ttl')).to.equal('CACHE_VALIDATE_CODE_TTL');
    });

    it('also reads the exact specification spelling; the derived name wins when both are set', () => {
      const schema = { checkMeasure: booleanSetting('MeasureConfig__CheckIfMeasureExists', 'd').default(false) };
      expect(loadConfig(schema, { MeasureConfig__CheckIfMeasureExists: 'true' }).checkMeasure).to.equal(true);
      expect(loadConfig(schema, { MEASURECONFIG__CHECKIFMEASUREEXISTS: 'true' }).checkMeasure).to.equal(true);
      expect(loadConfig(schema, { MEASURECONFIG__CHECKIFMEASUREEXISTS: 'false', MeasureConfig__CheckIfMeasureExists: 'true' })
        .checkMeasure).to.equal(false);
    });
  });

  describe('loadConfig', () => {
    const schema = {
      ...httpSettings({ port: 8081 }),
      ...cacheSettings(),
      ...databaseSettings({ name: 'tenant' }),
      ...natsSettings(),
      ...loggingSettings(),
      ...shutdownSettings(),
      artifactInit: booleanSetting('artifact.init', 'initialise artifacts').default(true),
      terminologyUrl: urlSetting('svc.fhir-terminology-service-url', 'terminology server').optional(),
    };

    it('applies defaults when nothing is set and freezes the result', () => {
      const config = loadConfig(schema, {});
      expect(config).to.include({
        httpPort: 8081, httpHost: '0.0.0.0', httpJsonLimit: 1024 ** 2, httpRawLimit: 50 * 1024 ** 2,
        cacheType: 'memory', cacheValidateCodeTtl: undefined, cacheMemoryMaxEntries: 10_000,
        cacheServerHost: '127.0.0.1', cacheServerPort: 6379, cacheServerDatabase: 0,
        dbHost: '127.0.0.1', dbPort: 5432, dbUser: 'postgres', dbName: 'tenant', dbPassword: undefined,
        logLevel: 'info', shutdownGraceMs: 10_000, artifactInit: true, terminologyUrl: undefined,
      });
      expect(config.natsServers).to.deep.equal(['nats://127.0.0.1:4222']);
      expect(Object.isFrozen(config)).to.equal(true);
    });

    it('reads overrides through the derived variable names', () => {
      const config = loadConfig(schema, {
        HTTP_PORT: '9000', CACHE_TYPE: 'distributed', CACHE_VALIDATE_CODE_TTL: '1h', DATA_CACHE_SERVER_PASSWORD: 's3cret',
        DATA_CACHE_SERVER_DATABASE: '3', ARTIFACT_INIT: 'no', SVC_FHIR_TERMINOLOGY_SERVICE_URL: 'https://tx.example.org/fhir',
        NATS_SERVERS: 'nats://a:4222, nats://b:4222', HTTP_JSON_LIMIT: '2mb', DB_NAME: 'other', DB_PORT: ' 6543 ',
      });
      expect(config).to.include({
        httpPort: 9000, cacheType: 'distributed', cacheValidateCodeTtl: 3600, cacheServerPassword: 's3cret',
        cacheServerDatabase: 3, artifactInit: false, terminologyUrl: 'https://tx.example.org/fhir',
        httpJsonLimit: 2 * 1024 ** 2, dbName: 'other', dbPort: 6543,
      });
      expect(config.natsServers).to.deep.equal(['nats://a:4222', 'nats://b:4222']);
    });

    it('treats an empty variable as unset', () => {
      expect(loadConfig(schema, { CACHE_TYPE: '', HTTP_PORT: '  ' })).to.include({ cacheType: 'memory', httpPort: 8081 });
    });

    it('names the property, the variable and the bad value', () => {
      expect(problemOf(schema, { CACHE_TYPE: 'redis2' }))
        .to.equal('Invalid configuration: cache.type (CACHE_TYPE) must be one of none, memory, distributed; got "redis2"');
    });

    it('names the variable actually read when the specification spelling was used', () => {
      const s = { check: booleanSetting('MeasureConfig__CheckIfMeasureExists', 'd').default(false) };
      expect(problemOf(s, { MeasureConfig__CheckIfMeasureExists: 'maybe' }))
        .to.contain('MeasureConfig__CheckIfMeasureExists (MeasureConfig__CheckIfMeasureExists) must be one of true, false');
    });

    it('reports every bad property at once, including missing required ones', () => {
      const message = problemOf({ ...databaseSettings(), ...httpSettings() }, { DB_PORT: 'x', HTTP_PORT: '70000' });
      expect(message).to.match(/^Invalid configuration \(3 problems\):/);
      expect(message).to.contain('db.port (DB_PORT) must be an integer 0..65535; got "x"');
      expect(message).to.contain('db.name (DB_NAME) is required (string) but not set');
      expect(message).to.contain('http.port (HTTP_PORT) must be an integer 0..65535; got "70000"');
    });

    it('never echoes a secret value', () => {
      const s = { pin: intSetting('vault.pin', 'd').secret().default(1) };
      const message = problemOf(s, { VAULT_PIN: 'hunter2' });
      expect(message).to.contain('vault.pin (VAULT_PIN) must be an integer');
      expect(message).not.to.contain('hunter2');
    });

    it('refuses a schema that maps two keys onto one variable', () => {
      expect(() => loadConfig({ a: stringSetting('a.b', 'd').optional(), b: stringSetting('a-b', 'd').optional() }, {}))
        .to.throw(/A_B twice/);
    });
  });

  describe('parsers refuse invalid values', () => {
    const cases: Array<[string, ConfigSchema, string, RegExp]> = [
      ['int not a number', { v: intSetting('v', 'd') }, '12abc', /must be an integer; got "12abc"/],
      ['int out of range', { v: intSetting('v', 'd', { min: 1, max: 100 }) }, '0', /must be an integer 1\.\.100; got "0"/],
      ['int fraction', { v: intSetting('v', 'd') }, '1.5', /must be an integer/],
      ['boolean', { v: booleanSetting('v', 'd') }, 'maybe', /must be one of true, false, 1, 0, yes, no; got "maybe"/],
      ['url relative', { v: urlSetting('v', 'd') }, 'tx.example.org', /must be an absolute URL/],
      ['url scheme', { v: urlSetting('v', 'd') }, 'ftp://x.org', /scheme http or https/],
      ['enum', { v: enumSetting('v', 'd', ['a', 'b']) }, 'A', /must be one of a, b; got "A"/],
      ['seconds word', { v: secondsSetting('v', 'd') }, 'soon', /must be a duration in seconds/],
      ['seconds fraction of a second', { v: secondsSetting('v', 'd') }, '1500ms', /whole number of seconds/],
      ['duration range', { v: durationSetting('v', 'd', 'ms', { min: 0, max: 1000 }) }, '2s', /milliseconds 0\.\.1000/],
      ['byte size', { v: byteSizeSetting('v', 'd') }, 'big', /must be a size/],
      ['list empty', { v: listSetting('v', 'd') }, ' , ', /at least one item/],
      ['list item', { v: listSetting('v', 'd', intSetting('v', 'd')) }, '1,x', /item 2 must be an integer; got "x"/],
    ];
    for (const [label, schema, raw, expected] of cases) {
      it(label, () => expect(problemOf(schema, { V: raw })).to.match(expected));
    }

    it('accept their valid forms', () => {
      const config = loadConfig({
        flag: booleanSetting('flag', 'd'), ttl: secondsSetting('ttl', 'd'), grace: durationSetting('grace', 'd', 'ms'),
        size: byteSizeSetting('size', 'd'), ids: listSetting('ids', 'd', intSetting('ids', 'd')),
      }, { FLAG: 'YES', TTL: '5m', GRACE: '2s', SIZE: '512kb', IDS: '1,2, 3' });
      expect(config).to.deep.include({ flag: true, ttl: 300, grace: 2000, size: 512 * 1024, ids: [1, 2, 3] });
    });
  });

  describe('connection URLs (db.url, data.cache-server.url)', () => {
    const schema = { ...databaseSettings({ name: 'tenant' }), ...cacheSettings() };

    it('parse into an address that wins over host/port/user/name; absent, the separate properties apply', () => {
      const config = loadConfig(schema, {
        DB_URL: 'postgresql://validation@db.example.org:6543/validation?sslmode=verify-full&sslrootcert=/etc/nhsn/tls/ca.crt',
        DB_HOST: 'ignored', DATA_CACHE_SERVER_URL: 'rediss://cache%40svc@[::1]/3', DATA_CACHE_SERVER_DATABASE: '9',
      });
      expect(config.dbUrl).to.deep.equal({
        host: 'db.example.org', port: 6543, user: 'validation', database: 'validation', sslMode: 'verify-full', sslRootCert: '/etc/nhsn/tls/ca.crt',
      });
      expect(databaseAddress(config)).to.equal(config.dbUrl);
      expect(config.cacheServerUrl).to.deep.equal({ host: '::1', port: 6379, username: 'cache@svc', database: 3, tls: true });
      expect(cacheServerAddress(config)).to.equal(config.cacheServerUrl);

      const plain = loadConfig(schema, { DB_URL: 'postgres://u@h/d', DATA_CACHE_SERVER_URL: 'redis://r' });
      expect(plain.dbUrl).to.deep.equal({ host: 'h', port: 5432, user: 'u', database: 'd', sslMode: 'disable' });
      expect(plain.cacheServerUrl).to.deep.equal({ host: 'r', port: 6379, database: 0, tls: false });

      const separate = loadConfig(schema, { DB_HOST: 'pg', DB_PORT: '5433', DB_USER: 'me', DATA_CACHE_SERVER_HOST: 'redis', DATA_CACHE_SERVER_DATABASE: '2' });
      expect(databaseAddress(separate)).to.deep.equal({ host: 'pg', port: 5433, user: 'me', database: 'tenant', sslMode: 'disable' });
      expect(cacheServerAddress(separate)).to.deep.equal({ host: 'redis', port: 6379, database: 2, tls: false });
    });

    it('refuse a URL with a password, naming the property and the secret to use, without echoing it', () => {
      const message = problemOf(schema, {
        DB_URL: 'postgres://validation:hunter2@db.example.org/validation', DATA_CACHE_SERVER_URL: 'rediss://:s3cr@t/x@cache.example.org:6380',
      });
      expect(message).to.contain('db.url (DB_URL) must not contain a password').and.to.contain('give it in the secret db.password');
      expect(message).to.contain('data.cache-server.url (DATA_CACHE_SERVER_URL) must not contain a password');
      expect(message).to.contain('data.cache-server.password');
      expect(message).not.to.match(/hunter2|s3cr|t\/x/);
    });

    const refused: Array<[string, Record<string, string>, RegExp]> = [
      ['another scheme', { DB_URL: 'mysql://u@h/d' }, /db\.url \(DB_URL\) must be a URL with scheme postgres or postgresql/],
      ['not a URL', { DB_URL: 'db.example.org:5432' }, /db\.url \(DB_URL\) must be a URL/],
      ['no user', { DB_URL: 'postgres://h/d' }, /db\.url \(DB_URL\) must name the user/],
      ['no database', { DB_URL: 'postgres://u@h:5432' }, /db\.url \(DB_URL\) must name exactly one database/],
      ['an sslmode node-postgres cannot honour', { DB_URL: 'postgres://u@h/d?sslmode=prefer' }, /sslmode must be one of disable, require, verify-ca, verify-full; got "prefer"/],
      ['an unsupported parameter', { DB_URL: 'postgres://u@h/d?sslcert=/c.pem' }, /unsupported parameter "sslcert"/],
      ['sslrootcert without TLS', { DB_URL: 'postgres://u@h/d?sslrootcert=/ca.crt' }, /sslrootcert needs sslmode/],
      ['a bad port', { DB_URL: 'postgres://u@h:99999/d' }, /db\.url \(DB_URL\) must be a URL/],
      ['a Redis URL with another scheme', { DATA_CACHE_SERVER_URL: 'http://cache' }, /data\.cache-server\.url \(DATA_CACHE_SERVER_URL\) must be a URL with scheme redis or rediss/],
      ['a Redis database out of range', { DATA_CACHE_SERVER_URL: 'redis://cache/16' }, /database index 0\.\.15/],
      ['Redis query parameters', { DATA_CACHE_SERVER_URL: 'redis://cache?tls=true' }, /must not have query parameters/],
    ];
    for (const [label, env, expected] of refused) {
      it(`refuse ${label}`, () => expect(problemOf(schema, env)).to.match(expected));
    }
  });

  describe('describeConfig', () => {
    it('lists property, variable, default and the secret flag from the same declarations', () => {
      const rows = describeConfig({ ...cacheSettings(), ...databaseSettings() });
      const password = rows.find((row) => row.property === 'data.cache-server.password');
      expect(password).to.include({ envVar: 'DATA_CACHE_SERVER_PASSWORD', secret: true, default: '(unset)', required: false });
      expect(rows.find((row) => row.property === 'cache.type')).to.include({ secret: false, default: 'memory' });
      expect(rows.find((row) => row.property === 'db.name')).to.include({ required: true, default: '(required)' });
      const table = toMarkdownTable(rows);
      expect(table.split('\n')).to.have.length(rows.length + 2);
      expect(table).to.contain('| `data.cache-server.password` | `DATA_CACHE_SERVER_PASSWORD` |');
      expect(toMarkdownTable(describeConfig(httpSettings()))).to.contain('`50mb`');
    });
  });

  describe('checkDeploymentEnv', () => {
    const schema = { ...cacheSettings(), ...databaseSettings(), check: booleanSetting('MeasureConfig__CheckIfMeasureExists', 'd').default(false) };

    it('accepts a consistent ConfigMap and Secret', () => {
      expect(checkDeploymentEnv(schema, {
        configMap: { CACHE_TYPE: 'distributed', DB_NAME: 'tenant', MeasureConfig__CheckIfMeasureExists: 'true' },
        secretKeys: ['DATA_CACHE_SERVER_PASSWORD', 'DB_PASSWORD'],
      })).to.deep.equal([]);
    });

    it('reports unknown keys, secrets in the ConfigMap, missing required values and bad values', () => {
      const problems = checkDeploymentEnv(schema, {
        configMap: { CACHE_TYPE: 'redis', CACHE_TIPE: 'memory', DB_PASSWORD: 'x' },
        secretKeys: ['DATA_CACHE_SERVER_PASWORD'],
      });
      expect(problems).to.have.members([
        'ConfigMap key CACHE_TIPE is not a declared configuration variable',
        'ConfigMap key DB_PASSWORD holds the secret db.password; move it to a Secret',
        'Secret key DATA_CACHE_SERVER_PASWORD is not a declared configuration variable',
        'db.name is required but neither the ConfigMap nor the Secret provides it',
        'cache.type (CACHE_TYPE) must be one of none, memory, distributed; got "redis"',
      ]);
    });
  });
});
