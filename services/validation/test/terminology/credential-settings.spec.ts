import { expect } from 'chai';
import { ConfigError, loadConfig } from '#adapters/config/index.js';
import { terminologyCredentials } from '#validation/adapters/terminology/index.js';
import { validationSchema } from '#validation/config.js';

/** The external terminology server's credentials from the environment, checked at start-up. */
describe('terminology credentials: configuration', () => {
  const credentialsFrom = (env: Record<string, string>) => terminologyCredentials(loadConfig(validationSchema, { AUTH_MODE: 'none', ...env }));
  const problem = (env: Record<string, string>) => {
    try {
      credentialsFrom(env);
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('no ConfigError');
  };
  const SERVER = { SVC_FHIR_TERMINOLOGY_SERVICE_URL: 'https://tx.example.org/r4' };

  it('none by default; each kind from its settings', () => {
    expect(credentialsFrom({})).to.deep.equal({ kind: 'none' });
    expect(credentialsFrom({ ...SERVER, SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'basic', SVC_FHIR_TERMINOLOGY_SERVICE_USERNAME: 'u', SVC_FHIR_TERMINOLOGY_SERVICE_PASSWORD: 'p' }))
      .to.deep.equal({ kind: 'basic', username: 'u', password: 'p' });
    expect(credentialsFrom({ ...SERVER, SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'bearer', SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN: 't' })).to.deep.equal({ kind: 'bearer', token: 't' });
    expect(credentialsFrom({
      ...SERVER, SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'client-credentials', SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN_URL: 'https://idp.example.org/token',
      SVC_FHIR_TERMINOLOGY_SERVICE_CLIENT_ID: 'validation', SVC_FHIR_TERMINOLOGY_SERVICE_CLIENT_SECRET: 's', SVC_FHIR_TERMINOLOGY_SERVICE_SCOPE: 'tx.read',
    })).to.deep.equal({ kind: 'client-credentials', tokenUrl: 'https://idp.example.org/token', clientId: 'validation', clientSecret: 's', scope: 'tx.read', clientAuthentication: 'basic' });
  });

  it('names every setting a kind is missing, without echoing a secret', () => {
    const message = problem({ ...SERVER, SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'client-credentials', SVC_FHIR_TERMINOLOGY_SERVICE_CLIENT_SECRET: 'hunter2' });
    expect(message).to.contain('svc.fhir-terminology-service.token-url (SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN_URL) is required')
      .and.contain('svc.fhir-terminology-service.client-id').and.not.contain('hunter2');
    expect(problem({ ...SERVER, SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'basic', SVC_FHIR_TERMINOLOGY_SERVICE_USERNAME: 'u' })).to.contain('svc.fhir-terminology-service.password');
  });

  it('refuses credentials that would cross the network in clear, or with no server to go to', () => {
    expect(problem({
      ...SERVER, SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'client-credentials', SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN_URL: 'http://idp.example.org/token',
      SVC_FHIR_TERMINOLOGY_SERVICE_CLIENT_ID: 'v', SVC_FHIR_TERMINOLOGY_SERVICE_CLIENT_SECRET: 's',
    })).to.contain('token-url (SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN_URL) must be an https URL');
    expect(problem({ SVC_FHIR_TERMINOLOGY_SERVICE_URL: 'http://tx.example.org/r4', SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'bearer', SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN: 't' }))
      .to.contain('needs an https svc.fhir-terminology-service-url');
    expect(credentialsFrom({ SVC_FHIR_TERMINOLOGY_SERVICE_URL: 'http://127.0.0.1:9000/r4', SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'bearer', SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN: 't' }).kind).to.equal('bearer');
    expect(problem({ SVC_FHIR_TERMINOLOGY_SERVICE_AUTH: 'bearer', SVC_FHIR_TERMINOLOGY_SERVICE_TOKEN: 't' })).to.contain('svc.fhir-terminology-service-url (SVC_FHIR_TERMINOLOGY_SERVICE_URL) is not set');
  });
});
