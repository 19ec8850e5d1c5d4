import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { closeAddresses, fetchFrom } from '../test/from-address.ts'

// A Node server started with serveTokenApp, in a process of its own (signals are process-wide):
// its authorizer takes 1.5 s, so a request is still open when SIGTERM arrives. With its own
// authorizer the config names no auth mode (AUTH_MODE may be left out then).
const script = (signals: boolean) => `
import { serveTokenApp } from ${JSON.stringify(pathToFileURL(`${import.meta.dirname}/node.ts`).href)}
serveTokenApp(
  {
    config: {
      signing: { clientId: '12345', secretKey: 'serve-secret-41c9', cdnDomain: 'cdn.serve.test', cdnDomainIp: 'cdn-ip.serve.test' },
    },
    port: 0,
    signals: ${signals},
    async authorize() {
      console.error('authorizing')
      await new Promise((resolve) => setTimeout(resolve, 1500))
      return { allow: true }
    },
  },
  ({ url }) => console.error('listening on ' + url),
)
`

const start = (signals: boolean) => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script(signals)], {
    env: { PATH: process.env.PATH ?? '' },
  })
  const output = { stdout: '', stderr: '' }
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk
  })
  const stderrMatch = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const found = pattern.exec(output.stderr)
        if (found) resolve(found)
      }
      child.stderr.on('data', (chunk) => {
        output.stderr += chunk
        check()
      })
      check()
      child.on('exit', () => reject(new Error(`exited first: ${output.stderr}`)))
    })
  return { child, output, stderrMatch }
}

const exitOf = async (child: ChildProcess) => {
  const [code, signal] = await once(child, 'exit')
  return { code, signal }
}

afterAll(closeAddresses)

describe('serveTokenApp on SIGTERM (a process each)', { timeout: 30_000 }, () => {
  it('lets the open request finish, writes its audit line and exits 0', async () => {
    const { child, output, stderrMatch } = start(true)
    const [, url] = await stderrMatch(/listening on (http:\/\/\S+)/)
    const pending = fetchFrom('127.0.0.27', `${url}token?video=slow`)
    await stderrMatch(/authorizing/)
    child.kill('SIGTERM')
    const answer = await pending
    expect(answer.status).toBe(200)
    expect(await answer.json()).toMatchObject({ client_ip: '127.0.0.27' })
    expect(await exitOf(child)).toEqual({ code: 0, signal: null })
    expect(JSON.parse(output.stdout)).toMatchObject({ event: 'token_issued', video: 'slow' })
    expect(output.stderr).toContain('token-backend: SIGTERM: not accepting connections')
    expect(output.stderr).toContain('token-backend: stopped')
  })

  it('signals: false leaves the signal to the process: it dies at once, the request cut', async () => {
    const { child, stderrMatch } = start(false)
    const [, url] = await stderrMatch(/listening on (http:\/\/\S+)/)
    const pending = fetch(`${url}token?video=slow`).then(
      () => 'answered',
      () => 'cut',
    )
    await stderrMatch(/authorizing/)
    child.kill('SIGTERM')
    expect(await exitOf(child)).toEqual({ code: null, signal: 'SIGTERM' })
    expect(await pending).toBe('cut')
  })
})
