// Type tests, checked by `tsc` (pnpm typecheck): an app of yours types what the token app hands
// your authorizer. A line marked @ts-expect-error that compiles fails the typecheck.
import { Hono } from 'hono'
import { createTokenApp } from './app.ts'
import { allow, deny, jwtAuthorizer } from './authorize.ts'
import { type AuthConfig, type TokenBackendConfig, tokenConfig } from './config.ts'

type MyEnv = {
  Bindings: { MEMBERS: KVNamespace; PLAN: 'free' | 'paid' }
  Variables: { user: string }
}

const tokens = createTokenApp<MyEnv>({
  authorize: async (c, video) => {
    // your bindings and variables, without a cast; the app's own are there too
    const member: string | null = await c.env.MEMBERS.get(c.req.header('x-member') ?? '')
    const plan: 'free' | 'paid' = c.env.PLAN
    const user: string = c.get('user')
    const config: TokenBackendConfig = c.get('tokenConfig')
    // @ts-expect-error: a binding MyEnv does not have
    c.env.NOT_BOUND
    // the built-in JWT check composes with yours
    const jwt = await jwtAuthorizer({ mode: 'jwt', videosClaim: 'videos', requireExp: true })(
      c,
      video,
    )
    return member && plan === 'paid' && user && config && jwt.allow ? allow : deny(403, 'no')
  },
})
// mounted in an app of the same environment
new Hono<MyEnv>().route('/video', tokens)

createTokenApp({
  config: tokenConfig({
    signing: { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' },
    auth: { mode: 'none' },
  }),
})
// @ts-expect-error: the signing fields are required
createTokenApp({ config: { ipHeaders: ['x-real-ip'], auth: { mode: 'none' } } })
// @ts-expect-error: so is auth: "none" (anyone may get tokens) is a choice to name
tokenConfig({
  signing: { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' },
})

// AUTH_MODE may be left out only when your own authorizer decides
const signing = { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' }
// @ts-expect-error: without authorize, config needs auth (closed by default)
createTokenApp({ config: { signing } })
createTokenApp({ authorize: () => allow, config: { signing } })
createTokenApp<MyEnv>({
  authorize: (c) => (c.env.PLAN === 'paid' ? allow : deny(403, 'paid only')),
  config: { signing, ipHeaders: ['cf-connecting-ip'] },
})
// given with an authorizer, auth is still typed
createTokenApp({
  authorize: () => allow,
  // @ts-expect-error: not an auth mode
  config: { signing, auth: { mode: 'nobody' } },
})
// a request's configuration may then lack auth: an authorizer handles both
createTokenApp({
  authorize: (c) => {
    const { auth } = c.get('tokenConfig')
    // @ts-expect-error: auth may be undefined
    auth.mode
    return auth?.mode === 'jwt' ? allow : deny(401, 'no JWT check configured')
  },
})
// the strict readings keep auth
const strict: AuthConfig = tokenConfig({ signing, auth: { mode: 'none' } }).auth
void strict
