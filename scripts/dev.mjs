#!/usr/bin/env node
// Starts the whole local stack on embedded defaults and stops all of it on Ctrl-C.
// Each service runs in its own process group, so stopping it also stops what it spawned
// (wrangler's workerd). Run through `npm start` or `pnpm dev`.
import { spawn } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEnv } from 'node:util'
import { localPorts, localStack } from '@proj/stack'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const services = localStack(localPorts())

for (const service of services) {
  // Workers read local secrets from .dev.vars (git-ignored); a fresh clone gets the example's dev values.
  const devVars = join(root, service.cwd, '.dev.vars')
  if (!service.devVars) continue
  if (!existsSync(devVars)) {
    copyFileSync(`${devVars}.example`, devVars)
    console.log(
      `[dev] created ${join(service.cwd, '.dev.vars')} from .dev.vars.example (local dev values)`,
    )
    continue
  }
  // an older clone's .dev.vars lacks what the example gained since (EMULATOR_ADMIN): added, named;
  // a variable set to anything (false too) is left as it is
  const example = parseEnv(readFileSync(`${devVars}.example`, 'utf8'))
  const present = parseEnv(readFileSync(devVars, 'utf8'))
  const missing = Object.keys(example).filter((key) => !(key in present))
  if (missing.length > 0) {
    // quoted when a bare value would read otherwise (spaces, #, quotes, line breaks)
    const value = (text) => (/^[^\s#"'`\\]*$/.test(text) ? text : JSON.stringify(text))
    const lines = missing.map((key) => `${key}=${value(example[key])}`).join('\n')
    appendFileSync(devVars, `\n# added from .dev.vars.example by npm start\n${lines}\n`)
    console.log(
      `[dev] added ${missing.join(', ')} to ${join(service.cwd, '.dev.vars')} from .dev.vars.example`,
    )
  }
}

// Variables a service shares with another one's .dev.vars (the CDN emulator needs the token
// worker's SECRET_KEY and CDN hosts).
const sharedEnv = (service) => {
  if (!service.envFrom) return {}
  const vars = parseEnv(readFileSync(join(root, service.envFrom.file), 'utf8'))
  return Object.fromEntries(
    service.envFrom.keys.flatMap((key) => (key in vars ? [[key, vars[key]]] : [])),
  )
}

const children = services.map((service) => {
  const child = spawn(service.command[0], service.command.slice(1), {
    cwd: join(root, service.cwd),
    env: { ...process.env, ...sharedEnv(service), ...service.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const prefix = `[${service.name}] `
  for (const stream of [child.stdout, child.stderr]) {
    let pending = ''
    stream.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) if (line.trim()) process.stdout.write(`${prefix + line}\n`)
    })
  }
  child.on('exit', (code) => {
    if (!stopping) {
      console.error(`[dev] ${service.name} exited with code ${code}; stopping the stack`)
      stop(1)
    }
  })
  return child
})

const waitFor = async (url, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      await fetch(url)
      return true
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  return false
}

let stopping = false
function stop(code = 0) {
  if (stopping) return
  stopping = true
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {}
  }
  setTimeout(() => process.exit(code), 500).unref()
}
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

const ready = await Promise.all(services.map((service) => waitFor(service.readyUrl)))
if (ready.every(Boolean)) {
  console.log('\n[dev] the local stack is up:')
  for (const service of services) console.log(`  ${service.name.padEnd(14)} ${service.tryUrl}`)
  console.log('\n[dev] try:')
  for (const service of services) if (service.example) console.log(`  ${service.example}`)
  console.log('\n[dev] Ctrl-C stops everything.\n')
} else {
  console.error('[dev] a service did not become ready within 60 s; see its output above')
  stop(1)
}
