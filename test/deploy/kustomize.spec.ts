import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { specOf, type ServiceSpec, type WorkloadSpec } from '#scripts/deploy/k8s-model.js';
import { KustomizeError, renderKustomization, strategicMerge } from '#scripts/deploy/kustomize.js';


/** Writes a tree of files ({ 'base/kustomization.yaml': '...' }) under a fresh temporary directory. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kustomize-spec-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const DEPLOYMENT = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels: { app: x }
  template:
    metadata:
      labels: { app: x }
    spec:
      containers:
        - name: app
          image: registry.local:5000/team/app:1.0
          env:
            - { name: A, value: "1" }
            - { name: B, value: "2" }
          ports:
            - { containerPort: 8080, name: http }
        - name: sidecar
          image: busybox
---
apiVersion: v1
kind: Service
metadata:
  name: app
spec:
  selector: { app: x }
  ports:
    - { port: 80, targetPort: http }
`;

describe('deploy: kustomize subset renderer', () => {
  const dirs: string[] = [];
  const make = (files: Record<string, string>) => {
    const dir = tree(files);
    dirs.push(dir);
    return dir;
  };
  after(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

  it('renders resources from files and nested kustomizations, then namespace, labels, images and patches', () => {
    const dir = make({
      'base/kustomization.yaml': 'resources: [app.yaml]\n',
      'base/app.yaml': DEPLOYMENT,
      'overlay/kustomization.yaml': `
namespace: prod
labels:
  - pairs: { team: a }
    includeSelectors: false
    includeTemplates: true
commonLabels: { tier: web }
images:
  - name: registry.local:5000/team/app
    newName: registry.example.org/app
    newTag: "2.0"
patches:
  - path: patch.yaml
  - target: { kind: Service, name: app }
    patch: |
      spec:
        ports:
          - { port: 80, targetPort: web }
resources: [../base]
`,
      'overlay/patch.yaml': `
apiVersion: apps/v1
kind: Deployment
metadata: { name: app }
spec:
  template:
    spec:
      containers:
        - name: app
          env:
            - { name: B, value: "20" }
            - { name: C, value: "3" }
        - name: sidecar
          $patch: delete
`,
    });
    const [deployment, service] = renderKustomization(path.join(dir, 'overlay'));
    expect(deployment!.metadata.namespace).to.equal('prod');
    expect(deployment!.metadata.labels).to.deep.equal({ team: 'a', tier: 'web' });
    const spec = specOf<WorkloadSpec>(deployment!);
    // labels with includeSelectors false stay out of the selector; commonLabels go in.
    expect(spec.selector?.matchLabels).to.deep.equal({ app: 'x', tier: 'web' });
    expect(spec.template?.metadata?.labels).to.deep.equal({ app: 'x', tier: 'web', team: 'a' });
    const containers = spec.template?.spec?.containers ?? [];
    expect(containers.map((c) => c.name)).to.deep.equal(['app']);
    expect(containers[0]?.image).to.equal('registry.example.org/app:2.0');
    expect(containers[0]?.env).to.deep.equal([{ name: 'A', value: '1' }, { name: 'B', value: '20' }, { name: 'C', value: '3' }]);
    expect(containers[0]?.ports).to.deep.equal([{ containerPort: 8080, name: 'http' }]);
    expect(specOf<ServiceSpec>(service!).selector).to.deep.equal({ app: 'x', tier: 'web' });
    expect(specOf<ServiceSpec>(service!).ports).to.deep.equal([{ port: 80, targetPort: 'web' }]);
  });

  it('strategic merge: maps merge, null removes, unkeyed lists are replaced, keyed lists merge', () => {
    const base = { spec: { a: 1, b: { c: 2, d: 3 }, args: ['x', 'y'], volumes: [{ name: 'v', emptyDir: {} }] } };
    const merged = strategicMerge(base, { spec: { b: { d: null, e: 4 }, args: ['z'], volumes: [{ name: 'w', emptyDir: {} }] } }, []);
    expect(merged).to.deep.equal({ spec: { a: 1, b: { c: 2, e: 4 }, args: ['z'], volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] } });
    expect(base.spec.b).to.deep.equal({ c: 2, d: 3 }); // inputs untouched
  });

  it('refuses what it does not implement instead of rendering something else', () => {
    const withField = make({ 'kustomization.yaml': 'resources: [a.yaml]\nconfigMapGenerator:\n  - name: x\n', 'a.yaml': DEPLOYMENT });
    expect(() => renderKustomization(withField)).to.throw(KustomizeError, 'field "configMapGenerator" is not supported');
    const json6902 = make({ 'kustomization.yaml': 'resources: [a.yaml]\npatches:\n  - path: p.yaml\n    target: { kind: Deployment, name: app }\n', 'a.yaml': DEPLOYMENT, 'p.yaml': '- op: replace\n  path: /spec/replicas\n  value: 3\n' });
    expect(() => renderKustomization(json6902)).to.throw(KustomizeError, 'JSON 6902 patches are not supported');
    const noTarget = make({ 'kustomization.yaml': 'resources: [a.yaml]\npatches:\n  - patch: |\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: { name: missing }\n', 'a.yaml': DEPLOYMENT });
    expect(() => renderKustomization(noTarget)).to.throw(KustomizeError, 'no ConfigMap named missing to patch');
    const twoInOne = make({ 'kustomization.yaml': 'resources: [a.yaml]\npatches:\n  - path: p.yaml\n', 'a.yaml': DEPLOYMENT, 'p.yaml': 'kind: Deployment\nmetadata: { name: app }\n---\nkind: Service\nmetadata: { name: app }\n' });
    expect(() => renderKustomization(twoInOne)).to.throw(KustomizeError, 'exactly one patch, found 2');
  });

  it('reports duplicates, missing resources and malformed YAML with the file', () => {
    const duplicate = make({ 'kustomization.yaml': 'resources: [a.yaml, b.yaml]\n', 'a.yaml': DEPLOYMENT, 'b.yaml': DEPLOYMENT });
    expect(() => renderKustomization(duplicate)).to.throw(KustomizeError, 'Deployment app is declared twice');
    const missing = make({ 'kustomization.yaml': 'resources: [nope.yaml]\n' });
    expect(() => renderKustomization(missing)).to.throw(KustomizeError, 'resource nope.yaml does not exist');
    const malformed = make({ 'kustomization.yaml': 'resources: [a.yaml]\n', 'a.yaml': 'kind: [unclosed\n' });
    expect(() => renderKustomization(malformed)).to.throw(KustomizeError, 'a.yaml');
  });
});
