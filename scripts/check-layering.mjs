#!/usr/bin/env node
// Packages are libraries; apps compose them. Fails when any packages/* depends on an apps/*
// package (dependencies of every kind), so a library never reaches into an app.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const manifests = (folder) =>
  readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      try {
        const path = join(folder, entry.name, 'package.json')
        return [{ path, manifest: JSON.parse(readFileSync(join(root, path), 'utf8')) }]
      } catch {
        return []
      }
    })

const apps = new Set(manifests('apps').map(({ manifest }) => manifest.name))
const kinds = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']
const violations = manifests('packages').flatMap(({ path, manifest }) =>
  kinds.flatMap((kind) =>
    Object.keys(manifest[kind] ?? {})
      .filter((name) => apps.has(name))
      .map((name) => `${path}: ${kind} has the app ${name}`),
  ),
)
if (violations.length) {
  console.error(`layering: packages must not depend on apps:\n  ${violations.join('\n  ')}`)
  process.exit(1)
}
console.log(`layering: ${manifests('packages').length} packages, none depends on an app`)
