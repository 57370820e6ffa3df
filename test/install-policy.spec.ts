import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '#test-support/shared-dir.js';

interface PackageJson {
  engines: { node: string };
  devEngines: { runtime: { name: string; version: string; onFail: string } };
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
}

const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as PackageJson;
const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };

/** `>=24.11.0` → [24, 11, 0]. */
const floor = (range: string) => /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range)!.slice(1).map(Number);
const atLeast = (version: string, minimum: number[]) => {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (parts[i] !== minimum[i]) return parts[i]! > minimum[i]!;
  return true;
};

/** How `npm ci` installs the pinned runtime on a machine whose own Node is older (README, set-up). */
describe('install policy (package.json)', () => {
  it('allows the install scripts of exactly the pinned runtime and esbuild, and reviews every other one', () => {
    expect(Object.entries(pkg.allowScripts).filter(([, allowed]) => allowed).map(([name]) => name)).to.have.members(['node', 'esbuild']);
    // Every locked package with an install script is reviewed (allowed or denied): none waits on a prompt
    // or, with an npm that skips unreviewed scripts, silently loses its script.
    const withScripts = Object.entries(lock.packages).filter(([, entry]) => entry.hasInstallScript)
      .map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts).to.include('node');
    expect(withScripts.filter((name) => !Object.hasOwn(pkg.allowScripts, name))).to.deep.equal([]);
  });

  it('declares the runtime the project runs on once, as engines and devEngines, and the pinned node satisfies it', () => {
    expect(pkg.devEngines.runtime).to.deep.equal({ name: 'node', version: pkg.engines.node, onFail: 'ignore' });
    const minimum = floor(pkg.engines.node);
    expect(atLeast(pkg.devDependencies.node!, minimum), `pinned node ${pkg.devDependencies.node}`).to.equal(true);
    // The tests themselves run on it (npm scripts put node_modules/.bin first on the PATH).
    expect(atLeast(process.versions.node, minimum), `running on ${process.versions.node}`).to.equal(true);
  });
});
