import { describe, expect, it } from 'vitest'
import { parseCommandLine } from './cli.ts'

describe('parseCommandLine', () => {
  it('defaults: the committed media, loopback, 8080/8081/8090', () => {
    expect(parseCommandLine([], {})).toEqual({
      settings: {
        mediaDir: undefined,
        hostname: '127.0.0.1',
        ports: { plain: 8080, ip: 8081, origin: 8090 },
      },
    })
  })

  it('takes the ports of CDN_DOMAIN, CDN_DOMAIN_IP and ORIGIN_PORT, as npm start sets them', () => {
    const env = {
      CDN_DOMAIN: '127.0.0.1:18082',
      CDN_DOMAIN_IP: '127.0.0.1:18083',
      ORIGIN_PORT: '18090',
    }
    expect(parseCommandLine([], env)).toMatchObject({
      settings: { ports: { plain: 18082, ip: 18083, origin: 18090 } },
    })
  })

  it('lets the options override the variables', () => {
    const env = { CDN_DOMAIN: '127.0.0.1:18082', ORIGIN_PORT: '18090' }
    const argv = [
      '--media',
      'my-media',
      '--port',
      '9080',
      '--ip-port',
      '0',
      '--origin-port',
      '9090',
    ]
    expect(parseCommandLine([...argv, '--host', '0.0.0.0'], env)).toEqual({
      settings: {
        mediaDir: 'my-media',
        hostname: '0.0.0.0',
        ports: { plain: 9080, ip: 0, origin: 9090 },
      },
    })
  })

  it('asks for the help with --help and -h', () => {
    expect(parseCommandLine(['--help'], {})).toEqual({ help: true })
    expect(parseCommandLine(['-h', '--port', 'x'], {})).toEqual({ help: true })
  })

  it.each([
    [['--port', '80a'], {}, '--port "80a": not a port'],
    [['--origin-port', '70000'], {}, '--origin-port "70000": not a port'],
    [[], { ORIGIN_PORT: 'http' }, 'ORIGIN_PORT "http": not a port'],
    [['--media', ''], {}, '--media: an empty path'],
    [['--host', 'a b'], {}, '--host "a b": not an address'],
    [['--medai', 'x'], {}, "Unknown option '--medai'"],
    [['media'], {}, "Unexpected argument 'media'"],
    [['--media'], {}, "Option '--media <value>' argument missing"],
  ])('refuses %j %j, naming what', (argv, env, message) => {
    const request = parseCommandLine(argv, env)
    expect(request).toHaveProperty('error')
    expect((request as { error: string }).error).toContain(message)
  })
})
